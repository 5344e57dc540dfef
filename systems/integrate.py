"""Integrate: advance every free point one Verlet step.

Reads: Points, Forces, Extras (optional), Frame.dt. Writes: Points.pos, Points.prev.
A body with `Compliance` is integrated substep by substep in relax (`project`), and a sleeping
body not at all.

x' = x + (x − x_prev)·damping + a·dt². Velocity is never stored: it is the gap
between position and previous position, so anything that moves a point (a drag,
a constraint, a pin) also sets its velocity. Pinned points (inv_mass 0) are
skipped; their pins own them.

The kernel walks the coordinates as one flat run (pos and prev are C-contiguous)
without a branch — a pinned point keeps its own bits by selection — so LLVM
vectorises the 2-D one; the arithmetic is the formula's, in its order, in every lane.
"""
from __future__ import annotations

import functools

import esper
import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from ropework.components import Forces, Points
from ropework.components.solve import Extras
from ropework.systems.services import split
from ropework.systems.services.kernels import kernel, select
from ropework.systems.services.settle import wake_if_touched

_NO_EXTRA = np.zeros((0, 3), np.float32)


@intrinsic
def _flat(typingctx, a):
    """A 1-D view of a C-contiguous array: the same data, pointer and owner. numba's reshape
    would do, but compiles its shape-checking code into every first run (≈ 0.25 s CPU)."""
    if not isinstance(a, types.Array) or a.layout != "C":
        return None

    def codegen(context, builder, signature, args):
        from numba.np.arrayobj import make_array, populate_array  # here: a warm start never imports numba's array code
        src = make_array(signature.args[0])(context, builder, args[0])
        out = make_array(signature.return_type)(context, builder)
        size = functools.reduce(builder.mul, cgutils.unpack_tuple(builder, src.shape))
        populate_array(out, data=src.data, shape=[size], strides=[src.itemsize], itemsize=src.itemsize,
                       meminfo=src.meminfo, parent=src.parent)
        return impl_ret_borrowed(context, builder, signature.return_type, out._getvalue())
    return a.copy(ndim=1)(a), codegen


@numba.njit(inline="always")
def _advance(x, xp, k, free, a, damping, dt2):
    """Coordinate k of one point: the Verlet step if ``free``, else both values kept, by
    selection (a branch here, numba's ``if``/``else``, keeps LLVM from vectorising)."""
    now = x[k]
    before = xp[k]
    v = (now - before) * damping
    x[k] = select(free, np.float32(now + v + a * dt2), now)
    xp[k] = select(free, now, before)


def _integrate_kernel(two: bool, extra: bool):
    """`integrate` for 2-D points if ``two`` (else any d), with per-point accelerations if
    ``extra``. Both are frozen into the kernel as constants, so numba compiles one branch-free
    loop over the flat coordinates, and only for the variants a scene calls. The 2-D loop
    names both coordinates of a point: LLVM vectorises that one, not a loop over d."""
    def advance(pos, prev, inv_mass, gravity, extra_acc, damping, dt):
        x = _flat(pos)
        xp = _flat(prev)
        ex = _flat(extra_acc)
        dt2 = dt * dt
        if two:
            g0 = gravity[0]
            g1 = gravity[1]
            for i in range(pos.shape[0]):
                free = inv_mass[i] != 0.0
                a0 = g0
                a1 = g1
                if extra:
                    a0 += ex[2 * i]
                    a1 += ex[2 * i + 1]
                _advance(x, xp, 2 * i, free, a0, damping, dt2)
                _advance(x, xp, 2 * i + 1, free, a1, damping, dt2)
        else:
            dd = pos.shape[1]
            for i in range(pos.shape[0]):
                free = inv_mass[i] != 0.0
                for q in range(dd):
                    k = i * dd + q
                    a = gravity[q]
                    if extra:
                        a += ex[k]
                    _advance(x, xp, k, free, a, damping, dt2)
    advance.__name__ = advance.__qualname__ = f"_integrate{2 if two else 'd'}{'_extra' if extra else ''}"
    return kernel()(advance)


_INTEGRATE = {(two, extra): _integrate_kernel(two, extra) for two in (True, False) for extra in (False, True)}


def integrate(pos, prev, inv_mass, gravity, extra, damping, dt):
    """One Verlet step in place. pos, prev: C-contiguous float32[n, d]; extra: float32[n, d]
    per-point acceleration, or 0 rows."""
    _INTEGRATE[pos.shape[1] == 2, extra.shape[0] == pos.shape[0]](pos, prev, inv_mass, gravity, extra, damping, dt)


def integrate_split(pos, prev, inv_mass, gravity, extra, damping, dt) -> None:
    """`integrate` on `split.threads` threads, in row ranges of `split.PIECE_POINTS` points:
    each point's step reads only its own row, so the bits are `integrate`'s."""
    n = pos.shape[0]
    has_extra = extra.shape[0] == n
    split.run((integrate, (pos[a:b], prev[a:b], inv_mass[a:b], gravity, extra[a:b] if has_extra else extra[:0],
                           damping, dt)) for a, b in split.pieces(n))


class Integrate(esper.Processor):
    def process(self, frame):
        extras = esper.get_component(Extras)   # esper caches the query: [] in a scene without any
        for ent, (pts, f) in esper.get_components(Points, Forces):
            if extras:
                ex = esper.try_component(ent, Extras)
                if ex is not None and (ex.compliance is not None or not wake_if_touched(ent, pts, ex)):
                    continue                  # substepped in relax (`project`), or asleep
            extra = f.extra if f.extra is not None else _NO_EXTRA
            if len(pts.pos) >= split.PARALLEL_POINTS and split.threads() > 1:
                integrate_split(pts.pos, pts.prev, pts.inv_mass, f.gravity, extra, f.damping, frame.dt)
            else:   # `integrate`'s kernel, called straight: a small scene's step is a few µs
                _INTEGRATE[pts.pos.shape[1] == 2, extra.shape[0] == pts.pos.shape[0]](
                    pts.pos, pts.prev, pts.inv_mass, f.gravity, extra, f.damping, frame.dt)
