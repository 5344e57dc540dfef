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
The spring is stepped exactly (`spring_step`: the matrix exponential of
x'' = k·(target − x) − c·x' over one step, the target held for the step), so
it is stable for every stiffness and damping the schema allows: an explicit
Euler step goes non-finite once c·dt or k·dt² passes about 2.
When the pointer is outside the window only the rings act.

The jelly model (a `Jelly` component, present only when a level turns
on `tension`, `return_duration`, `stretch` or travelling rings): the same pushes
make each dot's target; a damped spring carries the dot toward it, integrated
exactly over the step (`spring_step`: the matrix exponential of the spring, so
any stiffness and damping is stable), and each dot's offset and velocity then
close `tension` of the gap to their four neighbours' mean (read from before
the coupling), so a push travels through the grid. Travelling rings
(`TravellingRings`) replace the band: a front running out at `speed`, a cosine
bump `width` px across, its push strength·(1 − front/radius). A dot within
REST_OFFSET of its target and slower than REST_SPEED counts as calm; once every
dot is, the whole grid is set exactly on its targets, so a calm grid comes to a
true rest (dot by dot, it would clip the faint front of a push travelling out).

Sleep (`DotSleep`): a step that changed nothing, with no ring alive, would be
repeated exactly by the next one with the same pointer input; so while the
input stays the same the kernel is not called at all.
"""
from __future__ import annotations

import cmath
import math
from functools import lru_cache

import esper
import numba
import numpy as np

from ropework.components.dotgrid import DotColours, DotGrid, DotSleep, Jelly, Repulsion, Shockwaves, TravellingRings
from ropework.components.pointer import Pointer
from ropework.systems.services.kernels import kernel

REST_OFFSET = 1e-3   # px from its target under which a slow dot counts as calm: a thousandth of a pixel
REST_SPEED = 1e-2    # px/s under which a dot that close counts as still


@numba.njit(inline="always")
def pointer_push(ox, oy, px, py, reach2, proximity, far, swipe, max_push, share, speed_factor, colour_share):
    """(push x, push y, colour force) of the pointer on the dot at (ox, oy): the static push within
    ``proximity`` and, on a swipe, the wider one within ``far``. Direction from a source at the
    dot's own position is +x (the seed's atan2(0, 0) = 0). Shared by the seed and jelly kernels."""
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
            force = f if f > force else force
        if swipe and d < far:
            f = (1.0 - d / far) * speed_factor
            tx += ux * max_push * share * f
            ty += uy * max_push * share * f
            g = f * colour_share
            force = g if g > force else force
    return tx, ty, force


def _seed_kernel(inertia: bool):
    """`repel` with the damped spring (``inertia``) or the seed's offsets set outright; the
    choice is frozen into the kernel, so numba compiles only the branch a level uses."""
    def repel(origin, offset, velocity, colour, live,
              px, py, pointer_on, speed_factor,
              proximity, max_push, reach, share, threshold, colour_share,
              ring_x, ring_y, ring_steps, ring_alive, ring_speed, band, strength,
              base, active, ease, p00, p01, p10, p11, dt):
        """One step for every dot, in place; ``live``: float64[rings, 6], scratch for the live
        rings. Direction from a source at the dot's own position is +x (the seed's atan2(0, 0)
        = 0). Distances are compared squared first, so a dot out of every source's reach costs
        no square root. Returns whether any offset, velocity or colour changed."""
        n = origin.shape[0]
        changed = False
        far = proximity * reach
        swipe = pointer_on and speed_factor > threshold
        near = far if swipe and far > proximity else proximity
        reach2 = near * near if pointer_on else -1.0
        # the live rings, each as centre, radius, band edges² and fade (1 − age)
        k = 0
        for r in range(ring_alive.shape[0]):
            if ring_alive[r]:
                age = ring_steps[r] * dt
                radius = ring_speed * age
                inner = radius - band
                if not inner > 0.0:
                    inner = 0.0
                outer = radius + band
                live[k, 0] = ring_x[r]
                live[k, 1] = ring_y[r]
                live[k, 2] = radius
                live[k, 3] = inner * inner
                live[k, 4] = outer * outer
                live[k, 5] = 1.0 - age
                k += 1
        for i in range(n):
            ox = origin[i, 0]
            oy = origin[i, 1]
            tx, ty, force = pointer_push(ox, oy, px, py, reach2, proximity, far, swipe, max_push, share,
                                         speed_factor, colour_share)
            for r in range(k):
                dx = ox - live[r, 0]
                dy = oy - live[r, 1]
                d2 = dx * dx + dy * dy
                if d2 < live[r, 4] and d2 > live[r, 3]:
                    d = math.sqrt(d2)
                    f = live[r, 5] * (1.0 - abs(d - live[r, 2]) / band)
                    tx += dx / d * strength * f
                    ty += dy / d * strength * f
                    force = f if f > force else force
            was_x, was_y = offset[i, 0], offset[i, 1]
            if inertia:                           # (offset − target, velocity) ← P · (offset − target, velocity)
                ex = offset[i, 0] - tx
                ey = offset[i, 1] - ty
                vx = p10 * ex + p11 * velocity[i, 0]
                vy = p10 * ey + p11 * velocity[i, 1]
                offset[i, 0] = tx + p00 * ex + p01 * velocity[i, 0]
                offset[i, 1] = ty + p00 * ey + p01 * velocity[i, 1]
                changed |= vx != velocity[i, 0] or vy != velocity[i, 1]
                velocity[i, 0] = vx
                velocity[i, 1] = vy
            else:
                offset[i, 0] = tx
                offset[i, 1] = ty
            changed |= offset[i, 0] != was_x or offset[i, 1] != was_y
            if force > 0.0 or colour[i, 0] != base[0] or colour[i, 1] != base[1] or colour[i, 2] != base[2]:
                for q in range(3):
                    target = base[q] + (active[q] - base[q]) * force
                    was = colour[i, q]
                    colour[i, q] += (target - colour[i, q]) * ease
                    changed |= colour[i, q] != was
        return changed
    repel.__name__ = repel.__qualname__ = "repel_inertia" if inertia else "repel"
    return kernel()(repel)


REPEL = {inertia: _seed_kernel(inertia) for inertia in (False, True)}   # the seed's grid, by `Repulsion.inertia`


def pointer_speed(ptr: Pointer, rep: Repulsion) -> float:
    """Distance the pointer moved since the previous step, px; 0 on the step it enters."""
    if not (ptr.inside and rep.last[2] > 0.0):
        return 0.0
    return math.hypot(ptr.x - rep.last[0], ptr.y - rep.last[1])


@lru_cache(maxsize=64)   # the same three numbers every step of a scene; the matrix is only read
def spring_step(stiffness: float, damping: float, dt: float) -> np.ndarray:
    """float64[2, 2]: the exact map of x'' = −stiffness·x − damping·x' over dt on (x, x').

    exp(A·dt) for A = [[0, 1], [−k, −c]], by its eigen-decomposition in closed form:
    e^{s·dt}·(cosh(q·dt)·I + sinh(q·dt)/q·(A − s·I)), s = −c/2, q = √(s² − k), complex
    when the spring is under-damped; sinh(q·dt)/q → dt as q → 0 (critical damping).
    """
    a = np.array([[0.0, 1.0], [-stiffness, -damping]])
    s = -damping / 2.0
    q = cmath.sqrt(s * s - stiffness)
    qt = q * dt
    sinhc = dt if abs(qt) < 1e-8 else cmath.sinh(qt) / q
    m = cmath.exp(s * dt) * (cmath.cosh(qt) * np.identity(2) + sinhc * (a - s * np.identity(2)))
    out = np.ascontiguousarray(m.real)
    out.flags.writeable = False           # cached and shared: nobody may change it
    return out


def spring_constants(bounce: float, duration: float) -> tuple[float, float]:
    """(stiffness 1/s², damping 1/s) of a spring that returns in ``duration`` s with ``bounce``.

    As SwiftUI's and Motion's springs: ω = 2π/duration, damping ratio ζ = 1 − bounce
    (bounce 0: critically damped, no overshoot; toward 1: rings longer and longer).
    """
    omega = 2.0 * math.pi / duration
    return omega * omega, 2.0 * (1.0 - bounce) * omega


def _jelly_kernel(travel: bool):
    """`repel_jelly` for travelling rings (``travel``) or the seed's band, frozen into the
    kernel as a constant: numba compiles only the ring a level uses."""
    def repel_jelly(origin, offset, velocity, colour, scratch, live,
                    px, py, pointer_on, speed_factor,
                    proximity, max_push, reach, share, threshold, colour_share,
                    ring_x, ring_y, ring_steps, ring_alive, ring_speed, band, strength,
                    front_speed, front_width, front_radius, front_strength,
                    base, active, ease, m00, m01, m10, m11, dt):
        """One jelly step for every dot, in place: the pushes give each dot's target
        (kept in scratch[:, 0:2]), the exact spring map carries (offset, velocity) toward
        it, colours ease as the seed's; ``live``: float64[rings, 6], scratch for the live
        rings. Returns (whether any offset, velocity or colour changed, whether every dot
        is now within REST_OFFSET of its target and slower than REST_SPEED)."""
        n = origin.shape[0]
        changed = False
        calm = True
        far = proximity * reach
        swipe = pointer_on and speed_factor > threshold
        near = far if swipe and far > proximity else proximity
        reach2 = near * near if pointer_on else -1.0
        k = 0
        for r in range(ring_alive.shape[0]):
            if not ring_alive[r]:
                continue
            age = ring_steps[r] * dt          # the ring's age, as the seed kernel's: steps·dt seconds
            if travel:
                radius = front_speed * age
                if radius >= front_radius:
                    continue
                half = front_width * 0.5
                fade = 1.0 - radius / front_radius
            else:
                radius = ring_speed * age
                half = band
                fade = 1.0 - age
            inner = radius - half
            if not inner > 0.0:
                inner = 0.0
            outer = radius + half
            live[k, 0] = ring_x[r]
            live[k, 1] = ring_y[r]
            live[k, 2] = radius
            live[k, 3] = inner * inner
            live[k, 4] = outer * outer
            live[k, 5] = fade
            k += 1
        half = front_width * 0.5 if travel else band
        push = front_strength if travel else strength
        for i in range(n):
            ox = origin[i, 0]
            oy = origin[i, 1]
            tx, ty, force = pointer_push(ox, oy, px, py, reach2, proximity, far, swipe, max_push, share,
                                         speed_factor, colour_share)
            for r in range(k):
                dx = ox - live[r, 0]
                dy = oy - live[r, 1]
                d2 = dx * dx + dy * dy
                if d2 < live[r, 4] and d2 > live[r, 3]:
                    d = math.sqrt(d2)
                    u = (d - live[r, 2]) / half
                    if travel:
                        f = live[r, 5] * 0.5 * (1.0 + math.cos(math.pi * u))
                    else:
                        f = live[r, 5] * (1.0 - abs(u))
                    tx += dx / d * push * f
                    ty += dy / d * push * f
                    force = f if f > force else force
            scratch[i, 0] = tx
            scratch[i, 1] = ty
            ex = offset[i, 0] - tx
            ey = offset[i, 1] - ty
            vx = velocity[i, 0]
            vy = velocity[i, 1]
            nx = tx + m00 * ex + m01 * vx
            ny = ty + m00 * ey + m01 * vy
            nvx = m10 * ex + m11 * vx
            nvy = m10 * ey + m11 * vy
            calm &= (abs(nx - tx) < REST_OFFSET and abs(ny - ty) < REST_OFFSET
                     and abs(nvx) < REST_SPEED and abs(nvy) < REST_SPEED)
            was = (offset[i, 0], offset[i, 1], velocity[i, 0], velocity[i, 1])
            offset[i, 0] = nx
            offset[i, 1] = ny
            velocity[i, 0] = nvx
            velocity[i, 1] = nvy
            changed |= (offset[i, 0] != was[0] or offset[i, 1] != was[1]
                        or velocity[i, 0] != was[2] or velocity[i, 1] != was[3])
            if force > 0.0 or colour[i, 0] != base[0] or colour[i, 1] != base[1] or colour[i, 2] != base[2]:
                for q in range(3):
                    target = base[q] + (active[q] - base[q]) * force
                    c = colour[i, q]
                    colour[i, q] += (target - colour[i, q]) * ease
                    changed |= colour[i, q] != c
        return changed, calm
    repel_jelly.__name__ = repel_jelly.__qualname__ = "repel_jelly_travel" if travel else "repel_jelly"
    return kernel()(repel_jelly)


REPEL_JELLY = {travel: _jelly_kernel(travel) for travel in (False, True)}   # by whether rings travel


@kernel()
def couple(offset, velocity, scratch, cols, rows, tension):
    """Pull each dot's offset and velocity `tension` of the way to its four neighbours'
    mean (fewer at the edges), all from the values before this pass (Jacobi). Returns
    (whether anything moved, whether every dot is at rest on its target, scratch[:, 0:2])."""
    n = offset.shape[0]
    for i in range(n):
        scratch[i, 2] = offset[i, 0]
        scratch[i, 3] = offset[i, 1]
        scratch[i, 4] = velocity[i, 0]
        scratch[i, 5] = velocity[i, 1]
    changed = False
    calm = True
    for i in range(n):
        c = i % cols
        r = i // cols
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        m = 0
        for j in (i - 1 if c > 0 else -1, i + 1 if c + 1 < cols else -1,
                  i - cols if r > 0 else -1, i + cols if r + 1 < rows else -1):
            if j >= 0:
                s0 += scratch[j, 2]
                s1 += scratch[j, 3]
                s2 += scratch[j, 4]
                s3 += scratch[j, 5]
                m += 1
        if m == 0:
            ox, oy, vx, vy = scratch[i, 2], scratch[i, 3], scratch[i, 4], scratch[i, 5]
            m = 1
            s0, s1, s2, s3 = ox, oy, vx, vy
        ox = scratch[i, 2] + tension * (s0 / m - scratch[i, 2])
        oy = scratch[i, 3] + tension * (s1 / m - scratch[i, 3])
        vx = scratch[i, 4] + tension * (s2 / m - scratch[i, 4])
        vy = scratch[i, 5] + tension * (s3 / m - scratch[i, 5])
        calm &= (abs(ox - scratch[i, 0]) < REST_OFFSET and abs(oy - scratch[i, 1]) < REST_OFFSET
                 and abs(vx) < REST_SPEED and abs(vy) < REST_SPEED)
        offset[i, 0] = ox
        offset[i, 1] = oy
        velocity[i, 0] = vx
        velocity[i, 1] = vy
        changed |= (offset[i, 0] != scratch[i, 2] or offset[i, 1] != scratch[i, 3]
                    or velocity[i, 0] != scratch[i, 4] or velocity[i, 1] != scratch[i, 5])
    return changed, calm


def kernels_for(ent) -> tuple:
    """The kernels the grid ``ent`` (of the current world) steps with, in call order: its variant of
    `repel` or `repel_jelly`, then `couple` when it has tension. Only these compile for a scene."""
    jelly = esper.try_component(ent, Jelly)
    if jelly is None:
        return (REPEL[bool(esper.component_for_entity(ent, Repulsion).inertia)],)
    step = REPEL_JELLY[esper.has_component(ent, TravellingRings)]
    return (step, couple) if jelly.tension > 0.0 else (step,)


class Repel(esper.Processor):
    def process(self, frame):
        ptr = next((p for _, p in esper.get_component(Pointer)), Pointer())
        for ent, (grid, rep, rings, col) in esper.get_components(DotGrid, Repulsion, Shockwaves, DotColours):
            factor = min(pointer_speed(ptr, rep) / rep.speed_trigger, 1.0)
            rep.last[:] = (ptr.x, ptr.y, 1.0 if ptr.inside else 0.0)
            sleep = esper.try_component(ent, DotSleep)
            inputs = (float(ptr.x), float(ptr.y), bool(ptr.inside), factor) if ptr.inside else (False,)
            if sleep is not None and sleep.asleep and sleep.inputs == inputs and not rings.alive.any():
                continue                       # the same input on an unchanged grid: the same step again
            jelly = esper.try_component(ent, Jelly)
            step = kernels_for(ent)[0]
            live = np.empty((rings.alive.shape[0], 6))   # the kernels' table of live rings
            if jelly is None:
                changed = step(
                    grid.origin, grid.offset, grid.velocity, grid.colour, live,
                    float(ptr.x), float(ptr.y), bool(ptr.inside), factor,
                    rep.proximity, rep.max_push, rep.reach, rep.share, rep.threshold,
                    rep.colour_share, rings.x, rings.y, rings.steps, rings.alive, rings.speed,
                    rings.band, rings.strength, col.base, col.active, col.ease,
                    *(spring_step(rep.spring, rep.spring_damping, frame.dt).ravel() if rep.inertia
                      else (0.0, 0.0, 0.0, 0.0)), frame.dt)
            else:
                front = esper.try_component(ent, TravellingRings) or TravellingRings(1.0, 1.0, 1.0, 0.0)
                m = jelly.step
                changed = step(
                    grid.origin, grid.offset, grid.velocity, grid.colour, jelly.scratch, live,
                    float(ptr.x), float(ptr.y), bool(ptr.inside), factor,
                    rep.proximity, rep.max_push, rep.reach, rep.share, rep.threshold,
                    rep.colour_share, rings.x, rings.y, rings.steps, rings.alive, rings.speed,
                    rings.band, rings.strength, front.speed, front.width, front.radius, front.strength,
                    col.base, col.active, col.ease, m[0, 0], m[0, 1], m[1, 0], m[1, 1], frame.dt)
                changed, calm = changed
                if jelly.tension > 0.0:
                    moved, calm = couple(grid.offset, grid.velocity, jelly.scratch, grid.cols, grid.rows,
                                         jelly.tension)
                    changed |= moved
                if calm and changed:         # every dot a hair from rest: put them on it, so the grid can sleep
                    grid.offset[:] = jelly.scratch[:, :2]
                    grid.velocity[:] = 0.0
            if sleep is not None:
                sleep.runs += 1
                sleep.version += bool(changed)
                sleep.asleep = not changed and not rings.alive.any()   # a live ring ages: never the same step
                sleep.inputs = inputs
