"""Relax: pull every distance constraint back toward its rest length, and clamp to bounds.

Reads: Constraints, Bounds (optional), Extras (optional). Writes: Points.pos, Constraints.schedule
(a cache); Ropes and RopeStyle when a rope breaks in two (`project.split_ropes`). A body with `Extras` (bending, compliance, attachments, contact, breaking, sleep) is
solved by `project` instead, with these same sweeps inside each of its passes.

Sequential Gauss–Seidel, as the seeds: constraints are repaired one after another
in their declared order, each moving its two ends by the error weighted by their
inverse mass — half each for two free points. When one end is pinned the free end
takes `Constraints.share` of the error: half in seeds 001 and 000 §04 (their loops
move each unpinned end by half and simply skip the pinned one), the whole of it in
seed 002 (the first segment gives point 1 the full correction). In the solver a
repair divides the error by D = wi + wj, or by (wi + wj) / share when one weight is
0, so share = 1 is the plain inverse-mass split. Fixing one pair disturbs its
neighbour, so the sweep repeats `passes` times; stiffness is an iteration count, and because only
positions move the solver cannot inject energy. Free points are clamped into the
bounds box in the same pass, so a rope pressed into the floor slides and buckles.

The loop runs compiled (numba) and gives the declared order's result bit for bit:
reordering for numpy (red/black, Jacobi) is softer at the same pass count — see
docs/performance.md. Each repair waits for the one before it, so a rope is one long
chain of dependent square roots and divisions; but two repairs that share no point
may run in either order, or at once, with the same bits. So:

- The constraints fall into independent runs that share no point (`independent_runs`).
  A run that is a simple path — a rope: repair k joins its points k and k + 1 — is a
  *chain*. Chains of similar length are relaxed WIDE (or NARROW) at a time, one per
  SIMD lane: their points are gathered once per step into a lane-major scratch
  (field f of point k of lane l at ``k * 6 * lanes + f * lanes + l``), every pass runs
  there branch-free — a lane with nothing to do selects its old bits back — and the
  points are scattered back once. float64 square roots and divisions are correctly
  rounded in SIMD too, so each lane's bits are the scalar loop's (never fastmath).
- A body of `IN_ORDER_POINTS` or more keeps its chain groups' rest lengths and divisors in
  lane layout between steps (`LaneCache`): they change only with the constraints, the
  weights or ``share``, and each step checks for exactly that (rest against a copy, bit for
  bit, so an edit in place is seen; the weights in the kernels).
- Everything else (a cloth, any other graph, a handful of ropes) is relaxed one
  repair at a time in *level order*: a repair's level is one more than the deepest
  earlier repair it shares a point with. Sorting by level keeps every pair that
  shares a point in declared order, and a level's repairs are independent, so the
  CPU overlaps their chains of dependent operations.

Finding the chains and levels is done once per constraint topology and cached on
`Constraints.schedule` (see `schedule`); replacing ``a`` or ``b`` rebuilds it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import esper
import numba
import numpy as np

from ropework.components import Bounds, Constraints, Forces, Points, Ropes, RopeStyle
from ropework.components.solve import Extras
from ropework.systems.services import (
    contact,  # noqa: F401  (declares the built-in colliders type)
    solver,
    split,
)
from ropework.systems.services.kernels import copy as _copy
from ropework.systems.services.kernels import kernel
from ropework.systems.services.kernels import select as _select
from ropework.systems.services.settle import wake_if_touched

WIDE = 32        # chains per SIMD group: four AVX-512 vectors per repair keep the divider busy while each waits on its square root
NARROW = 16      # width of a last group of at most this many chains (W2's 16 tendrils), so half its lanes are not idle
MIN_CHAINS = 8   # fewer chains than this left over go one repair at a time, interleaved: as fast, with no idle lanes
# Points: from this body size up (past the caches) the chain groups are gathered and scattered
# lane by lane, in memory order; below it row by row. Gather + scatter CPU time, row order ÷ lane
# order, ropes of 40 points, one thread, load 6: 25,000 points 0.91, 100,000 0.97, 250,000 1.24,
# 1,000,000 1.9 (`bench.threads` times the whole step).
IN_ORDER_POINTS = 150_000
GROUP_COLUMNS = 4  # per chain group in a plan: first repair slot, first point slot, lanes, regular (`regular`)
FIELDS = 6       # float32 fields per point slot in the lane scratch: x, y, z, inverse mass, and repair k's divisor D, rest
OFF_ONE = 2 * WIDE  # points weighing other than 1 a chain group's cached divisors are checked against (padding
                    # slots are none): a pinned head per lane and as many more (grabs, pins along a rope); past
                    # it the group makes them every step
COINCIDENT = 1e-4  # scene units: the distance taken for coincident ends, so any direction will do and nothing divides by 0
_NO_BOX = np.zeros(0, np.float32)


@numba.njit(inline="always")
def divisor(wi, wj, share):
    """D, the error's divisor for a repair of weights wi, wj (float32): wi + wj, or
    (wi + wj) / share when exactly one end is pinned. Then end i moves error·wi/D."""
    w = wi + wj
    if (wi == 0.0) != (wj == 0.0):   # a branch, not a select: most repairs skip the division
        w = w / share
    return w


def independent_runs(n, a, b):
    """int32[k + 1]: run r is constraints ``runs[r]:runs[r + 1]``; no point of a run is
    touched by any other run. Runs are contiguous in the declared order; a rope is one."""
    c = np.arange(len(a), dtype=np.int32)
    last = np.full(n, -1, np.int32)   # last constraint touching each point
    np.maximum.at(last, a, c)
    np.maximum.at(last, b, c)
    if len(a) == 0:
        return np.zeros(1, np.int32)
    reach = np.maximum.accumulate(np.maximum(last[a], last[b]))   # furthest constraint sharing a point so far
    return np.r_[0, np.flatnonzero(reach == c) + 1].astype(np.int32)


def _walks(n, a, b, runs):
    """(head int32[runs], after int32[m]): each run's first point p_0 if it is a simple path —
    repair k joins points p_k and p_k+1 (either way round), all distinct — else -1; and for
    each repair k of a path, p_k+1. A path's p_k (k ≥ 1) is the one point repairs k - 1 and k
    share, p_0 and p_K the other ends; a run is a path exactly when that sequence fits."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    m, nr = len(a), len(runs) - 1
    length = np.diff(runs)
    run_of = np.repeat(np.arange(nr), length)
    first = np.zeros(m, bool)
    first[runs[:-1][length > 0]] = True
    last = np.r_[first[1:], True]
    ap, bp = np.r_[-1, a[:-1]], np.r_[-1, b[:-1]]
    shared = np.where((a == ap) | (a == bp), a, np.where((b == ap) | (b == bp), b, -1))
    nxt = np.r_[shared[1:], -1]                                  # p_k+1 as repair k + 1 shares it
    here = np.where(first, np.where(~last & (a == nxt), b, a), shared)   # p_k
    after = np.where(last, np.where(a == here, b, a), nxt)       # p_k+1
    ok = (((a == here) & (b == after)) | ((b == here) & (a == after))) & (here != after)
    bad = np.bincount(run_of[~ok], minlength=nr) > 0
    fits = ~bad[run_of]                                          # repairs of runs whose sequence fits: points ≥ 0
    pts = np.r_[here[first & fits], after[fits]]                # their points, each once? (runs share none)
    owner = np.r_[run_of[first & fits], run_of[fits]]
    bad |= np.bincount(owner[np.bincount(pts, minlength=n)[pts] > 1], minlength=nr) > 0
    head = np.full(nr, -1, np.int32)
    good = ~bad & (length > 0)
    head[good] = here[runs[:-1][good]]
    return head, after.astype(np.int32)


def chain_heads(n, a, b, runs):
    """int32[runs]: each run's first point if it is a simple path — repair k joins points
    p_k and p_k+1 (either way round), all distinct — else -1."""
    return _walks(n, a, b, runs)[0]


@kernel()
def _level_order(a, b, cons, at, level, start, order):
    """`level_order` into numpy's arrays (at: int32[n], level and order: int32[m], start:
    int32[m + 2], all scratch but order): no allocation in the kernel, so a first run compiles
    none of numba's array-making code for it."""
    m = cons.shape[0]
    for p in range(at.shape[0]):
        at[p] = 0
    top = 0
    for t in range(m):
        c = cons[t]
        la = at[a[c]]
        lb = at[b[c]]
        v = (la if la > lb else lb) + 1
        level[t] = v
        at[a[c]] = v
        at[b[c]] = v
        top = v if v > top else top
    for v in range(top + 2):
        start[v] = 0
    for t in range(m):
        start[level[t] + 1] += 1
    for v in range(top + 1):
        start[v + 1] += start[v]
    for t in range(m):
        order[start[level[t]]] = cons[t]
        start[level[t]] += 1


def level_order(n, a, b, cons):
    """The constraints ``cons`` (in declared order) sorted stably by level: a repair's level
    is one more than the deepest earlier repair sharing a point with it."""
    m = len(cons)
    order = np.empty(m, np.int32)
    _level_order(a, b, cons, np.empty(n, np.int32), np.empty(m, np.int32), np.empty(m + 2, np.int32), order)
    return order


def schedule_arrays(n, lanes, a, b):
    """The solve order of constraints (a, b) over n points, as the arrays `solve` takes:

    - groups int32[G + 1, 4]: group g of chains has ``groups[g, 2]`` lanes (WIDE or
      NARROW) and K_g = (``groups[g + 1, 0] - groups[g, 0]``) / lanes repairs per lane;
      its repair slots are cmap[groups[g, 0]:groups[g + 1, 0]] (constraint of repair k of
      lane l at k * lanes + l; -1 pads a shorter chain) and its K_g + 1 point slots
      pmap[groups[g, 1]:groups[g + 1, 1]] (point per slot, -1 pads). ``groups[g, 3]`` is 1
      when the group is *regular*: no padding, and each lane's points and constraints are
      consecutive (p_k = p_0 + k, c_k = c_0 + k: ropes stored one after another, as every
      large scene builds them), so the kernels read them from their first row, in memory
      order (`regular`). Only if ``lanes``.
    - order int32[3, m']: every other constraint in level order (row 0), with its two
      points (rows 1, 2: read straight, not through the constraint index).
    - free: the points those touch (clamped after each pass); loose: points in no constraint.

    numpy, not numba, but for the one sequential part (`level_order`): this runs once per
    topology, and compiled it was most of a first run's compile.
    """
    a, b = np.asarray(a, np.int32), np.asarray(b, np.int32)
    runs = independent_runs(n, a, b)
    nr = len(runs) - 1
    length = np.diff(runs)
    if lanes:
        head, after = _walks(n, a, b, runs)
    else:
        head, after = np.full(nr, -1, np.int32), np.zeros(len(a), np.int32)
    chains = np.flatnonzero(head >= 0)
    chains = chains[np.argsort(length[chains], kind="stable")]
    left = len(chains) % WIDE
    if left < MIN_CHAINS:             # too few for a group: the shortest go in level order
        head[chains[:left]] = -1
        chains = chains[left:]
    nc = len(chains)
    widths = [WIDE] * (nc // WIDE) + ([NARROW if nc % WIDE <= NARROW else WIDE] if nc % WIDE else [])
    ng = len(widths)
    groups = np.zeros((ng + 1, GROUP_COLUMNS), np.int32)
    groups[:ng, 2] = widths
    ends = np.cumsum(widths, dtype=np.int64)
    k = length[chains[np.minimum(ends, nc) - 1]].astype(np.int64)   # a group's longest chain
    groups[1:, 0] = np.cumsum(k * groups[:ng, 2])
    groups[1:, 1] = np.cumsum((k + 1) * groups[:ng, 2])
    cmap = np.full(groups[ng, 0], -1, np.int32)
    pmap = np.full(groups[ng, 1], -1, np.int32)
    g = np.minimum(np.arange(nc) // WIDE, ng - 1)           # each chain's group (all WIDE but the last) and lane
    lane = np.arange(nc) - g * WIDE
    w = groups[g, 2].astype(np.int64)
    pmap[groups[g, 1] + lane] = head[chains]
    reps = length[chains]
    c = np.repeat(runs[chains], reps) + (np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps))
    kk = c - np.repeat(runs[chains], reps)                   # repair k of its chain
    gc, lc, wc = np.repeat(groups[g, 0], reps), np.repeat(lane, reps), np.repeat(w, reps)
    cmap[gc + kk * wc + lc] = c
    pmap[np.repeat(groups[g, 1], reps) + (kk + 1) * wc + lc] = after[c]
    groups[:ng, 3] = regular(groups, cmap, pmap)
    role = np.zeros(n, np.int8)       # 1: in a chain, 2: in another constraint
    role[pmap[pmap >= 0]] = 1
    cons = np.flatnonzero(np.repeat(head < 0, length)).astype(np.int32)
    role[a[cons]] = 2
    role[b[cons]] = 2
    if len(cons):                     # a scene of chains alone never compiles level_order
        cons = level_order(n, a, b, cons)
    order = np.stack([cons, a[cons], b[cons]]).astype(np.int32)
    return (groups, cmap, pmap, order, np.flatnonzero(role == 2).astype(np.int32),
            np.flatnonzero(role == 0).astype(np.int32))


def regular(groups, cmap, pmap) -> np.ndarray:
    """int32[G]: 1 for each chain group with no padding whose every lane's point slots and
    repair slots count up by one (p_k = p_0 + k, c_k = c_0 + k), else 0. Such a group's
    gather and scatter walk memory in order, one lane's run after another, with no slot map
    read and no padding test: the same values moved, so the same bits."""
    out = np.zeros(len(groups) - 1, np.int32)
    for g in range(len(groups) - 1):
        w = int(groups[g, 2])
        pm = pmap[groups[g, 1]:groups[g + 1, 1]].reshape(-1, w).astype(np.int64)
        cm = cmap[groups[g, 0]:groups[g + 1, 0]].reshape(-1, w).astype(np.int64)
        out[g] = bool((pm[0] >= 0).all() and (cm[0] >= 0).all()
                      and (pm == pm[0] + np.arange(len(pm))[:, None]).all()
                      and (cm == cm[0] + np.arange(len(cm))[:, None]).all())
    return out


def plan(n, lanes, a, b):
    """`schedule_arrays` packed into one int32 array — numba unboxes one array argument
    faster than six: a header of six sizes (groups, cmap, pmap, order's columns, free,
    loose), then each array's values in that order."""
    groups, cmap, pmap, order, free, loose = schedule_arrays(n, lanes, a, b)
    sizes = np.array([len(groups), len(cmap), len(pmap), order.shape[1], len(free), len(loose)], np.int32)
    return np.concatenate([sizes, groups.ravel(), cmap, pmap, order.ravel(), free, loose]).astype(np.int32)


def unpack(packed):
    """The `schedule_arrays` tuple of a `plan`, as numpy views into it (groups [G + 1, 4], order
    [3, m]), as the kernels take them: made once per topology (`Schedule.views`), so no kernel
    unpacks or reshapes (numba's reshape code would compile into every first run)."""
    ng1, nc, npm, m, nf = (int(v) for v in packed[:5])
    at = 6
    groups = packed[at:at + GROUP_COLUMNS * ng1].reshape(ng1, GROUP_COLUMNS)
    at += GROUP_COLUMNS * ng1
    cmap = packed[at:at + nc]
    at += nc
    pmap = packed[at:at + npm]
    at += npm
    order = packed[at:at + 3 * m].reshape(3, m)
    at += 3 * m
    return groups, cmap, pmap, order, packed[at:at + nf], packed[at + nf:]


@dataclass
class Schedule:
    """The `plan` for one pair of (a, b) arrays of m constraints over n points of d dimensions."""

    a: np.ndarray
    b: np.ndarray
    n: int
    d: int
    m: int
    plan: np.ndarray
    paths: tuple     # `paths(plan, d)`: the solver's flags for this plan
    views: tuple     # `unpack(plan)`
    calls: tuple     # `_calls(views, paths, big(n))`: the kernels a step runs (`Calls`, with a big body's LaneCache)
    parts: list | None = None    # the chain groups' pieces for `solve_split`, made by it
    lanes: list | None = None    # each piece's `chain_scratch`, made by `solve_split`
    owner: np.ndarray | None = None   # int32[n]: each point's chain group, -1 none; made by `solve_near`
    others: np.ndarray | None = None  # int32: the points in no chain group; made by `project` for contacts in the lanes
    scratch: tuple | None = None      # `chain_scratch(views[0])` for `solve_near`, made by it


def paths(packed: np.ndarray, d: int) -> tuple:
    """`solve`'s last six arguments for a `plan` over d-dimensional points: (wide, narrow,
    three, level2, leveld, general), each True where the plan has WIDE groups, NARROW groups,
    3-D chains, level-order repairs over 2-D points, over points of any other d, else None;
    general (the chains' division by any divisor, `_chains_kernel`) None until a step needs it.
    They pick the kernels a step calls (`_calls`), so a scene compiles only the paths its
    constraints run (a rope scene never the lane loops, a 2-D scene never the 3-D ones)."""
    ng = int(packed[0]) - 1
    widths = {int(w) for w in packed[6 + 2:6 + GROUP_COLUMNS * ng:GROUP_COLUMNS]}
    on = lambda flag: True if flag else None   # noqa: E731
    levels = int(packed[3]) > 0
    return (on(WIDE in widths), on(NARROW in widths), on(ng > 0 and d == 3), on(levels and d == 2),
            on(levels and d != 2), None)


def box(lo, hi, d: int) -> tuple:
    """(lo, hi) when they bound d dimensions, else (None, None): the kernels compile the clamps
    only for a box (a None prunes them), and one scene always passes the same kind."""
    return (lo, hi) if lo is not None and lo.shape[0] == d else (None, None)


def schedule(con: Constraints, shape) -> np.ndarray:
    """The cached `plan` for ``con`` over points of ``shape`` (n, d); rebuilt when
    ``con.a`` or ``con.b`` is replaced (tearing), resized, or the points change shape.
    Editing a or b in place is not noticed: replace the arrays. Its `paths` are on
    ``con.schedule.paths``."""
    n, d = shape
    s = con.schedule
    if s is None or s.a is not con.a or s.b is not con.b or (s.n, s.d, s.m) != (n, d, len(con.a)):
        packed = plan(n, d == 2 or d == 3, con.a, con.b)
        flags, views = paths(packed, d), unpack(packed)
        s = con.schedule = Schedule(con.a, con.b, n, d, len(con.a), packed, flags, views, _calls(views, flags, big(n)))
    return s.plan


@numba.njit(inline="always", error_model="numpy")
def _repair_lanes(s, o, lanes, three, halves, live_all, row, wf, r, ro, dv, do):
    """Repair k of ``lanes`` chains at once, with the sequential loop's operations in its
    order, lane by lane: its ends are point slots k and k + 1 of the lane scratch (``o`` = k ·
    ``row``, ``row`` floats per slot row, the weights at field ``wf``), its rest lengths
    r[ro:ro + lanes] and divisors dv[do:do + lanes] — in the scratch itself for the row-order
    kernels, in the body's `LaneCache` for the `_big` ones. A lane whose repair has no weight
    (padding, or both ends pinned: D = 0) selects its old bits back — unless ``live_all``
    says no lane of this row is such: then the stores are plain. A select of a value just
    loaded from the same address becomes a masked store (vmaskmovps), which on this AMD
    CPU is slow and breaks store-to-load forwarding into the next repair's loads."""
    for lane in range(lanes):
        t = o + lane
        u = t + row                   # point k + 1
        xi = s[t]
        xj = s[u]
        yi = s[lanes + t]
        yj = s[lanes + u]
        ex = xj - xi
        ey = yj - yi
        dist2 = np.float32(0.0)
        dist2 += ex * ex
        dist2 += ey * ey
        zi = zj = ez = np.float32(0.0)
        if three:
            zi = s[2 * lanes + t]
            zj = s[2 * lanes + u]
            ez = zj - zi
            dist2 += ez * ez
        dist = math.sqrt(dist2)
        dist = _select(dist == 0.0, np.float32(COINCIDENT), dist)
        wi = s[wf * lanes + t]
        wj = s[wf * lanes + u]
        w = dv[do + lane]
        if halves:   # D is 0, 1 or 2: dividing by it is multiplying by 1 or 0.5, to the bit
            f = (dist - r[ro + lane]) / dist * _select(w == 2.0, np.float32(0.5), np.float32(1.0))
        else:
            f = (dist - r[ro + lane]) / dist / w
        live = live_all or w != 0.0
        e = ex * f
        s[t] = _select(live, np.float32(xi + e * wi), xi)
        s[u] = _select(live, np.float32(xj - e * wj), xj)
        e = ey * f
        s[lanes + t] = _select(live, np.float32(yi + e * wi), yi)
        s[lanes + u] = _select(live, np.float32(yj - e * wj), yj)
        if three:
            e = ez * f
            s[2 * lanes + t] = _select(live, np.float32(zi + e * wi), zi)
            s[2 * lanes + u] = _select(live, np.float32(zj - e * wj), zj)


@numba.njit(inline="always", error_model="numpy")
def _clamp_lanes(s, q, lo, hi, rows, lanes, row, wf):
    """Clamp coordinate q of the free point slots of ``rows`` rows into [lo, hi] (``row``
    floats per slot row, the weights at field ``wf``)."""
    for k in range(rows):
        for lane in range(lanes):
            t = k * row + lane
            x = s[q * lanes + t]
            y = _select(x < lo, lo, x)
            y = _select(y > hi, hi, y)
            s[q * lanes + t] = _select(s[wf * lanes + t] != 0.0, y, x)


@numba.njit(inline="always", error_model="numpy")
def _divisor_row(s, t, lanes, row, wf, cm, k, padded, share, out, o):
    """Repair row k's divisors (`divisor`, branch-free so the lanes vectorise) into
    out[o:o + lanes], from the weights of point slot rows k (at s[wf·lanes + t], t = k · row)
    and k + 1; a padding repair (cm < 0, looked at when ``padded``) gets D = 0. Returns how
    many ends weigh other than 0 and 1, and whether no lane's D is 0."""
    odd = 0
    live = True
    for lane in range(lanes):
        wi = s[wf * lanes + t + lane]
        wj = s[wf * lanes + t + lane + row]
        odd += ((wi != 0.0) & (wi != 1.0)) | ((wj != 0.0) & (wj != 1.0))
        w = wi + wj
        w = _select((wi == 0.0) != (wj == 0.0), w / share, w)
        if padded:
            w = _select(cm[k * lanes + lane] >= 0, w, np.float32(0.0))
        out[o + lane] = w
        live &= w != 0.0
    return odd, live


@numba.njit(inline="always")
def _gather_slot(s, pos, inv_mass, pm, k, lane, lanes, three, straight, p0, row, wf):
    """Point slot k of ``lane`` into the lane scratch: its coordinates and weight. A padding
    slot (-1) reads point 0 and weighs nothing; ``straight`` (a regular group) reads no slot:
    the point is p0 + k, p0 the lane's first (loaded once by the caller: LLVM cannot hoist it
    past the scratch's stores). Returns whether it is a point weighing other than 1: padding
    weighs 0 every step, so it is no weight the `LaneCache` checks."""
    t = k * row + lane
    if straight:
        q = p0 + k
        w = inv_mass[q]
        off = w != 1.0
    else:
        p = pm[k * lanes + lane]
        q = p if p > 0 else 0
        w = _select(p >= 0, inv_mass[q], np.float32(0.0))
        off = (w != 1.0) & (p >= 0)
    s[wf * lanes + t] = w
    s[t] = pos[q, 0]
    s[lanes + t] = pos[q, 1]
    if three:
        s[2 * lanes + t] = pos[q, 2]
    return off


@numba.njit(inline="always")
def _scatter_slot(s, pos, pm, k, lane, lanes, three, straight, p0, row):
    """Point slot k of ``lane`` back from the scratch into pos (a padding slot writes nothing;
    ``straight``: point p0 + k)."""
    p = p0 + k if straight else pm[k * lanes + lane]
    if straight or p >= 0:
        t = k * row + lane
        pos[p, 0] = s[t]
        pos[p, 1] = s[lanes + t]
        if three:
            pos[p, 2] = s[2 * lanes + t]


def _chains_kernel(lanes: int, three: bool, general: bool, touch: bool = False):
    """The kernel that relaxes every group of ``lanes`` chains of a plan (its other groups are
    skipped), for 3-D points if ``three``, with any divisor if ``general``, with the colliders'
    contacts in every pass if ``touch`` (2-D, ``general``: the arrays after ``full`` are
    `solve_near`'s touch; each group's broad phase once gathered, `contact.lane_entries`, each
    pass's rows near a shape met before the clamp, `contact.touch_row`). The flags are frozen
    into the kernel as constants, so numba compiles one loop body, and only for the variants a
    scene calls; a flag passed as an argument would compile every branch it does not prune.

    Per group: gather its points, weights and rest lengths into the lane scratch row by row,
    make its divisors, `passes` passes (each followed by the clamp when lo is a box), scatter
    back. Every divisor of a group is 0, 1 or 2 when its weights are 0 or 1 and share is 1/2
    or 1 (every shipped level): then the passes multiply, exactly. Otherwise they divide, which
    only the ``general`` kernels compile: the others leave such a group untouched (nothing is
    written to pos) and return False, for `_redo` to run the general kernel with ``redo``,
    which skips the groups done already. Bodies of `IN_ORDER_POINTS` or more run
    `_chains_big_kernel`'s instead.

    The lane scratch (``s``, at least (K + 1)·FIELDS·lanes for the longest group's K repairs)
    and the rows' all-live marks (``full``, at least K + 1) are the caller's (`chain_scratch`):
    an np.zeros here compiled numba's allocation routines (≈ 0.3 s) into every first run that
    relaxes chains."""
    plain = lanes == WIDE   # the WIDE kernels only (no shipped level runs them, so no cold start pays for the copy)
    row = FIELDS * lanes

    def chains(pos, inv_mass, rest, passes, lo, hi, share, groups, cmap, pmap, redo, s, full, *tk):
        share = np.float32(share)         # float32 / float32: the divisors the level order makes too
        d = pos.shape[1]
        if d != (3 if three else 2):   # and below it, LLVM knows d: each point's address without a multiply
            raise ValueError("a chain kernel was given points of another dimension")
        done = True
        ng = groups.shape[0] - 1
        kmax = 0
        for g in range(ng):
            if groups[g, 2] == lanes:
                k = (groups[g + 1, 0] - groups[g, 0]) // lanes
                kmax = k if k > kmax else kmax
        if s.shape[0] < (kmax + 1) * row or full.shape[0] < kmax + 1:   # no bounds checks below
            raise ValueError("a chain kernel was given a lane scratch too small for its groups")
        if touch:     # the contacts' arrays (`solve_near`'s touch), taken out of their tuple once
            (tprev, pr, ent, cand, side, tbox, tbb, acc, met, shape, centre, axis, half, radius, verts, vstart,
             mu_s, mu_k, reach, step, rmax) = tk
        for g in range(ng):
            if groups[g, 2] != lanes:
                continue
            reps = (groups[g + 1, 0] - groups[g, 0]) // lanes
            cm = cmap[groups[g, 0]:groups[g + 1, 0]]
            pm = pmap[groups[g, 1]:groups[g + 1, 1]]
            # Gather points, then rests: one loop doing both, or testing the weights as it went,
            # measured 1.5-2x slower on W5.
            for k in range(reps + 1):
                for lane in range(lanes):
                    p = pm[k * lanes + lane]
                    q = p if p > 0 else 0     # a padding slot reads point 0 and weighs nothing
                    t = k * row + lane
                    s[t] = pos[q, 0]
                    s[lanes + t] = pos[q, 1]
                    if three:
                        s[2 * lanes + t] = pos[q, 2]
                    s[3 * lanes + t] = _select(p >= 0, inv_mass[q], np.float32(0.0))
                    if touch:                 # the point's move² this step, in the z field 2-D leaves free
                        mx = pos[q, 0] - tprev[q, 0]
                        my = pos[q, 1] - tprev[q, 1]
                        s[2 * lanes + t] = mx * mx + my * my
            for k in range(reps):
                for lane in range(lanes):
                    c = cm[k * lanes + lane]
                    s[5 * lanes + k * row + lane] = rest[c if c > 0 else 0]
            odd = 0                           # weights other than 0 and 1
            for k in range(reps):             # each repair's D, from the scratch alone: the lanes vectorise
                o, live = _divisor_row(s, k * row, lanes, row, 3, cm, k, True, share, s, 4 * lanes + k * row)
                odd += o
                full[k] = _select(live, np.float32(1.0), np.float32(0.0))
            halves = odd == 0 and (share == 0.5 or share == 1.0)   # then every divisor is 0, 1 or 2
            if general:
                if redo and halves:
                    continue
            elif not halves:
                done = False
                continue
            if touch:         # the group's rows near a shape, from the points just gathered
                m = contact.lane_entries(s, reps + 1, lanes, row, pm, groups[g, 3] != 0, pos, tprev, pr, ent, cand,
                                         side, 3 * groups[g, 1], tbox, tbb, shape, centre, axis, half, radius, verts,
                                         vstart, reach, step, rmax)
                met[0] += m
            for _ in range(passes):
                for k in range(reps):   # flags constant in each branch, so each loop compiles branch-free
                    o = k * row
                    if general and not halves:
                        _repair_lanes(s, o, lanes, three, False, False, row, 3, s, o + 5 * lanes, s, o + 4 * lanes)
                    elif plain and full[k] != 0.0:
                        _repair_lanes(s, o, lanes, three, True, True, row, 3, s, o + 5 * lanes, s, o + 4 * lanes)
                    else:
                        _repair_lanes(s, o, lanes, three, True, False, row, 3, s, o + 5 * lanes, s, o + 4 * lanes)
                if touch:     # the group's rows' contacts, before the clamp (one clamp a pass, not one a row)
                    for e in range(m):
                        c = ent[1, e]
                        o = ent[0, e] * row
                        so = 3 * (groups[g, 1] + ent[0, e] * lanes)
                        if shape[c] == contact.POLYGON:   # its own call: see `contact.touch_polygon`
                            contact.touch_polygon(s, o, lanes, side, so, acc, c, centre, axis, mu_s, mu_k, verts,
                                                  vstart)
                        else:
                            contact.touch_row(s, o, lanes, side, so, c, shape, centre, axis, half, radius, mu_s, mu_k)
                if lo is not None and lo.shape[0] == d:   # idempotent; no other repair moves these points
                    _clamp_lanes(s, 0, lo[0], hi[0], reps + 1, lanes, row, 3)
                    _clamp_lanes(s, 1, lo[1], hi[1], reps + 1, lanes, row, 3)
                    if three:
                        _clamp_lanes(s, 2, lo[2], hi[2], reps + 1, lanes, row, 3)
            for k in range(reps + 1):
                for lane in range(lanes):
                    p = pm[k * lanes + lane]
                    if p >= 0:
                        t = k * row + lane
                        pos[p, 0] = s[t]
                        pos[p, 1] = s[lanes + t]
                        if three:
                            pos[p, 2] = s[2 * lanes + t]
        return done
    chains.__name__ = chains.__qualname__ = (f"_chains_{'wide' if lanes == WIDE else 'narrow'}{3 if three else 2}"
                                             f"{'_any' if general else ''}{'_touch' if touch else ''}")
    return kernel(error_model="numpy", depends=(contact.__file__,) if touch else ())(chains)


def _chains_big_kernel(lanes: int, three: bool, general: bool):
    """`_chains_kernel` for a body of `IN_ORDER_POINTS` or more, whose chain groups keep their
    rest lengths and divisors between steps in the body's `LaneCache` (``meta``, ``lrest``,
    ``ldiv``, ``llive``, ``slot``, ``weight``: `LaneCache.arrays`) instead of making them
    again every step: same operations on the same values, so the same bits.

    Per group: gather its points and weights lane by lane, in memory order (such a body is
    larger than the caches: a rope's points lie one after another, so the reads walk memory
    forward where the prefetcher follows, not 32 ropes at once; a regular group (`regular`)
    then reads no slot map and tests no padding). The group's cached divisors hold exactly when
    its weights are the ones they were made from: the cache lists the group's weights other
    than 1 (at most `OFF_ONE`: a rope's pinned head, a grab; not its padding, which weighs 0
    every step and enters only padding repairs, whose D is 0 anyway), so the check is a count of the
    weights off 1, kept as the gather goes, and a look at the listed ones (a separate count
    loop over the scratch cost ≈ 0.6 ms a step on W5, one thread; in the gather ≈ 0.2). A
    weight equal to a listed one but for a zero's sign gives the same divisor's use: D = ±0
    is a lane that keeps its bits either way. When it fails (the first step, a
    pin or a grab, another share: `LaneCache.refresh`), the divisors, the rows' all-live marks
    and the list are made again from the weights just gathered. Then the group's rest lengths
    and divisors are copied beside its points (`copy`: read from the cache arrays in the
    passes, LLVM could not prove they do not overlap the scratch, and kept the lanes scalar),
    the passes run as `_chains_kernel`'s, and the points go back lane by lane. ``redo`` and
    the return value as `_chains_kernel`'s. The lane scratch ``s`` (`chain_scratch`'s first) holds
    x, y, (z,) weight, D and rest per slot: 2-D points need one field fewer than `FIELDS`."""
    plain = lanes == WIDE
    wf = 3 if three else 2     # the scratch's fields: x, y, (z,) weight, divisor, rest
    df, rf = wf + 1, wf + 2
    row = (wf + 3) * lanes

    def chains(pos, inv_mass, rest, passes, lo, hi, share, groups, cmap, pmap, redo, s, meta, lrest, ldiv, llive,
               slot, weight):
        share = np.float32(share)
        d = pos.shape[1]
        if d != (3 if three else 2):
            raise ValueError("a chain kernel was given points of another dimension")
        done = True
        ng = groups.shape[0] - 1
        cap = slot.shape[1]
        kmax = 0
        for g in range(ng):
            if groups[g, 2] == lanes:
                k = (groups[g + 1, 0] - groups[g, 0]) // lanes
                kmax = k if k > kmax else kmax
                if meta[g, 2] + k > llive.shape[0]:
                    raise ValueError("a chain kernel was given a lane cache too small for its groups")
        if (s.shape[0] < (kmax + 1) * row or meta.shape[0] < ng or slot.shape[0] < ng or weight.shape[0] < ng
                or weight.shape[1] != cap or lrest.shape[0] < groups[ng, 0] or ldiv.shape[0] < groups[ng, 0]):
            raise ValueError("a chain kernel was given a lane scratch or cache too small for its groups")
        for g in range(ng):
            if groups[g, 2] != lanes:
                continue
            c0 = groups[g, 0]                 # the group's first repair slot: its rows of lrest and ldiv
            reps = (groups[g + 1, 0] - c0) // lanes
            cm = cmap[c0:groups[g + 1, 0]]
            pm = pmap[groups[g, 1]:groups[g + 1, 1]]
            r0 = meta[g, 2]                   # its first row of llive
            straight = groups[g, 3] != 0
            off = 0                           # points weighing other than 1 (padding is none)
            if straight:                      # each loop with its flag a constant: no branch left in it
                for lane in range(lanes):
                    p0 = pm[lane]
                    for k in range(reps + 1):
                        off += _gather_slot(s, pos, inv_mass, pm, k, lane, lanes, three, True, p0, row, wf)
            else:
                for lane in range(lanes):
                    for k in range(reps + 1):
                        off += _gather_slot(s, pos, inv_mass, pm, k, lane, lanes, three, False, 0, row, wf)
            known = meta[g, 0]                # weights off 1 when the divisors were made; -1: none made
            if known >= 0:
                if off == known:              # as many as then: the same ones, with the same values?
                    for e in range(known):
                        if s[wf * lanes + slot[g, e]] != weight[g, e]:   # NaN too: never equal
                            off = -1
                if off != known:
                    known = -1
            if known < 0:
                odd = 0
                for k in range(reps):
                    o, live = _divisor_row(s, k * row, lanes, row, wf, cm, k, not straight, share, ldiv, c0 + k * lanes)
                    odd += o
                    llive[r0 + k] = _select(live, np.float32(1.0), np.float32(0.0))
                meta[g, 1] = 1 if odd == 0 and (share == 0.5 or share == 1.0) else 0
                known = 0
                for k in range(reps + 1):
                    for lane in range(lanes):
                        t = k * row + lane
                        x = s[wf * lanes + t]
                        if x != 1.0 and (straight or pm[k * lanes + lane] >= 0):
                            if known < cap:
                                slot[g, known] = t
                                weight[g, known] = x
                            known += 1
                meta[g, 0] = known if known <= cap else -1
            halves = meta[g, 1] != 0
            if general:
                if redo and halves:
                    continue
            elif not halves:
                done = False
                continue
            for k in range(reps):             # rest lengths and divisors beside the points
                _copy(s, df * lanes + k * row, ldiv, c0 + k * lanes, lanes)
                _copy(s, rf * lanes + k * row, lrest, c0 + k * lanes, lanes)
            for _ in range(passes):
                for k in range(reps):
                    o = k * row
                    if general and not halves:
                        _repair_lanes(s, o, lanes, three, False, False, row, wf, s, o + rf * lanes, s, o + df * lanes)
                    elif plain and llive[r0 + k] != 0.0:
                        _repair_lanes(s, o, lanes, three, True, True, row, wf, s, o + rf * lanes, s, o + df * lanes)
                    else:
                        _repair_lanes(s, o, lanes, three, True, False, row, wf, s, o + rf * lanes, s, o + df * lanes)
                if lo is not None and lo.shape[0] == d:
                    _clamp_lanes(s, 0, lo[0], hi[0], reps + 1, lanes, row, wf)
                    _clamp_lanes(s, 1, lo[1], hi[1], reps + 1, lanes, row, wf)
                    if three:
                        _clamp_lanes(s, 2, lo[2], hi[2], reps + 1, lanes, row, wf)
            if straight:
                for lane in range(lanes):
                    p0 = pm[lane]
                    for k in range(reps + 1):
                        _scatter_slot(s, pos, pm, k, lane, lanes, three, True, p0, row)
            else:
                for lane in range(lanes):
                    for k in range(reps + 1):
                        _scatter_slot(s, pos, pm, k, lane, lanes, three, False, 0, row)
        return done
    chains.__name__ = chains.__qualname__ = (f"_chains_{'wide' if lanes == WIDE else 'narrow'}{3 if three else 2}"
                                             f"{'_any' if general else ''}_big")
    return kernel(error_model="numpy")(chains)


_chains_wide2, _chains_narrow2, _chains_wide3, _chains_narrow3 = (
    _chains_kernel(w, t, False) for t in (False, True) for w in (WIDE, NARROW))
_chains_wide2_any, _chains_narrow2_any, _chains_wide3_any, _chains_narrow3_any = (
    _chains_kernel(w, t, True) for t in (False, True) for w in (WIDE, NARROW))
_CHAINS = {(w, t, g, False): k for (w, t, g), k in zip(
    [(w, t, g) for g in (False, True) for t in (False, True) for w in (WIDE, NARROW)],
    (_chains_wide2, _chains_narrow2, _chains_wide3, _chains_narrow3,
     _chains_wide2_any, _chains_narrow2_any, _chains_wide3_any, _chains_narrow3_any))}
_CHAINS.update({(w, t, g, True): _chains_big_kernel(w, t, g)   # `big` bodies: `_chains_wide2_any_big`, ...
                for g in (False, True) for t in (False, True) for w in (WIDE, NARROW)})
# 2-D chain groups with their contacts in every pass (`solve_near`'s ``touch``): any divisor, as `solve_near`'s
_TOUCH = {w: _chains_kernel(w, False, True, True) for w in (WIDE, NARROW)}   # `_chains_wide2_any_touch`, ...


def chain_scratch(groups) -> tuple:
    """(s, full): the chain kernels' scratch for a plan's chain ``groups`` (`_chains_kernel`), enough
    for every group of every width, so one pair serves each kernel a step calls in turn (not two
    threads at once). s: float32[(K + 1)·FIELDS·lanes] for the largest group, the lane scratch;
    full: float32[K + 1], per repair row 1 when no lane's divisor is 0 (float32, not bool). The
    `_big` kernels take s alone."""
    lanes = groups[:-1, 2].astype(np.int64)
    reps = (groups[1:, 0].astype(np.int64) - groups[:-1, 0]) // np.maximum(lanes, 1)
    rows = int(reps.max()) + 1 if len(reps) else 1
    slots = int(((reps + 1) * FIELDS * lanes).max()) if len(reps) else 0
    return aligned_zeros(slots), aligned_zeros(rows)


SCRATCH_ALIGN = 64   # bytes, a cache line: numpy aligns only to 16, and at 16 or 48 bytes mod 64 every 32-byte
                     # (AVX2) load of the lane scratch splits across two lines: W5's relax 8.9-9.3 ms a step there,
                     # 7.6-7.9 at 0 or 32 (one thread, bench.relax_ab), whichever malloc happened to give


def aligned_zeros(n: int, dtype=np.float32) -> np.ndarray:
    """``np.zeros(n, dtype)`` starting on a `SCRATCH_ALIGN`-byte boundary (a view into a slightly
    longer array, which it keeps alive)."""
    item = np.dtype(dtype).itemsize
    base = np.zeros(n + SCRATCH_ALIGN // item, dtype)
    skip = (-base.__array_interface__["data"][0] % SCRATCH_ALIGN) // item
    return base[skip:skip + n]


BLOCK = 4096   # values `same_bits` compares between two looks for a difference: long enough to vectorise


@kernel(error_model="numpy")
def same_bits(x, y):
    """Whether uint32 arrays x and y (of one length) hold the same bits: whole blocks of `BLOCK`,
    each an OR of XORs with no exit inside, so the loop runs in SIMD (a block end of
    ``min(i + BLOCK, n)`` kept it scalar, 10x slower); stops after the first block that differs."""
    n = x.shape[0]
    i = 0
    while i + BLOCK <= n:
        d = np.uint32(0)
        for j in range(i, i + BLOCK):
            d |= x[j] ^ y[j]
        if d != 0:
            return False
        i += BLOCK
    d = np.uint32(0)
    for j in range(i, n):
        d |= x[j] ^ y[j]
    return d == 0


@dataclass(eq=False)
class LaneCache:
    """What the `_big` chain kernels keep of a plan between steps, in lane layout (repair slot
    k · lanes + l of a group, as its ``cmap``), because it changes far more rarely than the
    positions: rest lengths only with the constraints, divisors only with the weights (a pin,
    a grab) or ``share``.

    - rest: float32[len cmap], each repair slot's rest length (constraint 0's for padding),
      copied from Constraints.rest by `refresh` whenever its values differ from ``kept``'s.
    - kept: float32[m], Constraints.rest as it was last copied, in its own order: `refresh`
      compares the two bit for bit before every step, so any change is seen — a new array, or
      an edit in place, through whatever view, by whatever system — and rest stays its owner's
      to write (the system never marks it read-only). The compare reads both in order, in SIMD
      (0.08 ms from the caches): in W5's step, where they come from memory, it costs 0.3-0.5 ms
      on one thread (relax alone 1.04-1.09x); gathering rest into lane layout every step instead,
      with no copy kept, cost about 0.9.
    - div: float32[len cmap], each repair slot's divisor D; live: float32[rows], each repair
      row's all-live mark (1 when no lane's D is 0); both made by the kernel, per group.
    - meta: int32[G, 3] per chain group: how many of its points (not padding) weighed other than 1
      when its divisors were made (-1: to be made, or more than OFF_ONE); 1 when they are all 0, 1 or 2 (`halves`); its first
      row in live. slot, weight: int32 / float32[G, OFF_ONE], those weights' scratch offsets
      and values — what the kernel checks the gathered weights against.
    """

    cmap: np.ndarray
    meta: np.ndarray
    rest: np.ndarray
    div: np.ndarray
    live: np.ndarray
    slot: np.ndarray
    weight: np.ndarray
    kept: np.ndarray | None = None        # None: nothing copied yet
    share: np.float32 = np.float32(np.nan)   # the share the divisors were made with

    @classmethod
    def of(cls, groups, cmap) -> LaneCache:
        ng = len(groups) - 1
        reps = (groups[1:, 0].astype(np.int64) - groups[:-1, 0]) // np.maximum(groups[:-1, 2], 1)
        meta = np.full((ng, 3), -1, np.int32)
        meta[:, 1] = 0
        meta[:, 2] = np.r_[0, np.cumsum(reps)[:-1]] if ng else np.zeros(0, np.int64)
        return cls(cmap, meta, aligned_zeros(len(cmap)), aligned_zeros(len(cmap)),
                   aligned_zeros(max(int(reps.sum()), 1)), np.zeros((ng, OFF_ONE), np.int32),
                   np.zeros((ng, OFF_ONE), np.float32))

    def refresh(self, rest, share) -> None:
        """Before a step: copy ``rest`` again if its values are not the ones last copied (bit for
        bit), and mark every group's divisors to be made again when ``share`` changed."""
        r = np.ascontiguousarray(rest, np.float32)    # itself, unless another dtype or a strided view
        k = self.kept
        if k is None or r.shape != k.shape:
            self.kept = k = np.empty_like(r)
        elif same_bits(r.view(np.uint32), k.view(np.uint32)):
            r = None
        if r is not None:
            np.take(r, np.maximum(self.cmap, 0), out=self.rest)
            np.copyto(k, r)
        s = np.float32(share)
        if not self.share == s:               # NaN: made again every step
            self.meta[:, 0] = -1
            self.share = s

    def arrays(self, g0: int = 0, g1: int | None = None) -> tuple:
        """The kernels' arguments after the scratch, for chain groups g0:g1 (their own rows of
        meta, slot and weight: the pieces `solve_split` runs at once write only their own)."""
        return (self.meta[g0:g1], self.rest, self.div, self.live, self.slot[g0:g1], self.weight[g0:g1])


class Calls(tuple):
    """The kernels a step of a plan runs (`_calls`), each ``(kernel, its arguments after
    share)``, and ``lanes``: the plan's `LaneCache` when they are the `_big` chain kernels."""

    lanes: LaneCache | None = None


def big(n: int) -> bool:
    """Whether a body of n points takes the `_big` chain kernels (lane-by-lane gather: `IN_ORDER_POINTS`)."""
    return n >= IN_ORDER_POINTS


def _chain_kernels(flags, general: bool, large: bool) -> list:
    """The chain kernels a plan's `paths` call for, with the general divisor or not, for a
    `big` body (``large``) or not."""
    wide, narrow, three = flags[:3]
    return [_CHAINS[w, three is not None, general, large] for w, on in ((WIDE, wide), (NARROW, narrow))
            if on is not None]


@numba.njit(inline="always")
def _clamp(pos, inv_mass, points, lo, hi):
    """Clamp the free ones of ``points`` into the box [lo, hi]."""
    d = pos.shape[1]
    for t in range(points.shape[0]):
        p = points[t]
        if inv_mass[p] != 0.0:
            for q in range(d):
                x = pos[p, q]
                x = lo[q] if x < lo[q] else x
                pos[p, q] = hi[q] if x > hi[q] else x


@kernel()
def clamp(pos, inv_mass, points, lo, hi):
    """`_clamp` on its own: the free ones of ``points`` into the box [lo, hi]."""
    _clamp(pos, inv_mass, points, lo, hi)


def _levels_kernel(two: bool):
    """The kernel for the level-ordered repairs: `passes` sweeps over ``order`` one repair at a
    time, clamping ``free`` after each when lo is a box. ``two`` (frozen in, as
    `_chains_kernel`'s flags): 2-D points, the unrolled loop; else any d."""
    def levels(pos, inv_mass, rest, passes, lo, hi, share, order, free, dv):
        share = np.float32(share)         # float32 / float32: the same D as the chains', whatever the caller passed
        d = pos.shape[1]
        if two and d != 2:   # and below it, LLVM knows d is 2: each point's address without a multiply
            raise ValueError("the 2-D level order was given points of another dimension")
        m = order.shape[1]
        # dv (float32[m], the caller's scratch: an np.empty here compiled numba's allocation
        # code into every first run, ≈ 0.2 s): each repair's divisor, once per call
        for t in range(m):
            dv[t] = divisor(inv_mass[order[1, t]], inv_mass[order[2, t]], share)
        for _ in range(passes):
            for t in range(m):
                c = order[0, t]
                i = order[1, t]
                j = order[2, t]
                wi = inv_mass[i]
                wj = inv_mass[j]
                w = dv[t]
                if w == 0.0:
                    continue
                if two:   # the general loop below, unrolled: same operations in the same order
                    ex = pos[j, 0] - pos[i, 0]
                    ey = pos[j, 1] - pos[i, 1]
                    dist2 = np.float32(0.0)
                    dist2 += ex * ex
                    dist2 += ey * ey
                    dist = math.sqrt(dist2)
                    if dist == 0.0:
                        dist = np.float32(COINCIDENT)
                    f = (dist - rest[c]) / dist
                    if w == 2.0:     # exactly / w: halving is exact
                        f *= np.float32(0.5)
                    elif w != 1.0:
                        f /= w
                    e = ex * f
                    pos[i, 0] += e * wi
                    pos[j, 0] -= e * wj
                    e = ey * f
                    pos[i, 1] += e * wi
                    pos[j, 1] -= e * wj
                else:
                    dist2 = np.float32(0.0)
                    for q in range(d):
                        e = pos[j, q] - pos[i, q]
                        dist2 += e * e
                    dist = math.sqrt(dist2)
                    if dist == 0.0:
                        dist = np.float32(COINCIDENT)
                    f = (dist - rest[c]) / dist / w
                    for q in range(d):
                        e = (pos[j, q] - pos[i, q]) * f
                        pos[i, q] += e * wi
                        pos[j, q] -= e * wj
            if lo is not None and lo.shape[0] == d:
                _clamp(pos, inv_mass, free, lo, hi)
        return True
    levels.__name__ = levels.__qualname__ = "_levels2" if two else "_levelsd"
    return kernel(error_model="numpy")(levels)


_levels2, _levelsd = _levels_kernel(True), _levels_kernel(False)


def _calls(views, flags, large: bool, lanes: LaneCache | None = None) -> Calls:
    """The kernels a step of a plan runs (for a `big` body if ``large``), each with the arrays
    it takes after ``share``: the chain groups of each width present, then the level order.
    They share no point, so their order does not change a bit; only these are compiled (`paths`).
    A big body's chain kernels read the plan's `LaneCache` (``lanes``, or a new one)."""
    groups, cmap, pmap, order, free, _ = views
    wide, narrow, three, level2, leveld, general = flags
    chained = wide is not None or narrow is not None
    if large and chained:
        lanes = lanes if lanes is not None else LaneCache.of(groups, cmap)
        scratch = (chain_scratch(groups)[0], *lanes.arrays())
    else:
        lanes = None
        scratch = chain_scratch(groups) if chained else ()
    out = [(_CHAINS[w, three is not None, general is not None, large], (groups, cmap, pmap, False, *scratch))
           for w, on in ((WIDE, wide), (NARROW, narrow)) if on is not None]
    dv = np.empty(order.shape[1], np.float32)   # the level order's divisors: one array per plan
    if level2 is not None:
        out.append((_levels2, (order, free, dv)))
    if leveld is not None:
        out.append((_levelsd, (order, free, dv)))
    calls = Calls(out)
    calls.lanes = lanes
    return calls


def _run(calls, loose, pos, inv_mass, rest, passes, lo, hi, share) -> bool:
    """One step's kernels (`_calls`), then the clamp of the points in no constraint (once: as
    every pass would). False when a chain group was left for the general divisor (`_redo`).
    A big body's `LaneCache` is brought up to date first (`LaneCache.refresh`)."""
    if passes <= 0:
        return True
    if calls.lanes is not None:
        calls.lanes.refresh(rest, share)
    done = True
    for k, args in calls:
        done &= k(pos, inv_mass, rest, passes, lo, hi, share, *args)
    if lo is not None and loose.shape[0]:
        clamp(pos, inv_mass, loose, lo, hi)
    return done


def _redo(views, flags, pos, inv_mass, rest, passes, lo, hi, share, lanes: LaneCache | None = None) -> None:
    """The chain groups `_run` left (``flags`` had general None), now with the general divisor.
    Groups share no point with each other or the rest, so doing them last gives the same bits.
    ``lanes``: a big body's `LaneCache`, as `_run` left it."""
    groups, cmap, pmap = views[:3]
    large = big(pos.shape[0])
    scratch = (chain_scratch(groups)[0], *lanes.arrays()) if large else chain_scratch(groups)
    for k in _chain_kernels(flags, True, large):
        k(pos, inv_mass, rest, passes, lo, hi, share, groups, cmap, pmap, True, *scratch)


def solve(pos, inv_mass, rest, passes, lo, hi, packed, share, *flags) -> None:
    """`passes` sweeps over the constraints, in place, with the bits of their declared order;
    ``packed`` is their `plan(n, d in (2, 3), a, b)`; ``share`` the free end's part of the
    error when the other end is pinned. lo/hi: the box, or None (or empty) for none.
    ``flags`` are ``paths(packed, d)``: only the kernels of its paths run, or compile."""
    views = unpack(packed)
    lo, hi = box(lo, hi, pos.shape[1])
    calls = _calls(views, flags, big(pos.shape[0]))
    if not _run(calls, views[5], pos, inv_mass, rest, passes, lo, hi, share):
        _redo(views, flags, pos, inv_mass, rest, passes, lo, hi, share, calls.lanes)


def relax(pos, inv_mass, a, b, rest, passes, lo, hi, share):
    """`passes` sweeps over the constraints in order, in place, scheduling them first
    (for one-off use; the system keeps the schedule). lo/hi empty or None: no box."""
    n, d = pos.shape
    packed = plan(n, d == 2 or d == 3, a, b)
    solve(pos, inv_mass, rest, passes, *box(lo, hi, d), packed, float(share), *paths(packed, d))


def chain_points(packed) -> int:
    """Point slots in the chain groups of a `plan` (padding included): what `solve_split` shares out."""
    return int(packed[2])


def _each(kernels, args) -> None:
    for k in kernels:
        k(*args)


def solve_split(pos, inv_mass, rest, passes, lo, hi, s: Schedule, share) -> None:
    """`solve` for the schedule ``s``, its work shared among `split.threads` threads: the
    chain groups in pieces of about `split.PIECE_POINTS` points, and the level-ordered rest
    as one piece more. No two pieces share a point, and each is the kernel call `solve`
    makes on its part, so every point ends with the bits `solve` gives it. Only from Python:
    the one-thread `solve` never reaches this, so no small scene compiles or waits for it."""
    if passes <= 0:
        return
    groups, cmap, pmap, order, free, loose = s.views
    if s.parts is None:
        slots = groups[:, 1]               # first point slot of each group, and their total last
        ng = slots.shape[0] - 1
        cuts = sorted({*np.searchsorted(slots, [a for a, _ in split.pieces(int(slots[-1]))]).tolist(), ng})
        s.parts = [(g0, g1) for g0, g1 in zip(cuts[:-1], cuts[1:]) if g1 > g0]
    lo, hi = box(lo, hi, pos.shape[1])
    jobs = []
    if order.shape[1] > 0:            # first: one piece that may be long (a cloth)
        jobs.append((_levels2 if s.paths[3] is not None else _levelsd,
                     (pos, inv_mass, rest, passes, lo, hi, share, order, free,
                      np.empty(order.shape[1], np.float32))))
    large = big(pos.shape[0])
    kernels = _chain_kernels(s.paths, True, large)   # any divisor: no second call
    lanes = s.calls.lanes if large else None
    if s.lanes is None:                   # each piece's own scratch: the pieces run at once
        s.lanes = [chain_scratch(groups[g0:g1 + 1])[:1] + lanes.arrays(g0, g1) if large
                   else chain_scratch(groups[g0:g1 + 1]) for g0, g1 in s.parts]
    if lanes is not None:
        lanes.refresh(rest, share)
    jobs += [(_each, (kernels, (pos, inv_mass, rest, passes, lo, hi, share, groups[g0:g1 + 1], cmap, pmap,
                                False, *scratch))) for (g0, g1), scratch in zip(s.parts, s.lanes)]
    split.run(jobs)
    if lo is not None:
        clamp(pos, inv_mass, loose, lo, hi)


def solve_near(pts: Points, con: Constraints, lo, hi, passes: int, near: np.ndarray, each_pass, touch=None) -> bool:
    """``passes`` sweeps of one body's links with ``each_pass()`` after each, where each_pass moves
    only the points ``near`` (int32): the chain groups holding none of them take all their passes
    in one kernel call, as a body without extras does, and so does the level-ordered rest when it
    holds none; the others go pass by pass with each_pass between. They share no point, so every
    point ends with the bits of the plain pass-by-pass loop (`relax_body` with 1, then each_pass,
    ``passes`` times). False, with nothing done, for a `big` body (its lane cache is the plain
    loop's).

    ``touch``: the colliders' contacts for the chain groups, solved inside their lane kernels
    (prev, the point radii, `contact.row_scratch`'s arrays, the colliders' shape arrays as `push`
    takes them, their reach, the swept test's step and the largest point radius): every chain
    group then takes all its passes in one call — its broad phase once gathered
    (`contact.lane_entries`), each pass followed by its rows' contacts in the lanes
    (`contact.touch_row`) — and ``near`` holds only points in no chain group. Not the plain loop's bits: the lanes meet a shape in float32, every lane of a
    row at once, where `push` meets it point by point in float64."""
    schedule(con, pts.pos.shape)
    s = con.schedule
    groups, cmap, pmap, order, free, loose = s.views
    ng = groups.shape[0] - 1
    if big(s.n):
        return False
    if s.owner is None:                       # each point's group; ng: the level order's; -1: none
        s.owner = np.full(s.n, -1, np.int32)
        slot_group = np.repeat(np.arange(ng, dtype=np.int32), np.diff(groups[:, 1]))
        s.owner[pmap[pmap >= 0]] = slot_group[pmap >= 0]
        s.owner[free] = ng
    busy = np.zeros(ng + 1, bool)            # a group (the last: the level order) holding a point each_pass moves
    g = s.owner[near]
    busy[g[g >= 0]] = True
    kernels = _chain_kernels(s.paths, True, False)   # any divisor: no second call
    pos, inv_mass, rest, share = pts.pos, pts.inv_mass, con.rest, con.share
    if s.scratch is None:
        s.scratch = chain_scratch(groups)
    scratch = s.scratch
    still, moving = [], []
    if touch is not None:
        if s.paths[2] is not None:
            raise ValueError("contacts in the lanes are for 2-D chains")
        still.extend((_TOUCH[w], (groups, cmap, pmap, False, *scratch, *touch))
                     for w, on in ((WIDE, s.paths[0]), (NARROW, s.paths[1])) if on is not None)
    for out, skip in ((still, busy[:ng]), (moving, ~busy[:ng])) if touch is None else ():
        if ng and not skip.all():             # a group of 0 lanes is one no kernel runs
            part = groups.copy()
            part[:ng, 2][skip] = 0
            out.extend((k, (part, cmap, pmap, False, *scratch)) for k in kernels)
    if order.shape[1]:
        levels = (_levels2 if s.paths[3] is not None else _levelsd, (order, free, np.empty(order.shape[1], np.float32)))
        (moving if busy[ng] else still).append(levels)
    for k, args in still:
        k(pos, inv_mass, rest, passes, lo, hi, share, *args)
    if touch is not None and not moving and not len(near):
        passes = 0                            # the shapes are still ones: each_pass would move no point
    for _ in range(passes):
        for k, args in moving:
            k(pos, inv_mass, rest, 1, lo, hi, share, *args)
        each_pass()
    if lo is not None and loose.shape[0]:
        clamp(pos, inv_mass, loose, lo, hi)
    return True


def relax_body(pts: Points, con: Constraints, lo, hi, passes: int) -> None:
    """``passes`` sweeps of one body's links on this thread, with its cached schedule (`schedule`)."""
    schedule(con, pts.pos.shape)
    s = con.schedule
    if not _run(s.calls, s.views[5], pts.pos, pts.inv_mass, con.rest, passes, lo, hi, con.share):
        _redo(s.views, s.paths, pts.pos, pts.inv_mass, con.rest, passes, lo, hi, con.share, s.calls.lanes)
        s.paths = s.paths[:5] + (True,)   # from now on the general kernels run: any divisor
        s.calls = _calls(s.views, s.paths, big(s.n), s.calls.lanes)


class Relax(esper.Processor):
    _seen: tuple = (None, 0)   # (the body list esper gave, how many types were declared) when _plain was found
    _plain = False             # then: no body had Extras or a declared type's component

    def process(self, frame):
        bodies = esper.get_components(Points, Constraints)
        seen = (bodies, len(solver.TYPES))
        if seen[0] is not self._seen[0] or seen[1] != self._seen[1]:
            # esper hands back the same cached list until a component is added or removed anywhere,
            # so a scene of plain bodies asks nothing more a step (its relax takes a few µs)
            self._seen = seen
            self._plain = not esper.get_component(Extras) and not any(
                esper.get_component(t.component) for t in solver.ordered())
        extras: list = []
        table: dict = {}                       # entity -> its declared constraint types (solver.TYPES)
        if not self._plain:
            extras = esper.get_component(Extras)
            for t in solver.ordered():
                for ent, comp in esper.get_component(t.component):
                    table.setdefault(ent, []).append((t, t.arrays(comp), comp))
            if extras or table:
                self._extras(frame, extras, table)
        for ent, (pts, con) in bodies:
            if (extras and esper.has_component(ent, Extras)) or (table and ent in table):
                continue
            bounds = esper.try_component(ent, Bounds)
            lo, hi = box(bounds.lo, bounds.hi, pts.pos.shape[1]) if bounds is not None else (None, None)
            packed = schedule(con, pts.pos.shape)
            most = split.PARALLEL_POINTS
            if packed.size >= most and chain_points(packed) >= most and split.threads() > 1:   # size first: ~30 ns
                solve_split(pts.pos, pts.inv_mass, con.rest, con.passes, lo, hi, con.schedule, con.share)
            else:
                s = con.schedule
                if not _run(s.calls, s.views[5], pts.pos, pts.inv_mass, con.rest, con.passes, lo, hi, con.share):
                    _redo(s.views, s.paths, pts.pos, pts.inv_mass, con.rest, con.passes, lo, hi, con.share,
                          s.calls.lanes)
                    s.paths = s.paths[:5] + (True,)   # from now on the general kernels run: any divisor
                    s.calls = _calls(s.views, s.paths, big(s.n), s.calls.lanes)

    @staticmethod
    def _extras(frame, extras, table) -> None:
        """The bodies with `Extras` (bending, compliance, attachments, contact, breaking, sleep) or
        a declared constraint type's component, each by `project`, its pieces cut where a rope broke."""
        from ropework.systems.project import project, split_ropes  # here: project builds on this module
        bodies = list(extras) + [(ent, Extras()) for ent in table if not esper.has_component(ent, Extras)]
        for ent, ex in bodies:
            pts, con = esper.try_component(ent, Points), esper.try_component(ent, Constraints)
            if pts is None or con is None or not wake_if_touched(ent, pts, ex):
                continue
            bounds = esper.try_component(ent, Bounds)
            lo, hi = box(bounds.lo, bounds.hi, pts.pos.shape[1]) if bounds is not None else (None, None)
            broken = project(pts, con, lo, hi, esper.component_for_entity(ent, Forces), ex, frame.dt, table.get(ent, ()))
            ropes = esper.try_component(ent, Ropes) if len(broken) else None
            if ropes is not None:
                split_ropes(ropes, esper.try_component(ent, RopeStyle), broken)
