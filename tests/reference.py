"""Plain sequential reference: the seeds' rope loop, point by point, in pure Python.

Slow and obvious on purpose. The tests check the engine against it (stiffness,
formulas), and the benchmark times it as the "pure-Python port" peer.
"""
from __future__ import annotations

import math


class RefRope:
    """One rope as lists: x, y, px, py per point; pinned flags."""

    def __init__(self, xs, ys, pinned):
        self.x, self.y = list(xs), list(ys)
        self.px, self.py = list(xs), list(ys)
        self.pinned = list(pinned)


def integrate(rope: RefRope, gx: float, gy: float, damping: float, dt: float) -> None:
    for i in range(len(rope.x)):
        if rope.pinned[i]:
            continue
        vx = (rope.x[i] - rope.px[i]) * damping
        vy = (rope.y[i] - rope.py[i]) * damping
        rope.px[i], rope.py[i] = rope.x[i], rope.y[i]
        rope.x[i] += vx + gx * dt * dt
        rope.y[i] += vy + gy * dt * dt


def relax(rope: RefRope, rest: float, box=None) -> None:
    """One Gauss-Seidel pass along the chain; a pinned end gives the whole correction
    to its neighbour; then clamp free points into box = (x0, y0, x1, y1)."""
    x, y, pin = rope.x, rope.y, rope.pinned
    for i in range(len(x) - 1):
        j = i + 1
        wi, wj = (0.0 if pin[i] else 1.0), (0.0 if pin[j] else 1.0)
        if wi + wj == 0:
            continue
        dx, dy = x[j] - x[i], y[j] - y[i]
        d = math.hypot(dx, dy) or 1e-4
        f = (d - rest) / d / (wi + wj)
        x[i] += dx * f * wi
        y[i] += dy * f * wi
        x[j] -= dx * f * wj
        y[j] -= dy * f * wj
    if box is not None:
        x0, y0, x1, y1 = box
        for i in range(len(x)):
            if not pin[i]:
                x[i] = min(max(x[i], x0), x1)
                y[i] = min(max(y[i], y0), y1)


def step(ropes, rest, passes, gx=0.0, gy=900.0, damping=0.995, dt=1 / 60, box=None) -> None:
    """One full step of every rope: integrate, then `passes` relaxation passes."""
    for r in ropes:
        integrate(r, gx, gy, damping, dt)
        for _ in range(passes):
            relax(r, rest, box)


def max_stretch(ropes, rest) -> float:
    """Largest |segment length − rest| / rest over all ropes."""
    worst = 0.0
    for r in ropes:
        for i in range(len(r.x) - 1):
            d = math.hypot(r.x[i + 1] - r.x[i], r.y[i + 1] - r.y[i])
            worst = max(worst, abs(d - rest) / rest)
    return worst
