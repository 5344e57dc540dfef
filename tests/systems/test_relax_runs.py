"""Relaxing chains in SIMD lanes and the rest in level order gives bit for bit the plain sequential sweep.

`systems.relax` splits the constraints into runs that share no point, relaxes the
runs that are simple paths (ropes) side by side in SIMD lanes, and the others one
repair at a time in level order (for speed). The oracle here is the obvious loop —
every constraint in declared order, every pass, then every point clamped — compiled
with the same numba arithmetic, so any difference in order shows up as a differing bit.
"""
import math
import platform

import esper
import numba
import numpy as np
import pytest

from ropework.components import Bounds, Constraints, Points
from ropework.systems.relax import (
    IN_ORDER_POINTS,
    MIN_CHAINS,
    NARROW,
    WIDE,
    Relax,
    chain_heads,
    independent_runs,
    level_order,
    plan,
    relax,
    schedule,
    schedule_arrays,
    solve_split,
    unpack,
)
from ropework.systems.services import split


@numba.njit(cache=True)
def sequential(pos, inv_mass, a, b, rest, passes, lo, hi, share):
    """Every constraint in order: the error split by inverse mass, and a link with one end
    pinned giving its free end ``share`` of it (the error over (wi + wj) / share)."""
    n, d = pos.shape
    boxed = lo.shape[0] == d
    share = np.float32(share)
    for _ in range(passes):
        for c in range(a.shape[0]):
            i, j = a[c], b[c]
            wi, wj = inv_mass[i], inv_mass[j]
            w = wi + wj
            if (wi == 0.0) != (wj == 0.0):
                w = w / share
            if w == 0.0:
                continue
            dist2 = np.float32(0.0)      # float32 throughout, as the engine's repair
            for q in range(d):
                e = pos[j, q] - pos[i, q]
                dist2 += e * e
            dist = math.sqrt(dist2)
            if dist == 0.0:
                dist = np.float32(1e-4)
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
    """Rope point counts for a number of ropes that lands in every grouping case: less than
    MIN_CHAINS left over, a NARROW group, a WIDE group, several WIDE groups and a remainder."""
    k = int(rng.choice([1, MIN_CHAINS - 1, MIN_CHAINS, NARROW, NARROW + 1, WIDE, 2 * WIDE + 3,
                        3 * WIDE + MIN_CHAINS + 1, int(rng.integers(1, 4 * WIDE))]))
    return list(rng.integers(lo, hi, k))


def graph(rng, kind):
    """(n, a, b) for one family of constraint layouts."""
    if kind == "ropes":         # mixed lengths, from single links up
        return chains(rope_counts(rng, 2, 30), int(rng.integers(0, 4)))
    if kind == "even ropes":    # all one length, as the benchmark's
        return chains([int(rng.integers(2, 41))] * int(rng.integers(1, 3 * WIDE)))
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


SHARES = (0.5, 1.0, 0.75, 0.6)   # the seeds' half and whole, and values between whose divisions round


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [2, 3])
def test_same_bits_as_the_plain_sequential_sweep(kind, d):
    rng = np.random.default_rng([KINDS.index(kind), d])
    for t in range(25):
        share = SHARES[t % len(SHARES)]
        n, a, b = graph(rng, kind)
        pos, inv, rest = state(rng, n, len(a), d)
        passes = int(rng.integers(0, 9))
        box = rng.random() < 0.6
        lo = np.full(d if box else 0, 80, np.float32)
        hi = np.full(d if box else 0, 130, np.float32)
        want, got = pos.copy(), pos.copy()
        for _ in range(3):
            sequential(want, inv, a, b, rest, passes, lo, hi, share)
            relax(got, inv, a, b, rest, passes, lo, hi, share)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), (kind, n, len(a), passes, box, share)


@pytest.mark.parametrize("d", [1, 4])
def test_other_dimensions_take_the_level_order_only(d):
    rng = np.random.default_rng(d)
    for kind in ("ropes", "random"):
        n, a, b = graph(rng, kind)
        assert len(schedule_arrays(n, False, a, b)[0]) == 1     # no chain groups
        pos, inv, rest = state(rng, n, len(a), d)
        lo, hi = np.full(d, 80, np.float32), np.full(d, 130, np.float32)
        want, got = pos.copy(), pos.copy()
        sequential(want, inv, a, b, rest, 5, lo, hi, 0.5)
        relax(got, inv, a, b, rest, 5, lo, hi, 0.5)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32))


def test_runs_split_ropes_and_nothing_that_shares_a_point():
    n, a, b = chains([3, 1, 4, 2], spare=2)            # segments 0-1 | (none) | 2-4 | 5
    assert independent_runs(n, a, b).tolist() == [0, 2, 5, 6]
    a2 = np.append(a, np.int32(0))                     # a last link back to point 0 joins everything
    b2 = np.append(b, np.int32(9))
    assert independent_runs(n, a2, b2).tolist() == [0, 7]


def test_chains_are_simple_paths_in_declared_order():
    def heads(pairs, n=10):
        a, b = (np.array(v, np.int32) for v in zip(*pairs))
        return chain_heads(n, a, b, independent_runs(n, a, b)).tolist()
    assert heads([(0, 1), (1, 2), (2, 3)]) == [0]
    assert heads([(1, 0), (2, 1), (3, 2)]) == [0]          # declared end to start: still a chain
    assert heads([(3, 2), (2, 1), (1, 0)]) == [3]          # walked from the far end
    assert heads([(5, 7)]) == [5]
    assert heads([(0, 1), (1, 2), (2, 0)]) == [-1]         # a ring
    assert heads([(0, 1), (1, 2), (1, 3)]) == [-1]         # a branch
    assert heads([(0, 1), (2, 3), (1, 2)]) == [-1]         # every link of a path, out of order
    assert heads([(0, 1), (0, 1)]) == [-1]                 # a repeated link
    assert heads([(4, 4)]) == [-1]                         # a self-link


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


def test_a_plan_packs_the_schedule_whole():
    rng = np.random.default_rng(11)
    for kind in ("ropes and cloth", "random", "ropes"):
        n, a, b = graph(rng, kind)
        for got, want in zip(unpack(plan(n, True, a, b)), schedule_arrays(n, True, a, b)):
            assert got.shape == want.shape and (got == want).all()


def test_groups_fill_wide_then_narrow_and_leave_a_few_ropes_to_the_level_order():
    for ropes, widths, leftover in ((3 * WIDE + NARROW, [WIDE] * 3 + [NARROW], 0),
                                    (2 * WIDE + NARROW + 1, [WIDE] * 3, 0),
                                    (WIDE + MIN_CHAINS - 1, [WIDE], MIN_CHAINS - 1),
                                    (3, [], 3)):
        counts = [5 + r % 7 for r in range(ropes)]
        n, a, b = chains(counts)
        groups, cmap, pmap, order, free, loose = schedule_arrays(n, True, a, b)
        assert groups[:-1, 2].tolist() == widths
        cons, oa, ob = order
        assert (oa == a[cons]).all() and (ob == b[cons]).all()
        in_order = np.zeros(len(a), int)
        in_order[cons] = 1
        assert len(set(np.unique(cmap[cmap >= 0]).tolist()) | set(cons.tolist())) == len(a)
        assert (in_order[cmap[cmap >= 0]] == 0).all()                   # each constraint in one place
        assert len(cons) == sum(sorted(c - 1 for c in counts)[:leftover])   # the shortest ropes left over
        assert len(loose) == 0 and len(free) == len(np.unique(np.r_[oa, ob]))


@pytest.mark.parametrize("size", ["small", "large"])
@pytest.mark.parametrize("d", [2, 3])
def test_regular_groups_read_their_points_in_order_with_the_same_bits(d, size, monkeypatch):
    """A group with no padding whose ropes' points count up (each rope stored in order, as
    large scenes build them) is marked regular; a group of ropes stored backwards, or of
    unequal ropes (padding), is not. A body of `IN_ORDER_POINTS` or more (here: loose points
    make up the count) gathers lane by lane, regular groups without their slot map; a smaller
    one row by row. Every way, and split over two threads: the plain sweep's bits."""
    n1, a1, b1 = chains([10] * WIDE)                          # p_k = p_0 + k, no padding: regular
    back = (2 * n1 - 1 - np.arange(n1)).astype(np.int32)     # the same ropes, points numbered end to start
    a2, b2 = back[a1], back[b1]
    n3, a3, b3 = chains([11 + r % 5 for r in range(WIDE)])   # unequal lengths: padded lanes
    a = np.r_[a1, a2, a3 + 2 * n1].astype(np.int32)
    b = np.r_[b1, b2, b3 + 2 * n1].astype(np.int32)
    n = 2 * n1 + n3 + (IN_ORDER_POINTS if size == "large" else 0)
    groups = schedule_arrays(n, True, a, b)[0]
    assert groups[:-1, 2].tolist() == [WIDE] * 3 and groups[:-1, 3].tolist() == [1, 0, 0]
    monkeypatch.setattr(split, "PIECE_POINTS", 2 * WIDE * 12)   # a piece per group or two: both threads work
    rng = np.random.default_rng(d)
    for share in (0.5, 1.0, 0.75):
        pos, inv, rest = state(rng, n, len(a), d)
        lo, hi = np.full(d, 80, np.float32), np.full(d, 130, np.float32)
        want, got, two = pos.copy(), pos.copy(), pos.copy()
        before = split.calls
        con = Constraints(a=a, b=b, rest=rest, passes=6, share=share)
        schedule(con, (n, d))
        for _ in range(3):
            sequential(want, inv, a, b, rest, 6, lo, hi, share)
            relax(got, inv, a, b, rest, 6, lo, hi, share)
            solve_split(two, inv, rest, 6, lo, hi, con.schedule, share)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), share
        assert np.array_equal(want.view(np.uint32), two.view(np.uint32)), share
        assert split.calls - before == (3 if split.threads() > 1 else 0)


def test_schedule_is_cached_and_rebuilt_when_the_links_are_replaced():
    n, a, b = chains([6, 9, 4] * 12, spare=2)
    con = Constraints(a=a, b=b, rest=np.full(len(a), 5.0, np.float32), passes=4, share=0.5)
    first = schedule(con, (n, 2))
    assert schedule(con, (n, 2)) is first                               # same arrays: no rebuild
    assert schedule(con, (n + 1, 2)) is not first                       # more points: rebuilt
    keep = np.ones(len(a), bool)
    keep[[3, 40, 41]] = False                                           # tear three links, as the plugin does
    con.a, con.b, con.rest = con.a[keep], con.b[keep], con.rest[keep]
    torn = schedule(con, (n + 1, 2))
    groups, cmap, pmap, order, free, loose = unpack(torn)
    assert torn is not first and len(cmap[cmap >= 0]) + order.shape[1] == keep.sum()


def test_the_system_matches_the_plain_sweep_step_after_step_through_tearing():
    rng = np.random.default_rng(3)
    n, a, b = chains(list(rng.integers(2, 30, 70)), spare=3)
    ga, gb = grid(5, 4, at=n)
    a, b = np.r_[a, ga].astype(np.int32), np.r_[b, gb].astype(np.int32)
    pos, inv, rest = state(rng, n + 20, len(a), 2)
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=rest, passes=6, share=0.5)
    box = Bounds(lo=np.full(2, 70, np.float32), hi=np.full(2, 140, np.float32))
    esper.create_entity(pts, con, box)
    want = pos.copy()
    for step in range(12):
        if step in (4, 8):                                              # links break: new arrays
            keep = rng.random(len(con.a)) > 0.1
            con.a, con.b, con.rest = con.a[keep], con.b[keep], con.rest[keep]
        Relax().process(None)
        sequential(want, inv, con.a, con.b, con.rest, con.passes, box.lo, box.hi, con.share)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), step


@pytest.mark.parametrize("share", [0.5, 0.75])
def test_chain_groups_with_other_weights_are_relaxed_once_each_and_then_by_the_general_kernel(share):
    """Two WIDE groups: the first with weights 0 or 1 only, the second with a weight of 0.5 (or
    every group, when share is not 1/2 or 1). The first step's kernels leave the second group
    alone and say so; the system relaxes it with the general divisor, never the first one twice,
    and runs the general kernels from then on: the plain sweep's bits at every step."""
    n, a, b = chains([7] * (2 * WIDE), spare=1)
    rng = np.random.default_rng(4)
    pos = rng.normal(100, 30, (n, 2)).astype(np.float32)
    inv = np.ones(n, np.float32)
    inv[::7] = 0.0                                   # each rope's first point pinned
    inv[7 * WIDE + 3] = 0.5                          # one point of the second group
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=np.full(len(a), 5.0, np.float32), passes=5, share=share)
    box = Bounds(lo=np.full(2, 60, np.float32), hi=np.full(2, 140, np.float32))
    esper.create_entity(pts, con, box)
    schedule(con, pts.pos.shape)
    assert con.schedule.paths[:2] == (True, None) and con.schedule.paths[5] is None   # WIDE only, not general
    want = pos.copy()
    for step in range(3):
        Relax().process(None)
        sequential(want, inv, a, b, con.rest, con.passes, box.lo, box.hi, share)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), step
        assert con.schedule.paths[5] is True


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="reads x86 assembly")
def test_the_lane_loop_compiles_to_packed_square_roots_and_divisions():
    """The speed of the chain groups is SIMD: a change that stops LLVM vectorising the lane
    loop (a branch, an index it cannot prove non-negative, fastmath) must not pass silently.
    Compiled as every shipped level and workload runs it: weights 0 or 1, not the general divisor."""
    import re

    from ropework.systems import relax as relax_mod
    kernel = numba.njit(error_model="numpy")(relax_mod._chains_wide2.py_func)   # uncached: asm is readable
    n, a, b = chains([5] * WIDE)
    groups, cmap, pmap, *_ = schedule_arrays(n, True, a, b)
    pos, inv, rest = state(np.random.default_rng(0), n, len(a), 2)
    no = np.zeros(0, np.float32)
    kernel(pos, inv, rest, 1, no, no, 0.5, groups, cmap, pmap, False, *relax_mod.chain_scratch(groups))   # WIDE, 2-D
    asm = "\n".join(kernel.inspect_asm().values())
    assert re.search(r"\bv?sqrtps\s", asm) and re.search(r"\bv?divps\s", asm)
