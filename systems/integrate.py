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
import numba
import numpy as np

from ropework.components import Forces, Points
from ropework.systems.services import split
from ropework.systems.services.kernels import kernel

_NO_EXTRA = np.zeros((0, 3), np.float32)


@numba.njit(inline="always")
def _advance(pos, prev, inv_mass, gravity, extra, damping, dt2, d, has_extra):
    """The Verlet step over flat views; ``d`` and ``has_extra`` are constants at each call."""
    x = pos.reshape(-1)
    xp = prev.reshape(-1)
    ex = extra.reshape(-1)
    for i in range(pos.shape[0]):
        free = inv_mass[i] != 0.0
        for q in range(d):
            k = i * d + q
            now = x[k]
            before = xp[k]
            a = gravity[q]
            if has_extra:
                a += ex[k]
            v = (now - before) * damping
            x[k] = np.float32(now + v + a * dt2) if free else now
            xp[k] = now if free else before


@kernel()
def integrate(pos, prev, inv_mass, gravity, extra, damping, dt):
    """One Verlet step in place. pos, prev: C-contiguous float32[n, d]; extra: float32[n, d]
    per-point acceleration, or 0 rows."""
    n, d = pos.shape
    dt2 = dt * dt
    has_extra = extra.shape[0] == n
    if d == 2 and has_extra:   # constant flags: each branch compiles to one branch-free loop
        _advance(pos, prev, inv_mass, gravity, extra, damping, dt2, 2, True)
    elif d == 2:
        _advance(pos, prev, inv_mass, gravity, extra, damping, dt2, 2, False)
    elif has_extra:
        _advance(pos, prev, inv_mass, gravity, extra, damping, dt2, d, True)
    else:
        _advance(pos, prev, inv_mass, gravity, extra, damping, dt2, d, False)


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
