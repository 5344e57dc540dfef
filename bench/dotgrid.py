"""Dot grid benchmark: ms per step at the seed's size, 5,184 and 100,000 dots, and whole-frame FPS.

    .venv/bin/python -m bench.dotgrid            # from the repository root (about half a minute)
    .venv/bin/python -m bench.dotgrid --quick    # fewer repeats
    .venv/bin/python -m bench.dotgrid --features # the dot-grid keys: jelly, look, presets, an idle (asleep) grid
    .venv/bin/python -m bench.dotgrid --compare ../main/systems/dotgrid/draw_dots.py
        # another draw_dots.py against this one: the 100k grid's frames drawn by each, interleaved in one
        # process (ms and CPU ms per draw, their ratio), and the largest pixel difference at the shipped levels

Every step runs with all three forces busy: the pointer sweeps a circle at
40 px per step (a half-strength swipe) and clicks every 20 steps, so about three
rings are alive at once. "step" is `Scene.step(1)` — esper dispatch plus every
system — timed alone; "frame" is a step plus drawing the whole scene into a
1280×720 offscreen framebuffer, with `ctx.finish()` inside the timing so the
software GL's work is counted (a scene bigger than that is drawn scaled down
into it). Medians over the timed repeats, after a warm-up.
Run by hand, never as a test: timings depend on whatever else the machine does.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")   # before anything imports arcade

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ropework.render import Offscreen, headless_window  # noqa: E402
from ropework.scene import Scene  # noqa: E402

FRAME = (1280, 720)   # px: the offscreen framebuffer every FPS figure is drawn into
SWEEP = 40.0          # px per step the pointer moves: a half-strength swipe (speed_trigger 80)
CLICK_EVERY = 20      # steps between clicks: ≈3 rings alive with the seed's 0.85 s life

# (label, scene size, gap): the seed's page, the full-HD grid, 100,000 dots in a big scene,
# and 100,000 dots packed into 1280×720 itself (3.04 px gap; 5 px dots overlap: the worst fill)
CASES = [
    ("seed page", (1280, 720), 50.0),
    ("full HD, gap 20", (1920, 1080), 20.0),
    ("100k dots", (5000, 2000), 10.0),
    ("100k in 1280×720", (1280, 720), 3.04),
]


# (label, extra level keys) for --features: each at the full-HD and the packed 100k grid
FEATURES = [
    ("seed", ""),
    ("jelly", 'tension = 0.3\nreturn_duration = 0.8\nbounce = 0.6\nrings = "travel"'),
    ("look", "swell = 0.6\nglow = 0.5\nstretch = 0.05"),
    ("jelly + look", 'tension = 0.3\nreturn_duration = 0.8\nrings = "travel"\nswell = 0.6\nglow = 0.5\nstretch = 0.05'),
    ("square + fade", 'shape = "square"\nfade = 120'),
]
FEATURE_CASES = [("full HD, gap 20", (1920, 1080), 20.0), ("100k in 1280×720", (1280, 720), 3.04)]


def level(tmp: Path, gap: float, keys: str = "", name: str = "") -> Path:
    path = tmp / f"dots-{gap:g}{name}.toml"
    path.write_text(f'theme = "dark"\n[[layer]]\nkind = "dotgrid"\ngap = {gap}\n{keys}\n')
    return path


def idle(scene: Scene, k: int) -> None:
    """No input at all: the grid falls asleep after its first step."""


def drive(scene: Scene, k: int) -> None:
    """Input for step k: the pointer on a circle, a click every CLICK_EVERY steps."""
    w, h = scene.width, scene.height
    r = 0.3 * min(w, h)
    a = k * SWEEP / r
    x, y = w / 2 + r * math.cos(a), h / 2 + r * math.sin(a)
    scene.pointer_move(x, y)
    if k % CLICK_EVERY == 0:
        scene.pointer_down(x, y)
    elif k % CLICK_EVERY == 1:
        scene.pointer_up(x, y)


def dots(scene: Scene) -> int:
    from ropework.components.dotgrid import DotGrid
    return sum(g.n for _, g in scene.find(DotGrid))


def time_steps(path: Path, size, warm: int, reps: int, hand=None) -> tuple[int, list[float]]:
    scene = Scene.load(path, size=size)
    hand = hand or drive
    try:
        out = []
        for k in range(warm + reps):
            hand(scene, k)
            t0 = time.perf_counter()
            scene.step(1)
            if k >= warm:
                out.append((time.perf_counter() - t0) * 1e3)
        return dots(scene), out
    finally:
        scene.close()


def time_frames(path: Path, size, ctx, warm: int, reps: int, hand=None) -> list[float]:
    """A step and a whole frame; a scene bigger than FRAME is drawn scaled down into it."""
    scene = Scene.load(path, size=size)
    off = Offscreen(ctx, FRAME)
    hand = hand or drive
    try:
        out = []
        for k in range(warm + reps):
            hand(scene, k)
            t0 = time.perf_counter()
            scene.step(1)
            off.render(scene)
            ctx.finish()
            if k >= warm:
                out.append((time.perf_counter() - t0) * 1e3)
        return out
    finally:
        scene.close()


def spread(ms: list[float], digits: int = 3) -> str:
    q = statistics.quantiles(ms, n=10)
    return f"{q[0]:.{digits}f}–{q[-1]:.{digits}f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--features", action="store_true", help="the dot-grid keys instead of the seed's sizes")
    ap.add_argument("--compare", metavar="DRAW_DOTS_PY", type=Path,
                    help="time and diff another systems/dotgrid/draw_dots.py (e.g. main's) against this tree's")
    args = ap.parse_args(argv)
    warm, steps, frames = (20, 100, 40) if args.quick else (60, 600, 200)
    ctx = headless_window(*FRAME).ctx
    print(f"dot grid, {os.cpu_count()} cores, GL: {ctx.info.RENDERER}")
    print(f"pointer sweeping {SWEEP:g} px/step, a click every {CLICK_EVERY} steps\n")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.features:
            return features(tmp, ctx, warm, steps, frames)
        if args.compare:
            return compare(tmp, ctx, args.compare, 3 if args.quick else 9)
        print(f"{'':<18}{'scene':>11}{'gap':>6}{'dots':>9}{'ms/step':>9}{'p10–p90':>13}"
              f"{'ms/frame':>10}{'p10–p90':>15}{'FPS':>7}")
        for label, size, gap in CASES:
            path = level(tmp, gap)
            n, steps_ms = time_steps(path, size, warm, steps)
            frames_ms = time_frames(path, size, ctx, warm // 2, frames)
            st, fr = statistics.median(steps_ms), statistics.median(frames_ms)
            print(f"{label:<18}{size[0]:>6}×{size[1]:<4}{gap:>6g}{n:>9,}{st:>9.3f}{spread(steps_ms):>13}"
                  f"{fr:>10.2f}{spread(frames_ms, 2):>15}{1e3 / fr:>7.0f}")
    return 0


def features(tmp: Path, ctx, warm: int, steps: int, frames: int) -> int:
    print(f"{'':<18}{'keys':<15}{'dots':>9}{'ms/step':>9}{'p10–p90':>13}{'ms/frame':>10}{'p10–p90':>15}{'FPS':>7}")
    for label, size, gap in FEATURE_CASES:
        rows = [(name, keys, None) for name, keys in FEATURES] + [("seed, idle", "", idle)]
        for i, (name, keys, hand) in enumerate(rows):
            path = level(tmp, gap, keys, f"-{i}")
            n, steps_ms = time_steps(path, size, warm, steps, hand)
            frames_ms = time_frames(path, size, ctx, warm // 2, frames, hand)
            st, fr = statistics.median(steps_ms), statistics.median(frames_ms)
            print(f"{label:<18}{name:<15}{n:>9,}{st:>9.3f}{spread(steps_ms):>13}"
                  f"{fr:>10.2f}{spread(frames_ms, 2):>15}{1e3 / fr:>7.0f}")
    return 0


COMPARE_LEVELS = ("dotgrid", "moeru", "jelly", "streaks", "pixels")   # the shipped levels with a dot grid


def compare(tmp: Path, ctx, other: Path, reps: int) -> int:
    """Draw the same scene states with `other`'s drawer (its DrawDots.draw and DotsGL) and this tree's,
    alternating (A/B, one process)."""
    import importlib.util
    import types

    import numpy as np

    from ropework.systems.dotgrid import draw_dots
    spec = importlib.util.spec_from_file_location("other_draw_dots", other)
    them = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(them)
    ours = draw_dots.DotsGL
    off = Offscreen(ctx, FRAME)

    def draw(scene, drawer, module, cls) -> tuple[float, float]:
        drawer._gl.clear()                 # GL state of the drawer under test only
        draw_dots.DotsGL = cls             # its GL class, and its `DrawDots.draw` (which picks GPU or splat)
        drawer.draw = types.MethodType(module.DrawDots.draw, drawer)
        off.render(scene)                  # builds its programs and uploads the layout: not timed
        ctx.finish()
        t0, c0 = time.perf_counter(), time.process_time()
        off.render(scene)
        ctx.finish()
        return (time.perf_counter() - t0) * 1e3, (time.process_time() - c0) * 1e3

    print(f"{other} (A) against this tree (B); 1-minute load {os.getloadavg()[0]:.1f}")
    print(f"{'':<34}{'A ms':>8}{'A cpu':>8}{'B ms':>8}{'B cpu':>8}{'A/B cpu':>9}{'max diff':>10}")
    try:
        cases = [(name, level(tmp, 3.04, keys, f"-c{i}")) for i, (name, keys) in enumerate(FEATURES)]
        cases += [(name, name) for name in COMPARE_LEVELS]
        for name, path in cases:
            scene = Scene.load(path, size=FRAME)
            drawer = next(d for d in scene.draws if hasattr(d, "_gl"))
            a, b, worst = [], [], 0
            try:
                for k in range(40):
                    drive(scene, k)
                    scene.step(1)
                for _ in range(reps):
                    a.append(draw(scene, drawer, them, them.DotsGL))
                    pa = off.pixels()[..., :3].astype(int)
                    b.append(draw(scene, drawer, draw_dots, ours))
                    worst = max(worst, int(np.abs(pa - off.pixels()[..., :3].astype(int)).max()))
            finally:
                draw_dots.DotsGL = ours
                del drawer.draw
                scene.close()
            am, bm = np.median(a, axis=0), np.median(b, axis=0)
            label = f"100k in 1280×720, {name}" if path != name else f"{name}.toml"
            print(f"{label:<34}{am[0]:>8.1f}{am[1]:>8.1f}{bm[0]:>8.1f}{bm[1]:>8.1f}{am[1] / bm[1]:>9.2f}{worst:>10}",
                  flush=True)
    finally:
        draw_dots.DotsGL = ours
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
