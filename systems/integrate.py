"""Integrate: advance every free point one Verlet step.

Reads: Points, Forces, Frame.dt. Writes: Points.pos, Points.prev.

x' = x + (x − x_prev)·damping + a·dt². Velocity is never stored: it is the gap
between position and previous position, so anything that moves a point (a drag,
a constraint, a pin) also sets its velocity. Pinned points (inv_mass 0) are
skipped; their pins own them.
"""
from __future__ import annotations

import esper
import numba
import numpy as np

from components import Forces, Points
from systems.pipeline import INTEGRATE, system

_NO_EXTRA = np.zeros((0, 3), np.float32)


@numba.njit(cache=True, nogil=True)
def integrate(pos, prev, inv_mass, gravity, extra, damping, dt):
    """One Verlet step in place. extra: float32[n, d] per-point acceleration, or 0 rows."""
    n, d = pos.shape
    dt2 = dt * dt
    has_extra = extra.shape[0] == n
    for i in range(n):
        if inv_mass[i] == 0.0:
            continue
        for q in range(d):
            x = pos[i, q]
            a = gravity[q]
            if has_extra:
                a += extra[i, q]
            v = (x - prev[i, q]) * damping
            prev[i, q] = x
            pos[i, q] = x + v + a * dt2


@system("integrate", INTEGRATE)
class Integrate(esper.Processor):
    def process(self, frame):
        for _, (pts, f) in esper.get_components(Points, Forces):
            extra = f.extra if f.extra is not None else _NO_EXTRA
            integrate(pts.pos, pts.prev, pts.inv_mass, f.gravity, extra, f.damping, frame.dt)
