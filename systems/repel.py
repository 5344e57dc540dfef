"""Repel: push every dot away from the pointer and the click rings, and ease its colour.

Reads: Pointer, DotGrid.origin, Repulsion, Shockwaves, DotColours, Frame.dt.
Writes: DotGrid.offset, DotGrid.velocity (inertia only), DotGrid.colour, Repulsion.last.

Three pushes are summed per dot each step, all directed from their source to the
dot's rest position (seed 000, section 03):
1. static — within `proximity` of the pointer, max_push·(1 − d/proximity);
2. velocity — when the pointer moved fast since the previous step (speed factor
   min(speed/speed_trigger, 1) above `threshold`), within reach·proximity,
   share·max_push·(1 − d/(reach·proximity))·factor: a swipe shoves a wider ring;
3. shockwave — each live ring of radius speed·age pushes the dots within `band`
   of its front by strength·(1 − age)·(1 − |d − radius|/band), like a water ripple.
The largest of the pushes' factors is the colour force; the colour's target is
base + (active − base)·force, and the colour closes `ease` of the gap each step
so it never jumps. The seed sets the offset to the sum outright; with `inertia`
a damped spring chases the sum instead, so dots overshoot and ring back to rest.
The spring is stepped exactly (`spring_step`: the matrix exponential of
x'' = k·(target − x) − c·x' over one step, the target held for the step), so
it is stable for every stiffness and damping the schema allows: an explicit
Euler step goes non-finite once c·dt or k·dt² passes about 2.
When the pointer is outside the window only the rings act.
"""
from __future__ import annotations

import math
from functools import lru_cache

import esper
import numpy as np

from ropework.components.dots import DotColours, DotGrid, Repulsion, Shockwaves
from ropework.components.pointer import Pointer
from ropework.systems.services.kernels import kernel


@kernel()
def repel(origin, offset, velocity, colour,
          px, py, pointer_on, speed_factor,
          proximity, max_push, reach, share, threshold, colour_share,
          ring_x, ring_y, ring_age, ring_alive, ring_speed, band, strength,
          base, active, ease, inertia, p00, p01, p10, p11):
    """One step for every dot, in place. Direction from a source at the dot's own
    position is +x (the seed's atan2(0, 0) = 0). Distances are compared squared
    first, so a dot out of every source's reach costs no square root."""
    n = origin.shape[0]
    far = proximity * reach
    swipe = pointer_on and speed_factor > threshold
    reach2 = max(proximity, far if swipe else 0.0) ** 2 if pointer_on else -1.0
    # the live rings, each as centre, radius, band edges² and fade (1 − age)
    live = np.empty((ring_alive.shape[0], 6))
    k = 0
    for r in range(ring_alive.shape[0]):
        if ring_alive[r]:
            radius = ring_speed * ring_age[r]
            inner = max(0.0, radius - band)
            live[k, 0] = ring_x[r]
            live[k, 1] = ring_y[r]
            live[k, 2] = radius
            live[k, 3] = inner * inner
            live[k, 4] = (radius + band) ** 2
            live[k, 5] = 1.0 - ring_age[r]
            k += 1
    for i in range(n):
        ox = origin[i, 0]
        oy = origin[i, 1]
        tx = 0.0
        ty = 0.0
        force = 0.0
        dx = ox - px
        dy = oy - py
        d2 = dx * dx + dy * dy
        if d2 < reach2:
            d = math.sqrt(d2)
            ux, uy = 1.0, 0.0
            if d > 0.0:
                ux = dx / d
                uy = dy / d
            if d < proximity:
                f = 1.0 - d / proximity
                tx += ux * max_push * f
                ty += uy * max_push * f
                force = max(force, f)
            if swipe and d < far:
                f = (1.0 - d / far) * speed_factor
                tx += ux * max_push * share * f
                ty += uy * max_push * share * f
                force = max(force, f * colour_share)
        for r in range(k):
            dx = ox - live[r, 0]
            dy = oy - live[r, 1]
            d2 = dx * dx + dy * dy
            if d2 < live[r, 4] and d2 > live[r, 3]:
                d = math.sqrt(d2)
                f = live[r, 5] * (1.0 - abs(d - live[r, 2]) / band)
                tx += dx / d * strength * f
                ty += dy / d * strength * f
                force = max(force, f)
        if inertia:                           # (offset − target, velocity) ← P · (offset − target, velocity)
            ex = offset[i, 0] - tx
            ey = offset[i, 1] - ty
            vx = velocity[i, 0]
            vy = velocity[i, 1]
            offset[i, 0] = tx + p00 * ex + p01 * vx
            offset[i, 1] = ty + p00 * ey + p01 * vy
            velocity[i, 0] = p10 * ex + p11 * vx
            velocity[i, 1] = p10 * ey + p11 * vy
        else:
            offset[i, 0] = tx
            offset[i, 1] = ty
        if force > 0.0 or colour[i, 0] != base[0] or colour[i, 1] != base[1] or colour[i, 2] != base[2]:
            for q in range(3):
                target = base[q] + (active[q] - base[q]) * force
                colour[i, q] += (target - colour[i, q]) * ease


TAYLOR_NORM = 0.25   # the scaled matrix's norm at most before its Taylor series: 12 terms reach float64 precision
TAYLOR_TERMS = 12


@lru_cache(maxsize=64)   # the same three numbers every step of a scene
def spring_step(k: float, c: float, dt: float) -> tuple[float, float, float, float]:
    """P = exp(M·dt), M = [[0, 1], [−k, −c]]: one exact step of a damped spring of stiffness ``k`` (1/s²)
    and damping ``c`` (1/s) about a fixed target, as (P00, P01, P10, P11) acting on (x − target, v).

    Scaling and squaring: M·dt is halved until small, summed as a Taylor series, then
    squared back. Its eigenvalues have negative real parts for c > 0, so no step grows.
    """
    m = np.array([[0.0, 1.0], [-k, -c]], np.float64) * dt
    norm = float(np.abs(m).sum(axis=1).max())
    halvings = max(0, math.ceil(math.log2(norm / TAYLOR_NORM))) if norm > TAYLOR_NORM else 0
    a = m / 2.0 ** halvings
    term = np.identity(2)
    out = np.identity(2)
    for n in range(1, TAYLOR_TERMS + 1):
        term = term @ a / n
        out = out + term
    for _ in range(halvings):
        out = out @ out
    return float(out[0, 0]), float(out[0, 1]), float(out[1, 0]), float(out[1, 1])


def pointer_speed(ptr: Pointer, rep: Repulsion) -> float:
    """Distance the pointer moved since the previous step, px; 0 on the step it enters."""
    if not (ptr.inside and rep.last[2] > 0.0):
        return 0.0
    return math.hypot(ptr.x - rep.last[0], ptr.y - rep.last[1])


class Repel(esper.Processor):
    def process(self, frame):
        ptr = next((p for _, p in esper.get_component(Pointer)), Pointer())
        for _, (grid, rep, rings, col) in esper.get_components(DotGrid, Repulsion, Shockwaves, DotColours):
            factor = min(pointer_speed(ptr, rep) / rep.speed_trigger, 1.0)
            rep.last[:] = (ptr.x, ptr.y, 1.0 if ptr.inside else 0.0)
            repel(grid.origin, grid.offset, grid.velocity, grid.colour,
                  float(ptr.x), float(ptr.y), bool(ptr.inside), factor,
                  rep.proximity, rep.max_push, rep.reach, rep.share, rep.threshold, rep.colour_share,
                  rings.x, rings.y, rings.age, rings.alive, rings.speed, rings.band, rings.strength,
                  col.base, col.active, col.ease, rep.inertia,
                  *(spring_step(rep.spring, rep.spring_damping, frame.dt) if rep.inertia else (0.0, 0.0, 0.0, 0.0)))
