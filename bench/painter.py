"""The CPU stroke painter's kernels, one frame's calls replayed on one thread: CPU ms a frame each.

    .venv/bin/python -m bench.painter                          # 100k and 1m
    .venv/bin/python -m bench.painter --only 1m --ab OTHER/.venv/bin/python --rounds 6

Each scene is loaded headless at 1280×720, played `--steps` steps with tests/drive.py's hand and
drawn once into an off-screen framebuffer with `gfx.STROKES` forced to "cpu"; every job the painter
hands to `split.run` in that draw (rope_gaps, sample_vertices, paint_band) is kept and then called
again and again on this thread, and the figure is the median over `--repeats` of each kernel's
summed thread CPU time (`time.thread_time`): the work of a frame, whatever the other core is
doing, with neither threads nor GL in it. With ``--ab`` the probes alternate between this
checkout and another interpreter's (its own ``ropework``), round after round, and the ratio of
medians is printed. Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import levels as gen  # noqa: E402

SIZE = (1280, 720)
SCENES = {"100k": lambda: gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS), "1m": gen.curtain_level}
KERNELS = ("rope_gaps", "sample_vertices", "paint_band")


def probe(level: str, steps: int, repeats: int) -> None:
    """In this process: the level's painter jobs of one frame, replayed; prints "kernel ms" lines."""
    os.environ["ARCADE_HEADLESS"] = "1"
    import arcade
    from ropework.scene import Scene
    from ropework.systems.services import gfx, split
    from tests.drive import Hand
    win = arcade.Window(*SIZE, visible=False)
    ctx = win.ctx
    scene = Scene.load(level, size=SIZE, seed=1)
    hand = Hand(*SIZE)
    for f in range(steps):
        hand.apply(scene, f)
        scene.step()
    jobs = []
    real = split.run

    def keep(js):
        js = list(js)
        jobs.extend(j for j in js if getattr(j[0], "__name__", "") in KERNELS)
        real(js)
    split.run = keep
    gfx.STROKES = "cpu"
    off = ctx.framebuffer(color_attachments=[ctx.texture(SIZE, components=4)])
    with off.activate():
        scene.draw(ctx)
    split.run = real
    got = {k: [] for k in KERNELS}
    for _ in range(repeats):
        spent = dict.fromkeys(KERNELS, 0.0)
        for fn, args in jobs:
            t = time.thread_time()
            fn(*args)
            spent[fn.__name__] += time.thread_time() - t
        for k, v in spent.items():
            got[k].append(v)
    for k in KERNELS:
        print(f"{k} {1e3 * statistics.median(got[k]):.3f}")
    scene.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.painter", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="100k,1m", help="comma-separated: 100k, 1m")
    ap.add_argument("--steps", type=int, default=90, help="steps played before the frame is taken")
    ap.add_argument("--repeats", type=int, default=9, help="replays of the frame's jobs per probe")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--ab", metavar="PYTHON", help="alternate with this interpreter (another checkout's venv)")
    ap.add_argument("--probe", nargs=3, metavar=("LEVEL", "STEPS", "REPEATS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe:
        probe(args.probe[0], int(args.probe[1]), int(args.probe[2]))
        return 0
    pythons = [("this", sys.executable)] + ([("other", args.ab)] if args.ab else [])
    env = os.environ | {"ARCADE_HEADLESS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory(prefix="ropework-painter-") as tmp:
        for name in args.only.split(","):
            lvl = str(gen.write(Path(tmp) / f"{name}.toml", SCENES[name]()))
            got = {who: {k: [] for k in KERNELS} for who, _ in pythons}
            for rnd in range(args.rounds):
                for who, py in (pythons if rnd % 2 else pythons[::-1]):
                    r = subprocess.run([py, str(ROOT / "bench" / "painter.py"), "--probe", lvl, str(args.steps),
                                        str(args.repeats)], cwd=ROOT, env=env, capture_output=True, text=True,
                                       timeout=900)
                    if r.returncode != 0:
                        raise SystemExit(f"bench.painter: the probe of {name} failed:\n{r.stderr[-2000:]}")
                    for line in r.stdout.split("\n"):
                        parts = line.split()
                        if len(parts) == 2 and parts[0] in KERNELS:
                            got[who][parts[0]].append(float(parts[1]))
                    print(f"  {name} {who}: " + ", ".join(f"{k} {got[who][k][-1]:.2f}" for k in KERNELS)
                          + f" ms, load {os.getloadavg()[0]:.2f}", flush=True)
            for k in KERNELS:
                med = {who: statistics.median(got[who][k]) for who, _ in pythons}
                line = f"{name} {k}: median CPU a frame (one thread), this {med['this']:.2f} ms"
                if args.ab:
                    line += f", other {med['other']:.2f} ms, this / other {med['this'] / max(med['other'], 1e-9):.2f}"
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
