"""Draw colliders: every collider of a body as its outline, one line draw call per body.

Reads: Colliders, Layer, Frame. Writes: the framebuffer.

The outlines are rebuilt from the shapes each frame (a kinematic one moves): a few hundred
vertices at most, numpy per collider. One grey that reads on both themes' backgrounds.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Layer
from ropework.components.collider import BOX, CAPSULE, CIRCLE, PLANE, POLYGON, Colliders
from ropework.systems.services import gfx

COLOUR = (0.5, 0.52, 0.56, 0.95)   # mid grey: the same look on the light (#f4f4f4) and dark (#141418) grounds
WIDTH = 2.0                         # px
ARC = 40                            # segments in a full circle's outline


def outline(c: Colliders, i: int, w: float, h: float) -> np.ndarray:
    """float32[k, 2]: collider i's outline, a closed loop, scene px (a plane: its surface across the scene)."""
    ca, sa = c.axis[i]
    rot = np.array([[ca, sa], [-sa, ca]], np.float32)    # row vectors: local @ rot = world offset
    s = int(c.shape[i])
    if s == CIRCLE:
        t = np.linspace(0, 2 * np.pi, ARC, endpoint=False)
        local = c.radius[i] * np.stack([np.cos(t), np.sin(t)], 1)
    elif s == CAPSULE:
        hl, r = c.half[i, 0], c.radius[i]
        t = np.linspace(-np.pi / 2, np.pi / 2, ARC // 2)
        right = np.stack([hl + r * np.cos(t), r * np.sin(t)], 1)
        local = np.concatenate([right, -right])
    elif s == BOX:
        hx, hy = c.half[i]
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    elif s == POLYGON:
        local = c.verts[c.vstart[i]:c.vstart[i + 1]]
    else:
        span = 2.0 * (w + h)
        local = np.array([[-span, 0.0], [span, 0.0]])
    return (c.centre[i] + np.asarray(local, np.float32) @ rot).astype(np.float32)


class DrawColliders:
    def __init__(self):
        self._gl: dict[int, gfx.Links] = {}

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl)
        for ent, (col, layer) in esper.get_components(Colliders, Layer):
            if layer.name != layer_name:
                continue
            loops = [outline(col, i, frame.width, frame.height) for i in range(len(col.shape))]
            pos = np.concatenate(loops)
            start = np.r_[0, np.cumsum([len(p) for p in loops])[:-1]]
            a, b = [], []
            for s, p, shape in zip(start, loops, col.shape):
                k = np.arange(len(p))
                closed = shape != PLANE
                a.append(s + (k if closed else k[:-1]))
                b.append(s + ((k + 1) % len(p) if closed else k[1:]))
            links = self._gl.get(ent) or self._gl.setdefault(ent, gfx.Links(ctx))
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            links.upload(pos, np.concatenate(a).astype(np.int32), np.concatenate(b).astype(np.int32))
            links.draw((frame.width, frame.height), COLOUR, WIDTH)
