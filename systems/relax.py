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
docs/performance.md.
"""
from __future__ import annotations

import math

import esper
import numba
import numpy as np

from components import Bounds, Constraints, Points
from systems.pipeline import RELAX, system

_NO_BOX = np.zeros(0, np.float32)


@numba.njit(cache=True, nogil=True)
def relax(pos, inv_mass, a, b, rest, passes, lo, hi):
    """`passes` sweeps over the constraints in order, in place. lo/hi empty: no box."""
    n, d = pos.shape
    m = a.shape[0]
    boxed = lo.shape[0] == d
    for _ in range(passes):
        for c in range(m):
            i = a[c]
            j = b[c]
            wi = inv_mass[i]
            wj = inv_mass[j]
            w = wi + wj
            if w == 0.0:
                continue
            dist2 = 0.0
            for q in range(d):
                e = pos[j, q] - pos[i, q]
                dist2 += e * e
            dist = math.sqrt(dist2)
            if dist == 0.0:
                dist = 1e-4  # coincident points: any direction will do, never divide by 0
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


@system("relax", RELAX)
class Relax(esper.Processor):
    def process(self, frame):
        for ent, (pts, con) in esper.get_components(Points, Constraints):
            box = esper.try_component(ent, Bounds)
            lo, hi = (box.lo, box.hi) if box is not None else (_NO_BOX, _NO_BOX)
            relax(pts.pos, pts.inv_mass, con.a, con.b, con.rest, con.passes, lo, hi)
