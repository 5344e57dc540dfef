"""The CPU stroke painter's kernels in one frame, this checkout's against another's in one process.

    .venv/bin/python -m bench.painter                                   # 100k and 1m, this checkout
    .venv/bin/python -m bench.painter --only 1m --ab /work/main --rounds 12

Each scene is loaded headless at 1280×720 and played `--steps` steps with ropework.testing.drive's hand;
its strokes are then painted again and again (`stroke_raster.paint`, into an off-screen
framebuffer) with the positions of that step, and each kernel the painter hands to `split.run`
(rope_gaps, sample_vertices, paint_band, the composite's `over`) is called on this thread and
timed by its thread CPU (`time.thread_time`): a frame's work, with neither the other core's share
nor GL in the figure. With ``--ab DIR`` the other checkout's ``systems/services/stroke_raster.py``
is loaded into this same process and the two paint in turn (A, B, B, A …) over the same scene and
buffers of their own: separate processes differed by up to 1.45× on a kernel neither had changed
(the 1m scene, load 8), one process does not. The band's 8-bit pixels are compared too. Run by
hand, never as a test.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import levels as gen  # noqa: E402

SIZE = (1280, 720)
SCENES = {"100k": lambda: gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS), "1m": gen.curtain_level}


def other_painter(checkout: Path):
    """The stroke_raster module of another checkout, loaded beside ours (its kernels cache by its path)."""
    path = checkout / "systems" / "services" / "stroke_raster.py"
    if not path.is_file():
        raise SystemExit(f"bench.painter: --ab {checkout}: expected {path}, found no such file")
    spec = importlib.util.spec_from_file_location("ropework.systems.services._stroke_raster_other", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(level: str, painters: dict, steps: int, rounds: int) -> None:
    import arcade

    from ropework.scene import Scene
    from ropework.systems.services import gfx, split
    from ropework.testing.drive import Hand
    win = arcade.Window(*SIZE, visible=False)
    ctx = win.ctx
    scene = Scene.load(level, size=SIZE, seed=1)
    hand = Hand(*SIZE)
    for f in range(steps):
        hand.apply(scene, f)
        scene.step()
    gfx.STROKES = "cpu"
    off = ctx.framebuffer(color_attachments=[ctx.texture(SIZE, components=4)])
    with off.activate():
        scene.draw(ctx)                       # the draw system's Strokes take the scene's chains and styles
    found = [s for d in scene.draws for v in vars(d).values() if isinstance(v, dict)
             for t in v.values() for s in (t if isinstance(t, tuple) else (t,)) if isinstance(s, gfx.Strokes)]
    strokes = max(found, key=lambda s: s.n_samples)
    pos, colour, width = strokes._cpu
    spent: dict = {}
    real = split.run

    def timed(jobs):
        for fn, args in jobs:
            t = time.thread_time()
            fn(*args)
            spent[fn.__name__] = spent.get(fn.__name__, 0.0) + time.thread_time() - t
    bands = {who: mod.Band(ctx) for who, mod in painters.items()}
    got: dict = {who: {} for who in painters}
    pictures = {}
    split.run = timed
    try:
        order = list(painters)
        for rnd in range(rounds):
            for who in (order if rnd % 2 == 0 else order[::-1]):
                spent.clear()
                with off.activate():
                    off.clear(color=(255, 255, 255, 255))
                    painters[who].paint(bands[who], SIZE, pos, *strokes._chains, strokes._samples, strokes.subdiv,
                                        colour, width)
                    ctx.finish()
                pictures[who] = bands[who].pixels.copy()
                for k, v in spent.items():
                    got[who].setdefault(k, []).append(1e3 * v)
    finally:
        split.run = real
    for k in got["this"]:
        line = f"  {k:16s} this {statistics.median(got['this'][k]):7.2f} ms"
        if "other" in got and k in got["other"]:
            a = statistics.median(got["other"][k])
            line += f"   other {a:7.2f} ms   this / other {statistics.median(got['this'][k]) / a:.2f}"
        print(line)
    if "other" in pictures:
        same = pictures["other"].shape == pictures["this"].shape and bool((pictures["other"] == pictures["this"]).all())
        print(f"  band pixels the same: {same}")
    scene.close()
    win.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.painter", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="100k,1m", help="comma-separated: 100k, 1m")
    ap.add_argument("--steps", type=int, default=90, help="steps played before the frame is painted")
    ap.add_argument("--rounds", type=int, default=8, help="paints per checkout")
    ap.add_argument("--ab", metavar="DIR", type=Path, help="another checkout, painted in turn in this process")
    args = ap.parse_args(argv)
    from ropework.systems.services import stroke_raster
    painters = {"this": stroke_raster} | ({"other": other_painter(args.ab)} if args.ab else {})
    with tempfile.TemporaryDirectory(prefix="ropework-painter-") as tmp:
        for name in args.only.split(","):
            if name not in SCENES:
                raise SystemExit(f"bench.painter: --only: expected 100k or 1m, found {name!r}")
            lvl = str(gen.write(Path(tmp) / f"{name}.toml", SCENES[name]()))
            print(f"{name}: median thread CPU a paint, load {os.getloadavg()[0]:.2f}", flush=True)
            measure(lvl, painters, args.steps, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
