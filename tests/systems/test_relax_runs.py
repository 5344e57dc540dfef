"""Relaxing independent runs in lockstep gives bit for bit the plain sequential sweep.

`systems.relax.relax` splits the constraints into runs that share no point and relaxes
several at once (for speed). The oracle here is the obvious loop — every constraint in
declared order, every pass, then every point clamped — compiled with the same numba
arithmetic, so any difference in order shows up as a differing bit.
"""
import math

import numba
import numpy as np
import pytest

from systems.relax import INTERLEAVE, independent_runs, relax, run_spans


@numba.njit(cache=True)
def sequential(pos, inv_mass, a, b, rest, passes, lo, hi):
    n, d = pos.shape
    boxed = lo.shape[0] == d
    for _ in range(passes):
        for c in range(a.shape[0]):
            i, j = a[c], b[c]
            wi, wj = inv_mass[i], inv_mass[j]
            w = wi + wj
            if w == 0.0:
                continue
            dist2 = 0.0
            for q in range(d):
                e = pos[j, q] - pos[i, q]
                dist2 += e * e
            dist = math.sqrt(dist2)
            if dist == 0.0:
                dist = 1e-4
            f = (dist - rest[c]) / dist / w
            for q in range(d):
                e = (pos[j, q] - pos[i, q]) * f
                pos[i, q] += e * wi
                pos[j, q] -= e * wj
        if boxed:
            for p in range(n):
                if inv_mass[p] == 0.0:
                    continue
                for q in range(d):
                    if pos[p, q] < lo[q]:
                        pos[p, q] = lo[q]
                    if pos[p, q] > hi[q]:
                        pos[p, q] = hi[q]


def chains(counts, spare=0):
    """Ropes laid out one after another (plus `spare` points in no constraint)."""
    a = np.concatenate([np.arange(s, s + c - 1) for s, c in zip(np.cumsum([0, *counts[:-1]]), counts)])
    return int(sum(counts)) + spare, a.astype(np.int32), (a + 1).astype(np.int32)


def graph(rng, kind):
    """(n, a, b) for one family of constraint layouts."""
    if kind == "ropes":
        return chains(list(rng.integers(1, 30, rng.integers(1, 40))), int(rng.integers(0, 4)))
    if kind == "many ropes":    # more runs than one lockstep group
        return chains(list(rng.integers(2, 12, rng.integers(INTERLEAVE + 1, 40))), int(rng.integers(0, 4)))
    if kind == "mixed ropes":   # ropes on shuffled point indices: runs whose spans overlap
        n, a, b = chains(list(rng.integers(2, 12, rng.integers(INTERLEAVE + 1, 40))))
        perm = rng.permutation(n).astype(np.int32)
        return n, perm[a], perm[b]
    if kind == "reversed":      # some segments declared end to start
        n, a, b = chains(list(rng.integers(2, 20, rng.integers(1, 30))))
        flip = rng.random(len(a)) < 0.3
        return n, np.where(flip, b, a).astype(np.int32), np.where(flip, a, b).astype(np.int32)
    if kind == "grid":          # a cloth: one run
        cols, rows = (int(v) for v in rng.integers(2, 10, 2))
        idx = np.arange(cols * rows).reshape(rows, cols)
        a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
        b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
        return cols * rows, a.astype(np.int32), b.astype(np.int32)
    n, m = int(rng.integers(2, 60)), int(rng.integers(0, 120))   # anything at all, repeats and self-links
    return n, rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)


KINDS = ["ropes", "many ropes", "mixed ropes", "reversed", "grid", "random"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [2, 3])
def test_same_bits_as_the_plain_sequential_sweep(kind, d):
    rng = np.random.default_rng([KINDS.index(kind), d])
    for _ in range(25):
        n, a, b = graph(rng, kind)
        pos = (rng.normal(100, 30, (n, d))).astype(np.float32)
        if n > 1 and rng.random() < 0.3:
            pos[1] = pos[0]                          # coincident ends
        inv = np.where(rng.random(n) < 0.15, 0, 1).astype(np.float32)
        rest = rng.uniform(0.5, 20, len(a)).astype(np.float32)
        passes = int(rng.integers(0, 9))
        box = rng.random() < 0.6
        lo = np.full(d if box else 0, 80, np.float32)
        hi = np.full(d if box else 0, 130, np.float32)
        want, got = pos.copy(), pos.copy()
        for _ in range(3):
            sequential(want, inv, a, b, rest, passes, lo, hi)
            relax(got, inv, a, b, rest, passes, lo, hi)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), (kind, n, len(a), passes, box)


def test_runs_split_ropes_and_nothing_that_shares_a_point():
    n, a, b = chains([3, 1, 4, 2], spare=2)            # segments 0-1 | (none) | 2-4 | 5
    assert independent_runs(n, a, b).tolist() == [0, 2, 5, 6]
    a2 = np.append(a, np.int32(0))                     # a last link back to point 0 joins everything
    b2 = np.append(b, np.int32(9))
    assert independent_runs(n, a2, b2).tolist() == [0, 7]
    first, last, ordered = run_spans(independent_runs(n, a, b), a, b)
    assert first.tolist() == [0, 4, 8] and last.tolist() == [2, 7, 9] and ordered
