"""Relax: pull every distance constraint back toward its rest length, and clamp to bounds.

Reads: Constraints, Bounds (optional). Writes: Points.pos.

Sequential Gauss–Seidel, as the seeds: constraints are repaired one after another
in their declared order, each moving its two ends by the error weighted by their
inverse mass — half each for two free points, the whole correction to the free
end when the other is pinned. Fixing one pair disturbs its neighbour, so the
sweep repeats `passes` times; stiffness is an iteration count, and because only
positions move the solver cannot inject energy. Free points are clamped into the
bounds box in the same pass, so a rope pressed into the floor slides and buckles.

The loop runs compiled (numba) and gives the declared order's result bit for bit:
reordering for numpy (red/black, Jacobi) is softer at the same pass count — see
docs/performance.md. Each repair waits for the one before it, so a rope is one long
chain of dependent square roots and divisions; but two repairs that share no point
may run in either order with the same bits. So the repairs run in *level order*: a
repair's level is one more than the deepest earlier repair it shares a point with.
Sorting by level keeps every pair that shares a point in declared order, and a
level's repairs are independent, so the CPU overlaps their chains of dependent
operations — separate ropes in lockstep, and a cloth's anti-diagonals too.
"""
from __future__ import annotations

import math

import esper
import numba
import numpy as np

from components import Bounds, Constraints, Points
from systems.pipeline import RELAX, system

COINCIDENT = 1e-4  # scene units: the distance taken for coincident ends, so any direction will do and nothing divides by 0
_NO_BOX = np.zeros(0, np.float32)


@numba.njit(cache=True, nogil=True)
def level_order(n, a, b, cons):
    """The constraints ``cons`` (in declared order) sorted stably by level: a repair's level
    is one more than the deepest earlier repair sharing a point with it."""
    m = cons.shape[0]
    at = np.zeros(n, np.int32)         # level of the last repair touching each point
    level = np.empty(m, np.int32)
    top = 0
    for t in range(m):
        c = cons[t]
        v = max(at[a[c]], at[b[c]]) + 1
        level[t] = v
        at[a[c]] = v
        at[b[c]] = v
        top = max(top, v)
    start = np.zeros(top + 2, np.int64)
    for t in range(m):
        start[level[t] + 1] += 1
    for v in range(top + 1):
        start[v + 1] += start[v]
    order = np.empty(m, np.int32)
    for t in range(m):
        order[start[level[t]]] = cons[t]
        start[level[t]] += 1
    return order


@numba.njit(cache=True, nogil=True)
def schedule_arrays(n, a, b):
    """(order, free, loose): the constraints in level order, the points they touch
    (clamped after each pass) and the points in no constraint."""
    order = level_order(n, a, b, np.arange(a.shape[0], dtype=np.int32))
    touched = np.zeros(n, np.bool_)
    for c in range(a.shape[0]):
        touched[a[c]] = True
        touched[b[c]] = True
    return order, np.nonzero(touched)[0].astype(np.int32), np.nonzero(~touched)[0].astype(np.int32)


@numba.njit(cache=True, nogil=True)
def clamp(pos, inv_mass, points, lo, hi):
    """Clamp the free ones of ``points`` into the box [lo, hi]."""
    d = pos.shape[1]
    for t in range(points.shape[0]):
        p = points[t]
        if inv_mass[p] != 0.0:
            for q in range(d):
                x = pos[p, q]
                x = lo[q] if x < lo[q] else x
                pos[p, q] = hi[q] if x > hi[q] else x


@numba.njit(cache=True, nogil=True, error_model="numpy")
def _relax_levels(pos, inv_mass, a, b, rest, passes, lo, hi, order, free):
    """`passes` sweeps over ``order`` one repair at a time, clamping ``free`` after each."""
    d = pos.shape[1]
    boxed = lo.shape[0] == d
    for _ in range(passes):
        for t in range(order.shape[0]):
            c = order[t]
            i = a[c]
            j = b[c]
            wi = inv_mass[i]
            wj = inv_mass[j]
            w = wi + wj
            if w == 0.0:
                continue
            if d == 2:   # the general loop below, unrolled: same operations in the same order
                ex = pos[j, 0] - pos[i, 0]
                ey = pos[j, 1] - pos[i, 1]
                dist2 = 0.0
                dist2 += ex * ex
                dist2 += ey * ey
                dist = math.sqrt(dist2)
                if dist == 0.0:
                    dist = COINCIDENT
                f = (dist - rest[c]) / dist
                if w == 2.0:     # exactly / w: halving is exact
                    f *= 0.5
                elif w != 1.0:
                    f /= w
                e = ex * f
                pos[i, 0] += e * wi
                pos[j, 0] -= e * wj
                e = ey * f
                pos[i, 1] += e * wi
                pos[j, 1] -= e * wj
                continue
            dist2 = 0.0
            for q in range(d):
                e = pos[j, q] - pos[i, q]
                dist2 += e * e
            dist = math.sqrt(dist2)
            if dist == 0.0:
                dist = COINCIDENT
            f = (dist - rest[c]) / dist / w
            for q in range(d):
                e = (pos[j, q] - pos[i, q]) * f
                pos[i, q] += e * wi
                pos[j, q] -= e * wj
        if boxed:
            clamp(pos, inv_mass, free, lo, hi)


@numba.njit(cache=True, nogil=True)
def solve(pos, inv_mass, a, b, rest, passes, lo, hi, order, free, loose):
    """`passes` sweeps over the constraints, in place, with the bits of the declared order;
    the last three arguments are `schedule_arrays(n, a, b)`. lo/hi empty: no box."""
    if passes <= 0:
        return
    if order.shape[0] > 0:
        _relax_levels(pos, inv_mass, a, b, rest, passes, lo, hi, order, free)
    if lo.shape[0] == pos.shape[1]:
        clamp(pos, inv_mass, loose, lo, hi)   # points in no constraint, once: as every pass would


@numba.njit(cache=True, nogil=True)
def relax(pos, inv_mass, a, b, rest, passes, lo, hi):
    """`passes` sweeps over the constraints in order, in place. lo/hi empty: no box."""
    order, free, loose = schedule_arrays(pos.shape[0], a, b)
    solve(pos, inv_mass, a, b, rest, passes, lo, hi, order, free, loose)


@system("relax", RELAX)
class Relax(esper.Processor):
    def process(self, frame):
        for ent, (pts, con) in esper.get_components(Points, Constraints):
            box = esper.try_component(ent, Bounds)
            lo, hi = (box.lo, box.hi) if box is not None else (_NO_BOX, _NO_BOX)
            relax(pts.pos, pts.inv_mass, con.a, con.b, con.rest, con.passes, lo, hi)
