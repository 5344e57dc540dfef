"""Strokes on the GPU against the CPU painter: time per draw, interleaved, and the pictures' difference.

    .venv/bin/python -m bench.strokes                       # 100k, 1m, rope.toml, a 300-rope scene, tendrils
    .venv/bin/python -m bench.strokes --only 100k --shots /tmp/strokes   # also the two pictures and |difference|

Each scene is loaded headless at 1280×720, played `--steps` steps with ropework.testing.drive's hand
(the shipped levels: their gallery script), then drawn into one off-screen framebuffer
again and again with `gfx.STROKES` forced to "gpu" and to "cpu" in turn (A, B, A, B …, so
both see the same load): the figure is the median of each path's whole draw + `ctx.finish()`,
wall and this process's CPU time (every thread: the painter's pool thread and the software rasteriser's
too). The pictures are read back once per path; the table gives the largest per-channel
difference and the share of pixels that differ at all and by more than 8/255. The sample
count of the scene's largest Strokes body and what `gfx.cpu_paints` chooses for it are
shown, so the software profile's cost model (`profile.StrokeCosts`: gpu_sample, cpu_sample, cpu_pixel)
can be checked against the figures.

Run by hand, never as a test: timings depend on whatever else the machine is doing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")

import numpy as np  # noqa: E402

from bench import levels as gen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SIZE = (1280, 720)
SCENES = {   # name -> level text (None: a shipped level of that file name)
    "100k": lambda: gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS),
    "1m": lambda: gen.curtain_level(gen.MILLION_ROPES, gen.BIG_POINTS),
    "300": lambda: gen.rope_level(300, 20, ends=True),
    "rope": None,
    "tendrils": None,
}


def strokes_of(scene):
    """Every gfx.Strokes object the scene's draw systems hold (in their per-entity caches)."""
    from ropework.systems.services import gfx
    found = []

    def walk(v, depth=0):
        if isinstance(v, gfx.Strokes):
            found.append(v)
        elif depth < 3 and isinstance(v, (dict, tuple, list)):
            for x in (v.values() if isinstance(v, dict) else v):
                walk(x, depth + 1)
        elif depth < 3 and hasattr(v, "__dict__") and not isinstance(v, type):
            for x in vars(v).values():
                if isinstance(x, (gfx.Strokes, dict, tuple, list)):
                    walk(x, depth + 1)
    for d in scene.draws:
        walk(vars(d))
    return found


def measure(name: str, text, steps: int, rounds: int, shots: Path | None, tmp: Path) -> dict:
    from ropework.render import Offscreen, headless_window
    from ropework.scene import Scene
    from ropework.systems.services import gfx
    from ropework.testing.drive import Hand
    win = headless_window(*SIZE)
    ctx = win.ctx
    path = ROOT / "levels" / f"{name}.toml" if text is None else gen.write(tmp / f"{name}.toml", text())
    scene = Scene.load(path, size=SIZE, seed=1)
    off = Offscreen(ctx, SIZE)
    try:
        hand = Hand(*SIZE)
        from ropework import script
        for f in range(steps):
            script.apply(scene, hand.events(f))
            scene.step(1)
        times = {"gpu": [], "cpu": []}
        pics = {}
        for r in range(rounds + 2):          # the first two rounds warm up (kernels load, buffers grow)
            for path_ in (("gpu", "cpu") if r % 2 == 0 else ("cpu", "gpu")):
                gfx.STROKES = path_
                t, c = time.perf_counter(), time.process_time()
                off.render(scene)
                ctx.finish()
                if r >= 2:
                    times[path_].append((time.perf_counter() - t, time.process_time() - c))
                if r == 1:
                    pics[path_] = np.asarray(off.image().convert("RGB")).astype(np.int16)
        gfx.STROKES = "auto"
        d = np.abs(pics["gpu"] - pics["cpu"]).max(axis=2)
        if shots is not None:
            from PIL import Image
            shots.mkdir(parents=True, exist_ok=True)
            for k, im in pics.items():
                Image.fromarray(im.astype(np.uint8)).save(shots / f"{name}-{k}.png")
            Image.fromarray(np.minimum(d * 8, 255).astype(np.uint8)).save(shots / f"{name}-diff.png")
        from ropework.systems.services import split
        samples = max((s.n_samples for s in strokes_of(scene)), default=0)
        return {"name": name, "points": scene.point_count, "samples": samples,
                "auto": "cpu" if gfx.cpu_paints(samples, SIZE[0] * SIZE[1], split.threads()) else "gpu",
                **{f"{k}_ms": 1e3 * statistics.median(x for x, _ in v) for k, v in times.items()},
                **{f"{k}_cpu_ms": 1e3 * statistics.median(c for _, c in v) for k, v in times.items()},
                "max": int(d.max()), "differ": float((d > 0).mean()), "over_8": float((d > 8).mean())}
    finally:
        scene.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.strokes", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated: " + ", ".join(SCENES))
    ap.add_argument("--steps", type=int, default=150, help="steps played before drawing (the hand grabs at 60)")
    ap.add_argument("--rounds", type=int, default=10, help="timed A/B rounds per scene")
    ap.add_argument("--shots", type=Path, help="save both pictures and the difference (×8) here")
    args = ap.parse_args(argv)
    only = [s for s in args.only.split(",") if s] or list(SCENES)
    print(f"load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    print("| scene | points | samples | auto | GPU ms | CPU-painted ms | GPU CPU-time ms | painter CPU-time ms "
          "| max diff | differ | > 8/255 | load |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="ropework-strokes-") as tmp:
        for name in only:
            r = measure(name, SCENES[name], args.steps, args.rounds, args.shots, Path(tmp))
            print(f"| {name} | {r['points']:,} | {r['samples']:,} | {r['auto']} | {r['gpu_ms']:.2f} | {r['cpu_ms']:.2f} "
                  f"| {r['gpu_cpu_ms']:.2f} | {r['cpu_cpu_ms']:.2f} | {r['max']} | {100 * r['differ']:.3f} % "
                  f"| {100 * r['over_8']:.3f} % | {os.getloadavg()[0]:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
