"""Toy workloads: ms per step of the toys at their target sizes, each busy.

    .venv/bin/python -m bench.toys [--write docs/performance.md]

- cloth 100 × 100 (10,000 points, 14 passes), dragged around by its middle;
- tendrils with the spark pool full (all 900 slots kept alive, a fast circular swipe);
- the dot grid at 5,184 dots (1920×1080, gap 20) and 100,000 dots (5000×2000, gap 10),
  with the pointer sweeping and clicking (bench/dotgrid.py's drive).
"Step" is `Scene.step(1)`: esper dispatch plus every system. Median of repeats
after a warm-up. Run by hand, never as a test.
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

os.environ.setdefault("ARCADE_HEADLESS", "1")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import dotgrid  # noqa: E402
from ropework.components.tendrils import Sparks  # noqa: E402
from ropework.scene import Scene  # noqa: E402

WARM = 60     # steps before timing: numba caches load, pools fill
REPS = 300    # timed steps per case


def timed(scene: Scene, drive, warm: int = WARM, reps: int = REPS) -> list[float]:
    for k in range(warm):
        drive(scene, k)
        scene.step(1)
    out = []
    for k in range(warm, warm + reps):
        drive(scene, k)
        t0 = time.perf_counter()
        scene.step(1)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def cloth_drive(scene: Scene, k: int) -> None:
    if k == 0:
        scene.pointer_down(scene.width / 2, 300)
    a = k * 0.05
    scene.pointer_move(scene.width / 2 + 300 * math.sin(a), 300 + 150 * math.sin(2 * a))


def swipe_drive(scene: Scene, k: int) -> None:
    a = k * 0.35                                   # ≈ 6,000 px/s around a 280 px circle: tips throw sparks
    scene.pointer_move(640 + 280 * math.cos(a), 360 + 200 * math.sin(a))
    for _, sparks in scene.find(Sparks):           # keep every slot alive (outside the timed step): a full pool
        sparks.life[sparks.life <= 0] = 1.0


def live_sparks(scene: Scene) -> int:
    return sum(int((s.life > 0).sum()) for _, s in scene.find(Sparks))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="DOC", help="replace the toys section of DOC (between toys markers)")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cloth = tmp / "cloth100.toml"
        cloth.write_text('[[layer]]\nkind = "cloth"\ncols = 100\nrows = 100\nspacing = 6\n')
        s = Scene.load(cloth, size=(1280, 720))
        rows.append(("cloth 100 × 100, dragged", f"{s.point_count:,} points", timed(s, cloth_drive)))
        s.close()
        s = Scene.load(ROOT / "levels" / "tendrils.toml", size=(1280, 720))
        ms = timed(s, swipe_drive, warm=400)
        rows.append(("tendrils, fast swipe", f"{s.point_count:,} points, {live_sparks(s)} live sparks", ms))
        s.close()
        for label, size, gap in dotgrid.CASES[1:3]:
            s = Scene.load(dotgrid.level(tmp, gap), size=size)
            rows.append((f"dot grid {label}", f"{dotgrid.dots(s):,} dots", timed(s, dotgrid.drive)))
            s.close()
    load = os.getloadavg()[0]
    lines = [f"Run: `python -m bench.toys` on {time.strftime('%Y-%m-%d')}; 1-minute load average {load:.2f}. "
             f"Median of {REPS} steps after {WARM} or more warm-up steps.", "",
             "| toy workload | size | ms per step, median [p10–p90] |", "|---|---|---:|"]
    for label, size, ms in rows:
        q = statistics.quantiles(ms, n=10)
        lines.append(f"| {label} | {size} | {statistics.median(ms):.3f} [{q[0]:.3f}–{q[-1]:.3f}] |")
    table = "\n".join(lines)
    print(table)
    if args.write:
        doc = Path(args.write)
        text = doc.read_text()
        begin, end = "<!-- toys:begin -->", "<!-- toys:end -->"
        block = f"{begin}\n{table}\n{end}"
        if begin in text:
            text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
        else:
            text = text.rstrip() + "\n\n## Toy workloads\n\n" + block + "\n"
        doc.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
