"""The lanyard's drawing against another version of it, in one process: CPU a frame, interleaved, and the pictures.

    .venv/bin/python -m bench.lanyard_ab OTHER/systems/lanyard/draw_lanyard.py                 # lanyard, badge, model
    .venv/bin/python -m bench.lanyard_ab OTHER/systems/lanyard/draw_lanyard.py --only badge --rounds 16

OTHER is another checkout's `systems/lanyard/draw_lanyard.py` (e.g. `git show main:systems/lanyard/draw_lanyard.py >
/tmp/old.py`). It is loaded beside this checkout's module and its `DrawLanyard` drawing methods, its
`LanyardGL.composite_into` and programs built from its shaders take turns with this checkout's on
the same scene and GL objects (textures, the layer framebuffer), each with its own card meshes
(`card_meshes`): the two differ only in what the drawing code and its meshes do. Each level is
loaded headless at 1280×720 and played with its gallery script; at three steps each version draws
the same frame and the pictures' largest per-channel difference is printed; then blocks of frames
(step + draw + `ctx.finish()`) alternate A, B, B, A …,
timed by this process's CPU time (every thread: Python, numba and the GL rasteriser's threads), so
both see the same load. The figure is each version's median ms a frame and their ratio. Two
processes taking turns on this shared machine differed by ±10 % run to run; in one process ±3 %.

Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import statistics
import sys
import time
import types
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ("lanyard", "badge", "model")
VISIBLE = 8                      # levels (of 255) a pixel must change by to count as a visible change
PICTURE_STEPS = (60, 200, 400)
POSES = {                        # --poses: the card turned to these Euler XYZ angles (radians) after the steps
    "resting": (0.0, 0.0, 0.0), "mid-swing": (0.25, 0.5, 0.15), "steep": (0.2, 1.2, 0.1),
    "edge-on": (0.1, 1.45, 0.05), "back": (0.0, 3.14159, 0.0), "back-steep": (0.3, 2.5, -0.2),
    "tipped": (1.25, 0.0, 0.0),
}   # steps of the gallery script at which the two pictures are compared
BLOCK = 12                       # frames a version draws before the other takes its turn


def load_other(path: Path):
    spec = importlib.util.spec_from_file_location("ropework.systems._other_draw_lanyard", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_level(level: str, other, ctx, rounds: int, shots: Path | None, poses: bool = False) -> dict:
    from bench.frames import driver
    from ropework.render import Offscreen
    from ropework.scene import Scene
    from ropework.systems.lanyard import draw_lanyard as dl
    path = Path(level) if level.endswith(".toml") else ROOT / "levels" / f"{level}.toml"
    level = path.stem
    scene = Scene.load(path, size=(1280, 720), seed=1)
    off = Offscreen(ctx, (1280, 720))
    drive = driver(scene, path)
    off.render(scene)
    ctx.finish()
    draws = [d for d in scene.draws if isinstance(d, dl.DrawLanyard)]
    shared = draws[0]._shared
    # The other version gets a `Shared` of its own kind holding the same textures, blank and layer
    # framebuffer, so its draw makes (and finds) its own programs; a version whose `LanyardGL` took its
    # programs at construction (`mesh`, `composite`) gets them set from there.
    other_shared = other.Shared()
    other_shared._textures, other_shared.target, other_shared._blank = shared._textures, shared.target, shared.blank(ctx)
    try:
        fixed = other_shared.programs(ctx)               # (mesh, composite), or the mesh alone
    except TypeError:
        fixed = None                                     # programs made per draw (by light count)
    this_attrs = {id(g): (g.__dict__.get("mesh"), g.__dict__.get("composite"), g.foil)
                  for d in draws for g in d._gl.values()}
    other_foil = ctx.program(vertex_shader=other._MESH_VS, fragment_shader=other._FOIL_FS)
    # Each version draws its own card meshes (`card_meshes`: the faces' triangles are part of the cost);
    # a GLB card's "model" part is the file's, shared.
    from arcade.gl import BufferDescription

    from ropework.components.lanyard import Card

    def geometry(verts, idx):
        return ctx.geometry([BufferDescription(ctx.buffer(data=verts.tobytes()), "3f 3f 2f",
                                               ["in_pos", "in_normal", "in_uv"])],
                            index_buffer=ctx.buffer(data=idx.tobytes()), index_element_size=4, mode=ctx.TRIANGLES)
    (_, card), = scene.find(Card)
    meshes = {"this": {id(g): dict(g.parts) for d in draws for g in d._gl.values()},
              "other": {id(g): dict(g.parts, **{k: geometry(*m) for k, m in other.card_meshes(card).items()})
                        for d in draws for g in d._gl.values()}}

    # Each version's textures filter as it set them up: the driver's anisotropic filter at its maximum, or
    # the module's TEXTURE_ANISOTROPY (1 where the mesh shader does the filtering itself).
    most = ctx.info.MAX_TEXTURE_MAX_ANISOTROPY
    aniso = {"this": getattr(dl, "TEXTURE_ANISOTROPY", most), "other": getattr(other, "TEXTURE_ANISOTROPY", most)}

    def use(who: str) -> None:
        for tex in shared._textures.values():
            tex.anisotropy = aniso[who]
        for d in draws:
            for name in ("_draw_one", "_foil", "_part"):
                d.__dict__.pop(name, None)
            if who == "other":
                d._draw_one = types.MethodType(other.DrawLanyard._draw_one, d)
                d._foil, d._part = other.DrawLanyard._foil, other.DrawLanyard._part
            for g in d._gl.values():
                g.parts = meshes[who][id(g)]
                mesh, composite, foil = this_attrs[id(g)]
                g.shared, g.mesh, g.composite = shared, mesh, composite
                g.__dict__.pop("composite_into", None)
                if who == "other":
                    g.shared = other_shared
                    if isinstance(fixed, tuple):
                        g.mesh, g.composite = fixed
                    elif fixed is not None:
                        g.mesh = fixed
                    g.composite_into = types.MethodType(other.LanyardGL.composite_into, g)
                if foil is not None:
                    g.foil = other_foil if who == "other" else foil

    def picture() -> np.ndarray:
        off.render(scene)
        ctx.finish()
        return off.pixels()[..., :3].astype(int)

    frame, worst, differing, visible = 0, 0, 0, 0
    for step in PICTURE_STEPS:
        while frame < step:
            drive(frame)
            scene.step(1)
            frame += 1
        use("other")
        a = picture()
        use("this")
        b = picture()
        d = np.abs(a - b).max(axis=2)
        worst, differing = max(worst, int(d.max())), max(differing, int((d > 0).sum()))
        visible = max(visible, int((d > VISIBLE).sum()))
        if shots is not None:
            from PIL import Image
            shots.mkdir(parents=True, exist_ok=True)
            Image.fromarray(a.astype(np.uint8)).save(shots / f"{level}-{step}-other.png")
            Image.fromarray(b.astype(np.uint8)).save(shots / f"{level}-{step}-this.png")
    posed = []
    if poses:
        for name, rot in POSES.items():
            card.rot[:] = rot
            use("other")
            a = picture()
            use("this")
            b = picture()
            d = np.abs(a - b).max(axis=2)
            posed.append((name, int(d.max()), int((d > VISIBLE).sum())))
            if shots is not None:
                from PIL import Image
                Image.fromarray(a.astype(np.uint8)).save(shots / f"{level}-{name}-other.png")
                Image.fromarray(b.astype(np.uint8)).save(shots / f"{level}-{name}-this.png")
    ms = {"this": [], "other": []}
    load0 = os.getloadavg()[0]
    for r in range(rounds):
        for who in ("other", "this") if r % 2 == 0 else ("this", "other"):
            use(who)
            gc.collect()
            c = time.process_time()
            for i in range(BLOCK):
                drive(frame + i)
                scene.step(1)
                off.render(scene)
                ctx.finish()
            frame += BLOCK
            ms[who].append((time.process_time() - c) / BLOCK * 1e3)
    scene.close()
    a, b = statistics.median(ms["other"]), statistics.median(ms["this"])
    return {"level": level, "other_ms": a, "this_ms": b, "ratio": b / a, "max_diff": worst,
            "pixels_differing": differing, "pixels_visible": visible, "poses": posed, "load": (load0, os.getloadavg()[0])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.lanyard_ab", description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="another checkout's systems/lanyard/draw_lanyard.py")
    ap.add_argument("--only", default=",".join(LEVELS), help="comma-separated lanyard-family level stems")
    ap.add_argument("--rounds", type=int, default=12, help="timed blocks of each version")
    ap.add_argument("--poses", action="store_true", help="also compare the pictures with the card turned to POSES")
    ap.add_argument("--shots", type=Path, default=None, help="also save both pictures at each compared step here")
    args = ap.parse_args(argv)
    if not args.other.is_file():
        print(f"bench.lanyard_ab: {args.other}: expected a draw_lanyard.py file, found nothing there", file=sys.stderr)
        return 2
    from ropework.render import headless_window
    ctx = headless_window().ctx
    other = load_other(args.other)
    print("| level | other ms/frame | this ms/frame | this / other | max difference | pixels differing | pixels > 8 | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for level in args.only.split(","):
        r = run_level(level.strip(), other, ctx, args.rounds, args.shots, args.poses)
        print(f"| {r['level']} | {r['other_ms']:.2f} | {r['this_ms']:.2f} | {r['ratio']:.3f} | {r['max_diff']} | "
              f"{r['pixels_differing']} | {r['pixels_visible']} | {r['load'][0]:.2f} → {r['load'][1]:.2f} |", flush=True)
        for name, worst, visible in r["poses"]:
            print(f"|   {name} | | | | {worst} | | {visible} | |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
