"""The floor for W5 on this CPU: what the rope step's repairs cost at best, one thread and two.

    .venv/bin/python -m bench.floor               # about 10 s
    .venv/bin/python -m bench.floor --rounds 31

The target asks W5 (25,000 ropes × 40 points, 8 passes: 7.8 million repairs and a
million integrated points a step) for ≤ 8 ms on two cores. WORKLOADS.md measured the floor of
that work on the machine the goal was set on (7.2 ms one core, 3.8 ms two, from 0.93 / 0.49 ns
a repair). This measures the same floor here: the repair (one square root, one division) in
the layout the arithmetic likes best — every rope a SIMD lane, point j of every rope
contiguous, each segment one packed sweep across 256 ropes through scratch rows (no gather, no
schedule, no pin test, everything in cache) — in float32 (the engine's precision) and float64,
on one thread and on two threads with arrays of their own (kernels `nogil`; nothing shared).
It is not the engine and it leaves out integrate and memory traffic: a W5 step cannot take less
than W5's 7.8 million repairs at this rate. One thread is timed in its own CPU time (what the
arithmetic costs, whatever else runs), two in wall clock (what two cores give together, which
other programs take from). Medians over --rounds, the 1-minute load beside them. Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba  # noqa: E402
import numpy as np  # noqa: E402

ROPES, POINTS, PASSES = 25_000, 40, 8    # W5 (WORKLOADS.md)
SEG = 8.0                                # px: W5's segment length L
LANES = 256                              # ropes in the timed arrays: 256 × 40 points × 2 coordinates stay in L2


@numba.njit(nogil=True, error_model="numpy", cache=False)
def sweep(x, y, tx, ty, j, lo, hi, seg, half):
    """Repair segment j → j + 1 of ropes [lo, hi) in three vectorised loops (differences,
    factors, moves) through scratch rows, so LLVM sees no overlap and packs each loop."""
    for i in range(lo, hi):
        tx[i] = x[j + 1, i] - x[j, i]
        ty[i] = y[j + 1, i] - y[j, i]
    for i in range(lo, hi):
        dx = tx[i]
        dy = ty[i]
        d = np.sqrt(dx * dx + dy * dy)
        f = half * (d - seg) / d
        tx[i] = dx * f
        ty[i] = dy * f
    if half == 1.0:          # the pinned anchor's segment: all of the error to point 1
        for i in range(lo, hi):
            x[j + 1, i] -= tx[i]
            y[j + 1, i] -= ty[i]
    else:
        for i in range(lo, hi):
            x[j, i] += tx[i]
            y[j, i] += ty[i]
            x[j + 1, i] -= tx[i]
            y[j + 1, i] -= ty[i]


@numba.njit(nogil=True, error_model="numpy", cache=False)
def repairs(x, y, tx, ty, passes, seg, half):
    """`passes` sweeps of the unpinned repair over small in-cache arrays: the arithmetic alone."""
    for _ in range(passes):
        for j in range(x.shape[0] - 1):
            sweep(x, y, tx, ty, j, 0, x.shape[1], seg, half)


def world(ropes: int):
    """W5's initial state (WORKLOADS.md), [point, rope]."""
    dirs = np.array([(1.0, 0.0), (0.8, 0.6), (-0.6, 0.8), (0.6, -0.8)])
    r = np.arange(ropes)
    j = np.arange(POINTS)[:, None]
    c = dirs[r % 4]
    x = 40.0 + 30.0 * r[None, :] + c[None, :, 0] * j * SEG
    y = 60.0 + c[None, :, 1] * j * SEG
    return np.ascontiguousarray(x), np.ascontiguousarray(y), x.copy(), y.copy()


def median_ms(fn, rounds: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(rounds):
        t = clock()
        fn()
        times.append((clock() - t) * 1e3)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=21, help="timed repeats per figure (median)")
    args = ap.parse_args(argv)
    lines = []
    sweeps = 200
    count = sweeps * LANES * (POINTS - 1)        # repairs in one timed call
    for dtype in (np.float32, np.float64):
        seg, half = dtype(SEG), dtype(0.5)      # in the array's precision: no widening in the loop
        mine = [(a.astype(dtype), b.astype(dtype), np.empty(LANES, dtype), np.empty(LANES, dtype))
                for a, b, _, _ in (world(LANES), world(LANES))]   # one set of arrays per thread: nothing shared
        repairs(*mine[0], 1, seg, half)             # compile

        def two():
            t = threading.Thread(target=repairs, args=(*mine[1], sweeps, seg, half))
            t.start()
            repairs(*mine[0], sweeps, seg, half)
            t.join()
        one = median_ms(lambda: repairs(*mine[0], sweeps, seg, half), args.rounds, time.thread_time) * 1e6 / count
        both = median_ms(two, args.rounds) * 1e6 / (2 * count)
        lines.append((np.dtype(dtype).name, one, both))
    load = os.getloadavg()[0]
    w5 = ROPES * (POINTS - 1) * PASSES / 1e6   # millions of repairs in a W5 step
    print(f"cpu: {platform_name()}; numba {numba.__version__}; load {load:.2f}")
    for name, one, both in lines:
        print(f"{name}: one thread {one:.2f} ns of CPU a repair, two threads {both:.2f} ns of wall clock a repair "
              f"({one / both:.2f}x) -> W5's repairs alone: {one * w5:.1f} ms on one core, {both * w5:.1f} ms on two")
    print("goal 4's target: the whole W5 step (repairs, integrate, memory) in 8 ms on two cores")
    return 0


def platform_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
