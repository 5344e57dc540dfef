"""CPU a frame in the real window for a fixed amount of work: the same frames, whatever the clock does.

    .venv/bin/python -m bench.window_work --only 100k --ab OTHER/.venv/bin/python --rounds 4
    .venv/bin/python -m bench.window_work --only 1m --frames 60 --display :44
    .venv/bin/python -m bench.window_work --only tendrils --ab OTHER/.venv/bin/python --rounds 6   # a shipped level

`bench.frames --window` plays a scene in real time, so a slower checkout also runs more catch-up
steps a frame (the clock keeps the physics real-time) and its CPU a frame mixes drawing with
stepping; on a loaded machine the FPS figures swing ±20 % run to run. Here each frame is exactly
one fixed step (ropework.testing.drive's scripted hand), the window's own `on_draw` with the F overlay,
and the buffer swap, in `PlayWindow` on Xvfb (software GL), so two checkouts do the same work and
the figure is the game process's CPU (utime + stime, every thread: Python, numba, the GL rasteriser) per
frame over the frames after the first 20, with the wall time beside it. A shipped level (its stem:
tendrils, lanyard, …) plays its gallery script instead of the hand, frame by frame (bench.frames's driver). With ``--ab`` the probes
alternate between this checkout and another interpreter's (its own ``ropework``), round after
round, and the ratio of medians is printed. Run by hand, never as a test.
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
SKIP = 20          # frames played before the timing starts (kernels load, buffers grow)
SCENES = {"100k": lambda: gen.rope_level(gen.BIG_ROPES, gen.BIG_POINTS), "1m": gen.curtain_level}


def _cpu() -> float:
    with open("/proc/self/stat") as f:
        x = f.read().rsplit(")", 1)[1].split()
    return (int(x[11]) + int(x[12])) / os.sysconf("SC_CLK_TCK")


def probe(level: str, frames: int) -> None:
    """In this process, on the display DISPLAY names: ``frames`` frames of the level; prints
    "CPU-ms-a-frame wall-ms-a-frame"."""
    from ropework.controller import Controller
    from ropework.scene import Scene
    from ropework.window import PlayWindow
    scene = Scene.load(level, size=SIZE)
    ctl = Controller(scene)
    win = PlayWindow(SIZE, ctl.title)
    win.start(ctl)
    ctl.toggle_stats()
    from bench.frames import driver  # after the window: importing bench.frames defaults ARCADE_HEADLESS on
    shipped = Path(level).parent == ROOT / "levels"
    drive = driver(scene, Path(level) if shipped else None)     # the gallery script, or ropework.testing.drive's hand
    c0 = t0 = 0.0
    for f in range(frames + SKIP):
        if f == SKIP:
            c0, t0 = _cpu(), time.perf_counter()
        win.dispatch_events()
        drive(f)
        scene.step(1)
        win.switch_to()
        win.on_draw()
        win.flip()
    c1, t1 = _cpu(), time.perf_counter()
    print(f"{1e3 * (c1 - c0) / frames:.2f} {1e3 * (t1 - t0) / frames:.2f}")
    win.close()
    ctl.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.window_work", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="100k", help="comma-separated: 100k, 1m, or a shipped level's stem")
    ap.add_argument("--frames", type=int, default=100, help="timed frames per probe")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ab", metavar="PYTHON", help="alternate with this interpreter (another checkout's venv)")
    ap.add_argument("--display", help="an X display to use (default: start a private Xvfb)")
    ap.add_argument("--probe", nargs=2, metavar=("LEVEL", "FRAMES"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.probe:
        probe(args.probe[0], int(args.probe[1]))
        return 0
    from bench.frames import _Xvfb
    xvfb = _Xvfb(args.display)
    env = {k: v for k, v in os.environ.items() if k != "ARCADE_HEADLESS"} | {"DISPLAY": xvfb.display,
                                                                         "PYTHONDONTWRITEBYTECODE": "1"}
    pythons = [("this", sys.executable)] + ([("other", args.ab)] if args.ab else [])
    try:
        with tempfile.TemporaryDirectory(prefix="ropework-work-") as tmp:
            for name in args.only.split(","):
                if name in SCENES:
                    d = Path(tmp) / name
                    d.mkdir()
                    lvl = str(gen.write(d / "generated.toml", SCENES[name]()))   # "generated": the hand drives it
                elif (ROOT / "levels" / f"{name}.toml").is_file():
                    lvl = str(ROOT / "levels" / f"{name}.toml")
                else:
                    raise SystemExit(f"bench.window_work: --only: {name!r} is neither 100k, 1m nor a shipped level")
                got: dict = {who: [] for who, _ in pythons}
                for rnd in range(args.rounds):
                    for who, py in (pythons if rnd % 2 else pythons[::-1]):
                        r = subprocess.run([py, str(ROOT / "bench" / "window_work.py"), "--probe", lvl, str(args.frames)],
                                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
                        if r.returncode != 0:
                            raise SystemExit(f"bench.window_work: the probe of {name} failed:\n{r.stderr[-2000:]}")
                        cpu, wall = (float(v) for v in r.stdout.split()[-2:])
                        got[who].append(cpu)
                        print(f"  {name} {who}: {cpu:.1f} ms CPU a frame, {wall:.1f} ms wall, load "
                              f"{os.getloadavg()[0]:.2f}", flush=True)
                med = {who: statistics.median(v) for who, v in got.items()}
                line = f"{name}: median CPU a frame, this {med['this']:.1f} ms"
                if args.ab:
                    line += f", other {med['other']:.1f} ms, this / other {med['this'] / med['other']:.2f}"
                print(line, flush=True)
    finally:
        xvfb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
