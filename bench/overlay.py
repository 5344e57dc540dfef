"""The F overlay's main-thread time a frame in the real window: this checkout's Overlay against another's.

    .venv/bin/python -m bench.overlay --against ../other            # a private Xvfb
    .venv/bin/python -m bench.overlay --against ../other --display :44 --frames 600

tendrils.toml plays its gallery script frame by frame in `PlayWindow` on Xvfb (software GL), the F overlay on;
after each frame's scene, both overlays (ours, and the other checkout's game/window.py `Overlay`, loaded as a
module beside ours) update and draw in turn, the order flipped every frame, each timed by the main thread's
CPU time (`time.thread_time`). The median is a steady frame; the mean includes the frames on which the
statistics' text changes (twice a second of wall time) and is laid out again. Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZE = (1280, 720)
SKIP = 20          # frames played before the timing starts


def run(args) -> None:
    from ropework.controller import Controller
    from ropework.scene import Scene
    from ropework.window import PlayWindow
    path = Path(args.against) / "game" / "window.py"
    if not path.is_file():
        raise SystemExit(f"bench.overlay: {path}: no such file (--against takes a checkout's root)")
    spec = importlib.util.spec_from_file_location("ropework._window_other", path)
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    level = ROOT / "levels" / "tendrils.toml"
    scene = Scene.load(str(level), size=SIZE)
    ctl = Controller(scene)
    win = PlayWindow(SIZE, ctl.title)
    win.start(ctl)
    ctl.toggle_stats()
    from bench.frames import driver  # after the window: importing bench.frames defaults ARCADE_HEADLESS on
    drive = driver(scene, level)
    overlays = {"this": win.overlay, "other": other.Overlay()}
    got: dict = {k: [] for k in overlays}
    for f in range(args.frames + SKIP):
        win.dispatch_events()
        drive(f)
        scene.step(1)
        win.switch_to()
        win.ctl.guard("draw", win._draw_scene)
        win.ctx.screen.use()
        for k in (("this", "other") if f % 2 else ("other", "this")):
            win.overlay = overlays[k]
            t0 = time.thread_time()
            win._draw_overlay()
            if f >= SKIP:
                got[k].append(time.thread_time() - t0)
        win.flip()
    win.overlay = overlays["this"]
    med = {k: 1e3 * statistics.median(v) for k, v in got.items()}
    mean = {k: 1e3 * statistics.mean(v) for k, v in got.items()}
    print(f"F overlay, main-thread ms a frame over {args.frames} frames (load {os.getloadavg()[0]:.2f}): "
          f"median this {med['this']:.3f}, other {med['other']:.3f} (this / other {med['this'] / med['other']:.2f}); "
          f"mean this {mean['this']:.3f}, other {mean['other']:.3f}")
    win.close()
    ctl.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.overlay", description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", required=True, metavar="CHECKOUT", help="another checkout's root")
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--display", help="an X display to use (default: start a private Xvfb)")
    args = ap.parse_args(argv)
    from bench.frames import _Xvfb
    xvfb = _Xvfb(args.display)
    os.environ.pop("ARCADE_HEADLESS", None)
    os.environ["DISPLAY"] = xvfb.display
    try:
        run(args)
    finally:
        xvfb.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
