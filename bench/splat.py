"""The dense dot grid's CPU splat, phase by phase: its read-back composite against the blended quad (or
the 8-bit upload against the float one).

    .venv/bin/python -m bench.splat                  # 200 frames of the 100,000-dot look grid (bench.frames' dots100k)
    .venv/bin/python -m bench.splat --frames 300
    .venv/bin/python -m bench.splat --against float  # the 8-bit path against the float upload and its quad

The grid and its hand are bench.frames' ``dots100k`` row (swell, glow and streaks, the dot
grid's gallery script, 1280×720, drawn into `ropework.render.Offscreen`). Blocks of BLOCK frames
alternate between the canvas's read-back composite ("blit": read the pixels under the image,
blend on the CPU, write the result in) and the blended quad (`Canvas._blittable` answering
False: what the 8-bit framebuffer got before) — or, ``--against float``, between the 8-bit
upload and the float one (`canvas.eight_bit` answering False) — so both see
the same machine (a block's first frame, which remakes the texture, is not counted); for each the median draw time (wall, and CPU of the whole process: both
splat threads and the software rasteriser's) and the median wall / CPU of each phase of a paint — the
per-dot setup, the band lists, the bands (painted and, 8-bit, rounded), the upload, the
composite (each upload and composite followed by ``ctx.finish()``). With the 1-minute load
average. Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade

from bench import levels as gen  # noqa: E402
from bench.frames import SIZE, driver  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WARMUP = 30   # frames before timing: the kernels compiled, the hand in the grid
BLOCK = 10    # frames drawn one way before switching; the first of each block is not counted (its texture is remade)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.splat", description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=200, help="frames after the warm-up, half of them each way")
    ap.add_argument("--against", choices=("quad", "float"), default="quad",
                    help="what the 8-bit read-back-and-blit composite alternates with: the 8-bit image's blended quad "
                         "(default), or the float upload and its quad")
    args = ap.parse_args(argv)
    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene
    from ropework.systems.dotgrid import draw_dots
    from ropework.systems.services import canvas, split
    ctx = headless_window(*SIZE).ctx
    off = Offscreen(ctx, SIZE)
    with tempfile.TemporaryDirectory(prefix="ropework-splat-") as tmp:
        level = gen.write(Path(tmp) / "dots100k.toml",
                          gen.dot_level(gen.gap_for(gen.BIG_DOTS, SIZE)) + gen.DOT_LOOK)
        scene = Scene.load(level, size=SIZE)
    drive = driver(scene, ROOT / "levels" / "dotgrid.toml")
    phases: dict = {}
    way = ["blit"]

    def timed(name, fn, finish=False):
        def call(*a, **k):
            t, c = time.perf_counter(), time.process_time()
            out = fn(*a, **k)
            if finish:
                ctx.finish()
            phases.setdefault((way[0], name), []).append((time.perf_counter() - t, time.process_time() - c))
            return out
        return call

    def run(jobs):
        jobs = list(jobs)
        timed(jobs[0][0].py_func.__name__.strip("_"), split.run)(jobs)

    draw_dots.split = types.SimpleNamespace(run=run, pieces=split.pieces)   # this module's view of split only
    for name in ("_splat_bin",):
        setattr(draw_dots, name, timed(name.strip("_"), getattr(draw_dots, name)))
    canvas.Canvas.upload = timed("upload", canvas.Canvas.upload, finish=True)
    canvas.Canvas.composite = timed("composite", canvas.Canvas.composite, finish=True)
    eight, blittable = canvas.eight_bit, canvas.Canvas._blittable
    other = "quad" if args.against == "quad" else "float"
    try:
        for f in range(WARMUP + args.frames):
            drive(f)
            scene.step(1)
            block, first = divmod(f, BLOCK)
            way[0] = "blit" if block % 2 else other
            if args.against == "float":
                canvas.eight_bit = eight if block % 2 else (lambda fbo: False)
            else:
                canvas.Canvas._blittable = blittable if block % 2 else (lambda self: False)
            if f == WARMUP:
                phases.clear()
            if first == 0 or f < WARMUP:
                way[0] = "skip"
            timed("draw", lambda: (off.render(scene), ctx.finish()))()
    finally:
        canvas.eight_bit, canvas.Canvas._blittable = eight, blittable
        scene.close()
    print(f"100,000-dot look grid, {args.frames} frames alternating, 1-minute load {os.getloadavg()[0]:.2f}")
    print("  ms, median: wall / process CPU")
    names = list(dict.fromkeys(n for _, n in phases))
    print("  " + " " * 7 + "".join(f"{n:>18s}" for n in names))
    for w in ("blit", other):
        cells = []
        for n in names:
            xs = phases.get((w, n), [])
            cells.append(f"{statistics.median(a for a, _ in xs) * 1e3:8.2f} /{statistics.median(b for _, b in xs) * 1e3:6.2f}"
                         if xs else " " * 16)
        print(f"  {w:7s}" + "".join(f"{c:>18s}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
