"""100,000 rope points with 32 colliders of mixed shapes and friction, against the same scene
without them: relax's CPU time per step (the Relax processor alone, every thread of the process),
timed inside real steps of both scenes run side by side in alternating batches, medians.

    .venv/bin/python -m bench.colliders [--batch 20] [--rounds 15]

Two rows: the curtain falling onto the shapes (its first 300 steps, 5 s) and hanging at rest
over them (steps 300 to 600). Relax is timed in the steps themselves, not called again and again
on one frozen state: contact's work follows each point's move this step (its broad-phase margin
and swept test), which repeated relax calls without the integrate step between would inflate.

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
FALL = 300     # steps: the curtain falls onto the shapes and comes to rest within them
REST = 300     # steps after it, hanging at rest


def level(colliders: bool) -> str:
    text = ('[[layer]]\nkind = "ropes"\nradius = 3.0\nmin_points = 40\nfit = 100.0\n'
            '[[layer.rope]]\nanchor = 0.0\npoints = 40\ncount = 2500\nevery = 0.0004\n')
    if colliders:
        for k in range(32):
            x, y = 0.05 + 0.9 * (k % 8) / 7, 0.3 + 0.15 * (k // 8)
            text += f'[[layer.collider]]\nat = [{x:.3f}, {y:.3f}]\nfriction = {0.2 + 0.1 * (k % 5):.1f}\n{SHAPES[k % 4]}\n'
    return text


def _timed_relax(scene) -> list:
    """Make the scene's Relax add its CPU time to the returned one-item list at each call."""
    from ropework.systems.relax import Relax
    relax = next(p for p in scene.processors if isinstance(p, Relax))
    spent = [0.0]
    inner = relax.process

    def process(frame):
        t = time.process_time()
        inner(frame)
        spent[0] += time.process_time() - t
    relax.process = process
    return spent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=15, help="paired batches per phase (at most its steps / batch)")
    args = ap.parse_args()
    from ropework.scene import Scene
    scenes, spent = {}, {}
    with tempfile.TemporaryDirectory() as d:
        for on in (False, True):
            f = os.path.join(d, f"c{int(on)}.toml")
            with open(f, "w") as out:
                out.write(level(on))
            scenes[on] = Scene.load(f, size=(1280, 720), seed=1)
            spent[on] = _timed_relax(scenes[on])
    print(f"load {os.getloadavg()[0]:.2f}; relax CPU ms/step, 100,000 points")
    for phase, steps in (("falling (steps 0-300)", FALL), ("at rest (steps 300-600)", REST)):
        times: dict = {False: [], True: []}
        ratios = []
        for _ in range(min(args.rounds, steps // args.batch)):
            for on, s in scenes.items():
                spent[on][0] = 0.0
                s.step(args.batch)
                times[on].append(spent[on][0] / args.batch * 1e3)
            ratios.append(times[True][-1] / times[False][-1])
        for on, s in scenes.items():             # the phase's steps not timed, so the next phase starts in step
            s.step(steps - len(times[on]) * args.batch)
        off, on = statistics.median(times[False]), statistics.median(times[True])
        print(f"  {phase}: without colliders {off:.2f}, with 32 colliders {on:.2f}, "
              f"ratio {statistics.median(ratios):.2f} (median of the paired batches)")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
