"""Make levels/badge-card.glb, the shipped card model (self-made, CC0): a card with cut corners and its art.

    .venv/bin/python docs/scripts/card_model.py     # from the repository root

The mesh is the drawn card's own slab (`ropework.systems.lanyard.draw_lanyard.slab`) with
45° cut corners instead of round ones; the texture is drawn here with Pillow; the
file is written by `ropework.systems.lanyard.gltf.write`. Deterministic: the same
bytes every run.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from ropework.systems.lanyard import gltf
from ropework.systems.lanyard.art import font
from ropework.systems.lanyard.draw_lanyard import merge, slab

OUT = Path(__file__).resolve().parents[2] / "levels" / "badge-card.glb"
W, H, T = 0.054, 0.086, 0.0008   # metres: a CR80 card (glTF's unit), portrait


def art() -> bytes:
    w, h = 432, 688
    im = Image.new("RGB", (w, h))
    px = np.zeros((h, w, 3), np.uint8)
    y = np.linspace(0, 1, h)[:, None]
    x = np.linspace(0, 1, w)[None, :]
    px[..., 0] = (30 + 90 * x + 20 * y).astype(np.uint8)
    px[..., 1] = (10 + 30 * y).astype(np.uint8)
    px[..., 2] = (90 + 140 * (1 - x) * y + 25).clip(0, 255).astype(np.uint8)
    im = Image.fromarray(px)
    d = ImageDraw.Draw(im)
    for k in range(7):
        d.ellipse([w / 2 - 40 - 22 * k, 250 - 40 - 22 * k, w / 2 + 40 + 22 * k, 250 + 40 + 22 * k],
                  outline=(255, 255, 255), width=2)
    big, _ = font(64)
    small, _ = font(26, bold=False)
    d.text((w / 2, 500), "GLB", font=big, fill=(255, 255, 255), anchor="mm")
    d.text((w / 2, 560), "card model · ropework", font=small, fill=(220, 210, 255), anchor="mm")
    d.rectangle([0, h - 70, w, h], fill=(255, 200, 40))
    d.text((w / 2, h - 35), "GUEST", font=small, fill=(20, 10, 40), anchor="mm")
    buf = io.BytesIO()
    im.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def main() -> None:
    parts = slab(-W / 2, -H, W / 2, 0.0, -T, 0.0, r=0.008, bevel=0.0015, steps=1)
    verts, idx = merge(*parts.values())
    gltf.write(OUT, verts[:, :3], idx, uvs=verts[:, 6:8], normals=verts[:, 3:6], roughness=0.35, png=art())
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {len(idx) // 3} triangles)")


if __name__ == "__main__":
    main()
