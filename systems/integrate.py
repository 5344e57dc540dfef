"""Integrate: advance every free point one Verlet step.

Reads: Points, Forces, Frame.dt. Writes: Points.pos, Points.prev.

x' = x + (x − x_prev)·damping + a·dt². Velocity is never stored: it is the gap
between position and previous position, so anything that moves a point (a drag,
a constraint, a pin) also sets its velocity. Pinned points (inv_mass 0) are
skipped; their pins own them.

The kernel walks the coordinates as one flat run (pos and prev are C-contiguous)
without a branch — a pinned point keeps its own bits by selection — so LLVM
vectorises it; the arithmetic is the formula's, in its order, in every lane.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Forces, Points
from ropework.systems.services import split
from ropework.systems.services.kernels import kernel

_NO_EXTRA = np.zeros((0, 3), np.float32)


def _integrate_kernel(two: bool, extra: bool):
    """The Verlet step over flat coordinates (x, xp, ex: float32[n·d]) for 2-D points if ``two``
    (else any d), with per-point accelerations if ``extra``. Both are frozen into the kernel as
    constants, so numba compiles one branch-free loop, and only for the variants a scene calls."""
    def advance(x, xp, inv_mass, gravity, ex, damping, dt, d):
        dt2 = dt * dt
        dd = 2 if two else d
        for i in range(x.shape[0] // dd):
            free = inv_mass[i] != 0.0
            for q in range(dd):
                k = i * dd + q
                now = x[k]
                before = xp[k]
                a = gravity[q]
                if extra:
                    a += ex[k]
                v = (now - before) * damping
                x[k] = np.float32(now + v + a * dt2) if free else now
                xp[k] = now if free else before
    advance.__name__ = advance.__qualname__ = f"_integrate{2 if two else 'd'}{'_extra' if extra else ''}"
    return kernel()(advance)


_INTEGRATE = {(two, extra): _integrate_kernel(two, extra) for two in (True, False) for extra in (False, True)}


def flat(a: np.ndarray) -> np.ndarray:
    """A 1-D view of a C-contiguous array (AttributeError if it would need a copy)."""
    v = a.view()
    v.shape = (a.size,)
    return v


def integrate(pos, prev, inv_mass, gravity, extra, damping, dt):
    """One Verlet step in place. pos, prev: C-contiguous float32[n, d]; extra: float32[n, d]
    per-point acceleration, or 0 rows."""
    n, d = pos.shape
    _INTEGRATE[d == 2, extra.shape[0] == n](flat(pos), flat(prev), inv_mass, gravity, flat(extra), damping, dt, d)


def integrate_split(pos, prev, inv_mass, gravity, extra, damping, dt) -> None:
    """`integrate` on `split.threads` threads, in row ranges of `split.PIECE_POINTS` points:
    each point's step reads only its own row, so the bits are `integrate`'s."""
    n = pos.shape[0]
    has_extra = extra.shape[0] == n
    split.run((integrate, (pos[a:b], prev[a:b], inv_mass[a:b], gravity, extra[a:b] if has_extra else extra[:0],
                           damping, dt)) for a, b in split.pieces(n))


class Integrate(esper.Processor):
    def process(self, frame):
        for _, (pts, f) in esper.get_components(Points, Forces):
            extra = f.extra if f.extra is not None else _NO_EXTRA
            step = integrate_split if len(pts.pos) >= split.PARALLEL_POINTS and split.threads() > 1 else integrate
            step(pts.pos, pts.prev, pts.inv_mass, f.gravity, extra, f.damping, frame.dt)
