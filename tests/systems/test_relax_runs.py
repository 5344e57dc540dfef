"""Relaxing in level order gives bit for bit the plain sequential sweep.

`systems.relax` sorts the constraints by level (one more than the deepest earlier
constraint sharing a point) so that independent repairs overlap (for speed). The oracle
here is the obvious loop — every constraint in declared order, every pass, then every
point clamped — compiled with the same numba arithmetic, so any difference in order
shows up as a differing bit.
"""
import math

import esper
import numba
import numpy as np
import pytest

from components import Bounds, Constraints, Points
from systems.relax import Relax, level_order, relax


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


def grid(cols, rows, at=0):
    """A cloth's links (right, down) over points at .. at + cols·rows: one run, not a chain."""
    idx = np.arange(cols * rows).reshape(rows, cols) + at
    a = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    b = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return a.astype(np.int32), b.astype(np.int32)


def rope_counts(rng, lo, hi):
    """Point counts of a few to a hundred-odd ropes."""
    return list(rng.integers(lo, hi, int(rng.integers(1, 130))))


def graph(rng, kind):
    """(n, a, b) for one family of constraint layouts."""
    if kind == "ropes":         # mixed lengths, from single links up
        return chains(rope_counts(rng, 2, 30), int(rng.integers(0, 4)))
    if kind == "even ropes":    # all one length, as the benchmark's
        return chains([int(rng.integers(2, 41))] * int(rng.integers(1, 100)))
    if kind == "mixed ropes":   # ropes on shuffled point indices: chains whose points are all over memory
        n, a, b = chains(rope_counts(rng, 2, 12))
        perm = rng.permutation(n).astype(np.int32)
        return n, perm[a], perm[b]
    if kind == "reversed":      # some segments declared end to start
        n, a, b = chains(rope_counts(rng, 2, 20))
        flip = rng.random(len(a)) < 0.3
        return n, np.where(flip, b, a).astype(np.int32), np.where(flip, a, b).astype(np.int32)
    if kind == "grid":          # a cloth: one run
        a, b = grid(*(int(v) for v in rng.integers(2, 10, 2)))
        return int(max(a.max(), b.max())) + 1, a, b
    if kind == "ropes and cloth":   # chains, a cloth and loose points in one list, interleaved runs
        n, a, b = chains(rope_counts(rng, 2, 15), int(rng.integers(0, 4)))
        cols, rows = (int(v) for v in rng.integers(2, 7, 2))
        ga, gb = grid(cols, rows, at=n)
        cut = int(rng.integers(0, len(a) + 1))
        return (n + cols * rows, np.concatenate([a[:cut], ga, a[cut:]]).astype(np.int32),
                np.concatenate([b[:cut], gb, b[cut:]]).astype(np.int32))
    if kind == "loops":         # closed rings and repeated links: runs that look like chains but are not
        pairs, at = [], 0
        for c in rope_counts(rng, 2, 10):
            pairs += [(at + k, at + k + 1) for k in range(c - 1)]
            if rng.random() < 0.5:  # close the ring, or repeat the last link
                pairs.append((at + c - 1, at if rng.random() < 0.5 else at + c - 2))
            at += c
        a, b = (np.array(v, np.int32) for v in zip(*pairs))
        return at, a, b
    n, m = int(rng.integers(2, 60)), int(rng.integers(0, 120))   # anything at all, repeats and self-links
    return n, rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)


KINDS = ["ropes", "even ropes", "mixed ropes", "reversed", "grid", "ropes and cloth", "loops", "random"]


def state(rng, n, m, d):
    """Positions with coincident points and signed zeros, pins anywhere, inverse masses
    of 0/1 (the engine's) or any positive value, rest lengths."""
    pos = rng.normal(100, 30, (n, d)).astype(np.float32)
    if n > 1:
        dup = rng.random(n) < 0.1
        pos[dup] = pos[0]                           # coincident points
        pos[rng.random(n) < 0.05, 0] = -0.0         # a weightless repair must keep even a zero's sign
    inv = np.where(rng.random(n) < rng.choice([0.0, 0.15, 0.6]), 0, 1).astype(np.float32)
    if rng.random() < 0.3:
        inv *= rng.choice([0.5, 0.3, 2.0, 1.7], n).astype(np.float32)
    rest = rng.uniform(0.5, 20, m).astype(np.float32)
    return pos, inv, rest


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [2, 3])
def test_same_bits_as_the_plain_sequential_sweep(kind, d):
    rng = np.random.default_rng([KINDS.index(kind), d])
    for _ in range(25):
        n, a, b = graph(rng, kind)
        pos, inv, rest = state(rng, n, len(a), d)
        passes = int(rng.integers(0, 9))
        box = rng.random() < 0.6
        lo = np.full(d if box else 0, 80, np.float32)
        hi = np.full(d if box else 0, 130, np.float32)
        want, got = pos.copy(), pos.copy()
        for _ in range(3):
            sequential(want, inv, a, b, rest, passes, lo, hi)
            relax(got, inv, a, b, rest, passes, lo, hi)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), (kind, n, len(a), passes, box)


@pytest.mark.parametrize("d", [1, 4])
def test_other_dimensions(d):
    rng = np.random.default_rng(d)
    for kind in ("ropes", "random"):
        n, a, b = graph(rng, kind)
        pos, inv, rest = state(rng, n, len(a), d)
        lo, hi = np.full(d, 80, np.float32), np.full(d, 130, np.float32)
        want, got = pos.copy(), pos.copy()
        sequential(want, inv, a, b, rest, 5, lo, hi)
        relax(got, inv, a, b, rest, 5, lo, hi)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32))


def test_level_order_keeps_every_shared_point_in_declared_order():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n, a, b = graph(rng, "random")
        order = level_order(n, a, b, np.arange(len(a), dtype=np.int32))
        assert sorted(order.tolist()) == list(range(len(a)))
        rank = np.empty(len(a), int)
        rank[order] = np.arange(len(a))
        for c in range(len(a)):
            for e in range(c):
                if {a[c], b[c]} & {a[e], b[e]}:
                    assert rank[e] < rank[c]


def test_the_system_matches_the_plain_sweep_step_after_step_through_tearing():
    rng = np.random.default_rng(3)
    n, a, b = chains(list(rng.integers(2, 30, 70)), spare=3)
    ga, gb = grid(5, 4, at=n)
    a, b = np.r_[a, ga].astype(np.int32), np.r_[b, gb].astype(np.int32)
    pos, inv, rest = state(rng, n + 20, len(a), 2)
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=rest, passes=6)
    box = Bounds(lo=np.full(2, 70, np.float32), hi=np.full(2, 140, np.float32))
    esper.create_entity(pts, con, box)
    want = pos.copy()
    for step in range(12):
        if step in (4, 8):                                              # links break: new arrays
            keep = rng.random(len(con.a)) > 0.1
            con.a, con.b, con.rest = con.a[keep], con.b[keep], con.rest[keep]
        Relax().process(None)
        sequential(want, inv, con.a, con.b, con.rest, con.passes, box.lo, box.hi)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), step
