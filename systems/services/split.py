"""Both cores for the largest scenes: independent pieces of one step run on two threads.

Every kernel is compiled ``nogil``, so two Python threads each calling one really run
at once. A system whose work falls into pieces that share no point (integrate: any
rows; relax: its chain groups, and the level-ordered rest) hands the pieces to `run`,
which calls them on this thread and on the pool's, and returns when all are done.
Each piece is the very kernel call the one-thread path makes on part of the data,
so the bits are the one-thread result's and nothing new is compiled — a scene that
splits costs no compile time a small scene does not already pay.

Below `PARALLEL_POINTS` nothing here runs: no thread is started, none waits, none
spins. The pool's threads block on a queue between steps (never a busy wait), and
pieces are handed out one at a time from a shared list rather than in two fixed
halves, so when the other core is busy with something else this thread simply does
more of them; the step then waits at worst for the one piece the other thread holds.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

# Points: a body splits its step across threads only from this size up. `python -m bench.threads`
# times one thread against two. On this 2-core KVM guest, two ÷ one: a forced split
# costs W1 (69 points) 1.5-1.9x and W3 (10,240) 1.03-1.05x; W4 (100,000) 0.67-0.78 with the other
# core idle (load 0.9-1.1) and 1.09 with it busy; W5 (1,000,000) 0.55-0.63 idle, 0.84 busy
# (runs at load 1-5 spread wider: W4 0.58-1.14). So the line sits at W4, far above every
# shipped level (cloth 1,536): below it a thread hand-off costs more than it saves.
PARALLEL_POINTS = 100_000
PIECE_POINTS = 65_536   # points per piece: small enough that a descheduled thread holds little back, large enough that the ~10 µs call per piece is lost in it
MAX_THREADS = 2         # threads that share a step (this one included): the machine's two cores

_pool: list = []        # [ThreadPoolExecutor], made on the first split
calls = 0               # how many times `run` split a step (tests read it: small scenes must leave it alone)


def threads() -> int:
    """Threads a split step uses: the CPUs this process may run on, at most `MAX_THREADS`."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(n, MAX_THREADS))


def pieces(total: int, at_most: int | None = None) -> list[tuple[int, int]]:
    """[start, stop) ranges splitting ``total`` items into near-equal parts of at most
    ``at_most`` (`PIECE_POINTS` by default)."""
    k = max(1, -(-total // (at_most or PIECE_POINTS)))
    cuts = [total * i // k for i in range(k + 1)]
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def run(jobs) -> None:
    """``fn(*args)`` for every ``(fn, args)`` of ``jobs``, spread over `threads` threads; the
    jobs must touch disjoint data. Returns when every job is done; an exception in one is
    raised here."""
    global calls
    jobs = list(jobs)
    n = threads()
    if n < 2 or len(jobs) < 2:
        for fn, args in jobs:
            fn(*args)
        return
    calls += 1
    if not _pool:
        _pool.append(ThreadPoolExecutor(max_workers=n - 1, thread_name_prefix="ropework-split"))
    left = iter(jobs)
    lock = threading.Lock()

    def drain():
        while True:
            with lock:
                job = next(left, None)
            if job is None:
                return
            job[0](*job[1])

    others = [_pool[0].submit(drain) for _ in range(n - 1)]
    try:
        drain()
    finally:
        for h in others:
            h.result()
