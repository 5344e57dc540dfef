"""The solve extras' costs, each against the same scene without them, in ONE process, interleaved.

    .venv/bin/python -m bench.extras                  # all three
    .venv/bin/python -m bench.extras --only pile      # or: shipped, sleep

- shipped: every shipped rope and cloth level's relax stage (the Relax processor alone), this
  checkout's against `--against`'s systems/relax.py (main by default) on the same scene, in
  alternating batches: the extras must cost a scene that has none of them nothing.
- pile: self-contact on a 10,000-point pile (50 ropes of 200 points heaped on the floor), relax
  stage time against the same pile without it.
- sleep: 100 resting ropes with `sleep` on, once asleep, against the same scene awake (`sleep` off).

Timed in thread CPU time; rows give medians and the median of the paired ratios (each pair saw
the same moment, the figure to read on a loaded machine) and the 1-minute load. By hand, never a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("ARCADE_HEADLESS", "1")

from bench.relax_ab import other_relax  # noqa: E402

ROUNDS = 31       # paired batches per row
BATCH = 20        # relax calls per batch
SIZE = (1280, 720)


def _timed(scene, proc, frame, n: int) -> float:
    with scene.active():
        t = time.thread_time()
        for _ in range(n):
            proc.process(frame)
        return (time.thread_time() - t) / n


def _frame(scene):
    return scene.frame


def _pair(a, b, rounds=ROUNDS, batch=BATCH):
    """(median a, median b, median of a/b pairs); a and b time one batch each (a callable → seconds)."""
    ta, tb, r = [], [], []
    for _ in range(rounds):
        x, y = a(batch), b(batch)
        ta.append(x)
        tb.append(y)
        r.append(x / y)
    return statistics.median(ta), statistics.median(tb), statistics.median(r)


def _write(text: str) -> str:
    f = tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False)
    f.write(text)
    f.close()
    return f.name


def shipped(against: str) -> None:
    from ropework.scene import Scene
    from ropework.systems.relax import Relax
    old = other_relax(against).Relax
    print(f"{'level':<14}{'this ms':>10}{against + ' ms':>12}{'ratio':>8}")
    for name in ("rope", "cloth", "tendrils", "lanyard", "moeru", "badge"):
        s = Scene.load(name, size=SIZE, seed=1)
        s.step(120)
        frame = _frame(s)
        new_p, old_p = Relax(), old()
        a, b, r = _pair(lambda n: _timed(s, new_p, frame, n), lambda n: _timed(s, old_p, frame, n))
        print(f"{name:<14}{a * 1e3:>10.4f}{b * 1e3:>12.4f}{r:>8.3f}")
        s.close()


def _scene_relax(text: str, settle: int):
    from ropework.scene import Scene
    from ropework.systems.relax import Relax
    s = Scene.load(_write(text), size=SIZE, seed=1)
    s.step(settle)
    return s, Relax(), _frame(s)


def _ropes(n_ropes: int, points: int, keys: str) -> str:
    return (f'[[layer]]\nkind = "ropes"\nsegment = 6\nfit = 100\nmin_points = 2\nrail = false\n{keys}'
            f'[[layer.rope]]\nanchor = 0.05\nevery = {0.9 / (n_ropes - 1):.6f}\ncount = {n_ropes}\npoints = {points}\n')


def pile() -> None:
    on, p_on, f_on = _scene_relax(_ropes(50, 200, "self_collide = true\nradius = 3\n"), 600)
    off, p_off, f_off = _scene_relax(_ropes(50, 200, ""), 600)
    a, b, r = _pair(lambda n: _timed(on, p_on, f_on, n), lambda n: _timed(off, p_off, f_off, n))
    print(f"pile 10,000 points: self-contact {a * 1e3:.3f} ms, without {b * 1e3:.3f} ms, ratio {r:.3f} (goal ≤ 2)")
    on.close()
    off.close()


def sleep() -> None:
    from ropework.components.solve import Extras
    asleep, p_a, f_a = _scene_relax(_ropes(100, 40, "sleep = true\n"), 0)
    for _ in range(6000):
        asleep.step()
        if asleep.find(Extras)[0][1].sleep.asleep:
            break
    awake, p_w, f_w = _scene_relax(_ropes(100, 40, ""), 600)
    assert asleep.find(Extras)[0][1].sleep.asleep, "the ropes never fell asleep"
    a, b, r = _pair(lambda n: _timed(asleep, p_a, f_a, n), lambda n: _timed(awake, p_w, f_w, n))
    print(f"100 ropes × 40 points: asleep {a * 1e3:.4f} ms, awake {b * 1e3:.4f} ms, ratio {r:.4f} (goal < 0.1)")
    asleep.close()
    awake.close()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("shipped", "pile", "sleep"))
    ap.add_argument("--against", default="main")
    args = ap.parse_args(argv)
    print(f"load {os.getloadavg()[0]:.2f}")
    if args.only in (None, "shipped"):
        shipped(args.against)
    if args.only in (None, "pile"):
        pile()
    if args.only in (None, "sleep"):
        sleep()
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
