"""Repel: push every dot away from the pointer and the click rings, and ease its colour.

Reads: Pointer, DotGrid.origin, Repulsion, Shockwaves, DotColours, Frame.dt.
Writes: DotGrid.offset, DotGrid.velocity (inertia only), DotGrid.colour, Repulsion.last.

Three pushes are summed per dot each step, all directed from their source to the
dot's rest position (seed 000, section 03):
1. static — within `proximity` of the pointer, max_push·(1 − d/proximity);
2. velocity — when the pointer moved fast since the previous step (speed factor
   min(speed/speed_trigger, 1) above `threshold`), within reach·proximity,
   share·max_push·(1 − d/(reach·proximity))·factor: a swipe shoves a wider ring;
3. shockwave — each live ring of radius speed·age (age = its steps·dt, set by the
   ripple system, which runs first) pushes the dots within `band` of its front by
   strength·(1 − age)·(1 − |d − radius|/band), like a water ripple.
The largest of the pushes' factors is the colour force; the colour's target is
base + (active − base)·force, and the colour closes `ease` of the gap each step
so it never jumps. The seed sets the offset to the sum outright; with `inertia`
a damped spring chases the sum instead, so dots overshoot and ring back to rest.
When the pointer is outside the window only the rings act.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components.dots import DotColours, DotGrid, Repulsion, Shockwaves
from ropework.components.pointer import Pointer
from ropework.systems.services.kernels import kernel


@kernel()
def repel(origin, offset, velocity, colour,
          px, py, pointer_on, speed_factor,
          proximity, max_push, reach, share, threshold, colour_share,
          ring_x, ring_y, ring_steps, ring_alive, ring_speed, band, strength,
          base, active, ease, inertia, spring, spring_damping, dt):
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
            age = ring_steps[r] * dt
            radius = ring_speed * age
            inner = max(0.0, radius - band)
            live[k, 0] = ring_x[r]
            live[k, 1] = ring_y[r]
            live[k, 2] = radius
            live[k, 3] = inner * inner
            live[k, 4] = (radius + band) ** 2
            live[k, 5] = 1.0 - age
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
        if inertia:
            vx = velocity[i, 0] + (spring * (tx - offset[i, 0]) - spring_damping * velocity[i, 0]) * dt
            vy = velocity[i, 1] + (spring * (ty - offset[i, 1]) - spring_damping * velocity[i, 1]) * dt
            velocity[i, 0] = vx
            velocity[i, 1] = vy
            offset[i, 0] += vx * dt
            offset[i, 1] += vy * dt
        else:
            offset[i, 0] = tx
            offset[i, 1] = ty
        if force > 0.0 or colour[i, 0] != base[0] or colour[i, 1] != base[1] or colour[i, 2] != base[2]:
            for q in range(3):
                target = base[q] + (active[q] - base[q]) * force
                colour[i, q] += (target - colour[i, q]) * ease


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
                  rings.x, rings.y, rings.steps, rings.alive, rings.speed, rings.band, rings.strength,
                  col.base, col.active, col.ease, rep.inertia, rep.spring, rep.spring_damping, frame.dt)
