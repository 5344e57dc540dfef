"""100,000 rope points with 32 colliders of mixed shapes and friction, against the same scene
without them: relax's CPU time per step (the Relax processor alone), interleaved batches, medians.

    .venv/bin/python -m bench.colliders [--steps 20] [--rounds 5]

Run by hand, never as a test. The figure to read is the ratio (goal ≤ 1.5).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

SHAPES = ['shape = "circle"\nradius = 14', 'shape = "capsule"\nsize = [60, 0]\nradius = 6\nangle = 30',
          'shape = "box"\nsize = [50, 12]\nangle = -20', 'shape = "polygon"\npoints = [[-15, 10], [15, 10], [0, -16]]']


def level(colliders: bool) -> str:
    text = ('[[layer]]\nkind = "ropes"\nradius = 3.0\nmin_points = 40\nfit = 100.0\n'
            '[[layer.rope]]\nanchor = 0.0\npoints = 40\ncount = 2500\nevery = 0.0004\n')
    if colliders:
        for k in range(32):
            x, y = 0.05 + 0.9 * (k % 8) / 7, 0.3 + 0.15 * (k // 8)
            text += f'[[layer.collider]]\nat = [{x:.3f}, {y:.3f}]\nfriction = {0.2 + 0.1 * (k % 5):.1f}\n{SHAPES[k % 4]}\n'
    return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from ropework.scene import Scene
    from ropework.systems.relax import Relax
    scenes = {}
    with tempfile.TemporaryDirectory() as d:
        for on in (False, True):
            f = os.path.join(d, f"c{int(on)}.toml")
            open(f, "w").write(level(on))
            scenes[on] = Scene.load(f, size=(1280, 720), seed=1)
            scenes[on].step(30)
    times = {False: [], True: []}
    for _ in range(args.rounds):
        for on, s in scenes.items():
            relax = next(p for p in s.processors if isinstance(p, Relax))
            with s.active():
                t = time.thread_time()
                for _ in range(args.steps):
                    relax.process(s.frame)
                times[on].append((time.thread_time() - t) / args.steps * 1e3)
    off, on = statistics.median(times[False]), statistics.median(times[True])
    print(f"load {os.getloadavg()[0]:.2f}; relax ms/step, 100,000 points: without colliders {off:.2f}, "
          f"with 32 colliders {on:.2f}, ratio {on / off:.2f}")


if __name__ == "__main__":
    main()
