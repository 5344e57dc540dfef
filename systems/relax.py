"""Relax: pull every distance constraint back toward its rest length, and clamp to bounds.

Reads: Constraints, Bounds (optional). Writes: Points.pos.

Sequential Gauss–Seidel, as the seeds: constraints are repaired one after another
in their declared order, each moving its two ends by the error weighted by their
inverse mass — half each for two free points, the whole correction to the free
end when the other is pinned. Fixing one pair disturbs its neighbour, so the
sweep repeats `passes` times; stiffness is an iteration count, and because only
positions move the solver cannot inject energy. Free points are clamped into the
bounds box in the same pass, so a rope pressed into the floor slides and buckles.

The loop runs compiled (numba) in the exact sequential order: reordering for
numpy (red/black, Jacobi) is softer at the same pass count — see
docs/performance.md. Each repair waits for the one before it, so a rope is one
long chain of dependent square roots and divisions. But the constraints fall
into independent runs (a rope's segments share no point with another rope's),
and relaxing several runs in lockstep lets the CPU overlap their chains. Runs
share no point, so the result is bit for bit that of the declared order.
"""
from __future__ import annotations

import math

import esper
import numba
import numpy as np

from components import Bounds, Constraints, Points
from systems.pipeline import RELAX, system

INTERLEAVE = 8   # independent runs relaxed in lockstep so their dependency chains overlap (≈2.3× at 100k points)
_NO_BOX = np.zeros(0, np.float32)


@numba.njit(cache=True, nogil=True)
def independent_runs(n, a, b):
    """int32[k + 1]: run r is constraints ``runs[r]:runs[r + 1]``; no point of a run is
    touched by any other run. Runs are contiguous in the declared order; a rope is one."""
    m = a.shape[0]
    last = np.empty(n, np.int32)   # last constraint touching each point (only touched points are read)
    for c in range(m):
        last[a[c]] = c
        last[b[c]] = c
    runs = np.empty(m + 1, np.int32)
    runs[0] = 0
    k = 0
    reach = -1                     # the furthest constraint sharing a point with the open run
    for c in range(m):
        reach = max(reach, last[a[c]], last[b[c]])
        if reach == c:
            k += 1
            runs[k] = c + 1
    return runs[:k + 1]


@numba.njit(cache=True, nogil=True)
def run_spans(runs, a, b):
    """(first, last, ordered): each run's lowest and highest point index, and whether the
    spans are disjoint and increasing (ropes laid out one after another), in which case a
    run's span holds no point of any other run."""
    nr = runs.shape[0] - 1
    first = np.empty(nr, np.int64)
    last = np.empty(nr, np.int64)
    ordered = True
    for r in range(nr):
        p0 = min(a[runs[r]], b[runs[r]])
        p1 = max(a[runs[r]], b[runs[r]])
        for c in range(runs[r] + 1, runs[r + 1]):
            p0 = min(p0, a[c], b[c])
            p1 = max(p1, a[c], b[c])
        first[r] = p0
        last[r] = p1
        if r > 0 and p0 <= last[r - 1]:
            ordered = False
    return first, last, ordered


@numba.njit(cache=True, nogil=True)
def clamp(pos, inv_mass, p0, p1, lo, hi):
    """Clamp the free points p0 <= p < p1 into the box [lo, hi]."""
    d = pos.shape[1]
    if d == 2:   # the general loop below, unrolled
        lx, ly, hx, hy = lo[0], lo[1], hi[0], hi[1]
        for p in range(p0, p1):
            if inv_mass[p] != 0.0:
                x = pos[p, 0]
                x = lx if x < lx else x
                pos[p, 0] = hx if x > hx else x
                y = pos[p, 1]
                y = ly if y < ly else y
                pos[p, 1] = hy if y > hy else y
        return
    for p in range(p0, p1):
        if inv_mass[p] != 0.0:
            for q in range(d):
                x = pos[p, q]
                x = lo[q] if x < lo[q] else x
                pos[p, q] = hi[q] if x > hi[q] else x


@numba.njit(cache=True, nogil=True)
def relax(pos, inv_mass, a, b, rest, passes, lo, hi):
    """`passes` sweeps over the constraints in order, in place. lo/hi empty: no box."""
    n, d = pos.shape
    boxed = lo.shape[0] == d
    runs = independent_runs(n, a, b)
    nr = runs.shape[0] - 1
    group = INTERLEAVE
    first = last = np.empty(0, np.int64)
    if boxed and nr > group:
        first, last, ordered = run_spans(runs, a, b)
        if not ordered:
            group = nr   # runs' points are mixed in memory: clamp every point per pass, as the plain loop
    for r0 in range(0, nr, group):
        r1 = min(r0 + group, nr)
        longest = 0
        for r in range(r0, r1):
            longest = max(longest, runs[r + 1] - runs[r])
        for _ in range(passes):
            for k in range(longest):
                for r in range(r0, r1):
                    c = runs[r] + k
                    if c >= runs[r + 1]:
                        continue
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
                            dist = 1e-4  # coincident points: any direction will do, never divide by 0
                        f = (dist - rest[c]) / dist / w
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
                        dist = 1e-4
                    f = (dist - rest[c]) / dist / w
                    for q in range(d):
                        e = (pos[j, q] - pos[i, q]) * f
                        pos[i, q] += e * wi
                        pos[j, q] -= e * wj
            if boxed:   # clamping is idempotent, and no other run moves these points
                if r1 - r0 == nr:
                    clamp(pos, inv_mass, 0, n, lo, hi)
                else:
                    clamp(pos, inv_mass, first[r0], last[r1 - 1] + 1, lo, hi)
    if boxed and passes > 0 and (nr == 0 or group < nr):
        clamp(pos, inv_mass, 0, n, lo, hi)   # points in no constraint, once: as every pass would


@system("relax", RELAX)
class Relax(esper.Processor):
    def process(self, frame):
        for ent, (pts, con) in esper.get_components(Points, Constraints):
            box = esper.try_component(ent, Bounds)
            lo, hi = (box.lo, box.hi) if box is not None else (_NO_BOX, _NO_BOX)
            relax(pts.pos, pts.inv_mass, con.a, con.b, con.rest, con.passes, lo, hi)
