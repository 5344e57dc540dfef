"""One thread against two for the rope step: where splitting a step pays, other core idle and busy.

    .venv/bin/python -m bench.threads                     # W1, W3, W4, W5 and sizes around the threshold
    .venv/bin/python -m bench.threads --busy              # the same with a busy loop on the other core
    .venv/bin/python -m bench.threads --workloads W4,W5 --rounds 15

For each size, the engine's two kernels on one world — `integrate` + `solve` (one thread,
what every scene below `split.PARALLEL_POINTS` runs) and `integrate_split` + `solve_split`
(two threads) — are timed in alternation, a batch of steps each, so both see the same
machine; the medians and their ratio are printed, with the process's CPU time per step (both
threads': on a busy machine the figure to read, wall clock being what the other programs leave)
and the 1-minute load average. The two
paths' positions are checked bit for bit after the run. `--busy` starts
``python -c 'while 1: pass'`` for the run (and stops it): a player's other core drawing, or
any other program. Run by hand, never as a test. `split.PARALLEL_POINTS` is read from here.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from bench.contenders import Engine  # noqa: E402
from bench.workloads import WORKLOADS, Workload  # noqa: E402
from ropework.systems import relax  # noqa: E402
from ropework.systems.integrate import _NO_EXTRA, integrate, integrate_split  # noqa: E402
from ropework.systems.services import split  # noqa: E402

BATCH_S = 0.05   # s of stepping per timed batch


def sizes(ids) -> list[Workload]:
    """The chosen workloads, plus W4-shaped scenes of 150,000, 250,000 and 500,000 points
    when "T" (around the threshold) is asked for."""
    out = [w for w in WORKLOADS if w.id in ids]
    if "T" in ids:
        out += [Workload(f"{n // 1000}k", f"{n // 40:,} × 40", (40,) * (n // 40), 8.0, 8, 30.0)
                for n in (150_000, 250_000, 500_000)]
    return sorted(out, key=lambda w: w.points)


def measure(w: Workload, rounds: int) -> tuple[float, float, bool]:
    e = Engine(w)
    e.step()
    pts, con, f, dt = e.points, e.constraints, e.forces, e.frame.dt
    box = None   # no box, as the system passes it
    start_pos, start_prev = pts.pos.copy(), pts.prev.copy()

    def one():
        integrate(pts.pos, pts.prev, pts.inv_mass, f.gravity, _NO_EXTRA, f.damping, dt)
        relax.schedule(con, pts.pos.shape)
        relax._run(con.schedule.calls, con.schedule.views[5], pts.pos, pts.inv_mass, con.rest, con.passes, box, box,
                   con.share)

    def two():
        integrate_split(pts.pos, pts.prev, pts.inv_mass, f.gravity, _NO_EXTRA, f.damping, dt)
        relax.solve_split(pts.pos, pts.inv_mass, con.rest, con.passes, box, box, con.schedule, con.share)

    same = True
    for fn in (one, two):   # warm both (the split path unpacks its schedule once), then bits
        fn()
    results = []
    for fn in (one, two):
        pts.pos[:], pts.prev[:] = start_pos, start_prev
        for _ in range(5):
            fn()
        results.append(pts.pos.copy())
    same = np.array_equal(results[0].view(np.uint32), results[1].view(np.uint32))
    t = time.perf_counter()
    one()
    batch = max(1, round(BATCH_S / (time.perf_counter() - t)))
    ms = {one: [], two: []}
    cpu = {one: [], two: []}
    for r in range(rounds):
        for fn in ((one, two) if r % 2 == 0 else (two, one)):
            t, c = time.perf_counter(), time.process_time()
            for _ in range(batch):
                fn()
            ms[fn].append((time.perf_counter() - t) / batch * 1e3)
            cpu[fn].append((time.process_time() - c) / batch * 1e3)
    e.close()
    return (statistics.median(ms[one]), statistics.median(ms[two]), same,
            statistics.median(cpu[one]), statistics.median(cpu[two]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.threads", description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", default="W1,W3,W4,T,W5", help="comma-separated; T adds 150k, 250k, 500k points")
    ap.add_argument("--rounds", type=int, default=11, help="alternating timed batches per path")
    ap.add_argument("--busy", action="store_true", help="keep the other core busy with a Python loop meanwhile")
    args = ap.parse_args(argv)
    ids = [s.strip().upper() for s in args.workloads.split(",") if s.strip()]
    hog = subprocess.Popen([sys.executable, "-c", "while 1: pass"]) if args.busy else None
    try:
        print(f"threads {split.threads()}, PARALLEL_POINTS {split.PARALLEL_POINTS:,}, "
              f"other core {'busy' if hog else 'idle'}")
        print("| size | points | one thread, ms | two threads, ms | two ÷ one | same bits | one, CPU ms | two, CPU ms "
              "| load (1 min) |")
        print("|---|---:|---:|---:|---:|:---:|---:|---:|---:|")
        for w in sizes(ids):
            a, b, same, ca, cb = measure(w, args.rounds)
            print(f"| {w.id} | {w.points:,} | {a:.4g} | {b:.4g} | {b / a:.2f} | {'yes' if same else 'NO'} "
                  f"| {ca:.4g} | {cb:.4g} | {os.getloadavg()[0]:.2f} |", flush=True)
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
