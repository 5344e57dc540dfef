"""The host's yardstick: one fixed single-thread workload, so figures from different days can be compared.

    .venv/bin/python -m bench.host          # prints the yardstick, ms (median of 9)

The same code measured 2.2-2.3x more CPU a real-window frame on one day than on another
(docs/performance.md, "The machine moves"): the machine's speed moves between days by
more than most changes gain. Every benchmark header carries this figure beside the
machine's name, so a table can be scaled to another day's before it is compared. The
workload touches what a frame spends on: Python bytecode (a loop of arithmetic and calls),
numpy over a few MB (memory traffic) and float32 arithmetic; it allocates nothing in its
timed part and runs in about 40 ms.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

ROUNDS = 9          # timed repeats; the median is reported (the machine is noisy)
PY_LOOP = 200_000   # iterations of the bytecode part: ~15 ms on the host of docs/performance.md's tables
NP_SIZE = 1 << 20   # float32 values in the numpy part: 4 MB a buffer, past the L2 of this kind of CPU
NP_REPEAT = 20      # passes of the numpy part over its buffers


def _python_part(n: int) -> int:
    acc = 0
    for i in range(n):
        acc = (acc + i * 7) % 1_000_003
    return acc


def yardstick(rounds: int = ROUNDS) -> float:
    """Median ms of the fixed workload, one thread."""
    rng = np.random.default_rng(0)
    a = rng.random(NP_SIZE, dtype=np.float32)
    b = rng.random(NP_SIZE, dtype=np.float32)
    out = np.empty_like(a)
    times = []
    for _ in range(rounds + 1):                    # the first round is a warm-up
        t0 = time.perf_counter()
        _python_part(PY_LOOP)
        for _ in range(NP_REPEAT):
            np.multiply(a, b, out=out)
            np.add(out, a, out=out)
            np.sqrt(out, out=out)
        times.append(time.perf_counter() - t0)
    return 1000.0 * statistics.median(times[1:])


def label() -> str:
    """What benchmark headers print: ``host yardstick N ms`` (`python -m bench.host`)."""
    return f"host yardstick {yardstick():.1f} ms (`python -m bench.host`; lower is faster)"


if __name__ == "__main__":
    print(f"{yardstick():.1f} ms")
