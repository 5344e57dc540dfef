"""Plain sequential references, point by point, in pure Python: slow and obvious on purpose.

Two kinds live here:

- The standard workloads' loop (`relax`, `step`): ../shared/perf/WORKLOADS.md's rule, where a
  pinned end gives the WHOLE correction to its neighbour. The benchmark times it as the
  "pure-Python port" peer and the workloads' figures were measured with it; it is not any
  seed's rope.
- Transcriptions of each seed's own loop, as its code reads (where a seed's prose and code
  disagree, the code is the toy): seed 001's `relax()` and frame (`Seed001`), seed 000 §03's
  dot loop (`Dots000`), seed 000 §04's `physicsStep()` and the card's spring-back
  (`Strap000`), seed 002's constraint passes (`relax_002`). The tests step them beside the engine on the same inputs.
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
    """One Gauss-Seidel pass of the WORKLOADS.md rule: half the error to each free end, the
    whole of it to the free end of a link whose other end is pinned; then clamp free points
    into box = (x0, y0, x1, y1)."""
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
    """One full step of every rope under the WORKLOADS.md rule: integrate, then `passes` passes."""
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


def longest_link(ropes) -> float:
    """The longest segment over all ropes, in their units."""
    return max(math.hypot(r.x[i + 1] - r.x[i], r.y[i + 1] - r.y[i]) for r in ropes for i in range(len(r.x) - 1))


# ── seed 001: VerletRope.tsx ─────────────────────────────────────────────────

class Seed001:
    """Seed 001's ropes and frame, as its code does it: ``ropes`` are `RefRope`s (point 0
    pinned), the box is the canvas w × h, `held` is (rope, point) or None."""

    GRAVITY, SEGMENT, ITERATIONS, DAMPING, GRAB_RADIUS = 900.0, 11.0, 14, 0.995, 46.0

    def __init__(self, ropes, w: float, h: float):
        self.ropes, self.w, self.h = ropes, w, h
        self.held = None

    def grab(self, x: float, y: float) -> None:
        """Pointer-down: the nearest unpinned point within GRAB_RADIUS (strictly nearer wins)."""
        best, found = self.GRAB_RADIUS, None
        for ri, r in enumerate(self.ropes):
            for pi in range(len(r.x)):
                if r.pinned[pi]:
                    continue
                d = math.hypot(r.x[pi] - x, r.y[pi] - y)
                if d < best:
                    best, found = d, (ri, pi)
        self.held = found

    def release(self) -> None:
        self.held = None

    def frame(self, px: float, py: float, inside: bool = True, dt: float = 1 / 60) -> None:
        """One frame: the held point teleported to the pointer, then each rope integrated and
        relaxed ITERATIONS times."""
        if self.held is not None and inside:
            r, i = self.ropes[self.held[0]], self.held[1]
            r.px[i], r.py[i] = r.x[i], r.y[i]
            r.x[i], r.y[i] = px, py
        elif not inside:
            self.held = None
        step_dt = min(dt, 1 / 60)
        for rope in self.ropes:
            self.integrate(rope, step_dt)
            for _ in range(self.ITERATIONS):
                self.relax(rope)

    def integrate(self, rope: RefRope, dt: float) -> None:
        for i in range(len(rope.x)):
            if rope.pinned[i]:
                continue
            vx = (rope.x[i] - rope.px[i]) * self.DAMPING
            vy = (rope.y[i] - rope.py[i]) * self.DAMPING
            rope.px[i], rope.py[i] = rope.x[i], rope.y[i]
            rope.x[i] += vx
            rope.y[i] += vy + self.GRAVITY * dt * dt

    def relax(self, rope: RefRope) -> None:
        """Seed 001's relax(): every pair moves half the error, a pinned end simply does not
        move (so its neighbour still moves only half); then the box clamp."""
        x, y, pin = rope.x, rope.y, rope.pinned
        for i in range(len(x) - 1):
            dx, dy = x[i + 1] - x[i], y[i + 1] - y[i]
            d = math.hypot(dx, dy) or 0.0001
            correction = (d - self.SEGMENT) / d / 2
            cx, cy = dx * correction, dy * correction
            if not pin[i]:
                x[i] += cx
                y[i] += cy
            if not pin[i + 1]:
                x[i + 1] -= cx
                y[i + 1] -= cy
        w, h = self.w, self.h
        for i in range(len(x)):
            if pin[i]:
                continue
            if x[i] < 2:
                x[i] = 2
            if x[i] > w - 2:
                x[i] = w - 2
            if y[i] > h - 2:
                y[i] = h - 2
            if y[i] < 2:
                y[i] = 2


# ── seed 000 §03: the dot grid ───────────────────────────────────────────────

class Dots000:
    """Seed 000 §03's frame over every dot, as its code does it: the three forces summed into
    the dot's offset, the colour force their largest factor, the colour's lerp.

    ``origin`` is a list of (x, y) dot centres. The clock counts steps: `click` stamps a shock
    with the step it comes in (the handler's ``performance.now()``), and `frame` reads the
    same clock, so a shock is ``(step − stamp)·dt`` seconds old, 0 in its click's own step.
    ``mouse`` is (x, y) or None (out of the window: no pointer force), ``prev`` the mouse at
    the previous step or None (its speed is then 0: entering the window is no swipe). A shock
    older than ``duration`` is spliced out of the list while the list is walked, inside the
    first dot's loop: the seed's ``forEach`` then skips, for that dot alone, the shock that
    moved into the freed index; `skipped` holds the dots of the last frame that so missed one.
    """

    PROXIMITY, MAX_PUSH, SPEED_TRIGGER, WAVE_WIDTH, EASE = 200.0, 5.0, 80.0, 75.0, 0.12
    BASE, ACTIVE = (240.0, 240.0, 240.0), (134.0, 234.0, 212.0)

    def __init__(self, origin, radius=250.0, strength=45.0, duration=0.85, band=None, dt=1 / 60):
        self.origin = [(float(x), float(y)) for x, y in origin]
        self.offset = [[0.0, 0.0] for _ in self.origin]
        self.color = [list(self.BASE) for _ in self.origin]
        self.radius, self.strength, self.duration, self.dt = radius, strength, duration, dt
        self.wave_width = self.WAVE_WIDTH if band is None else band
        self.shocks: list[dict] = []
        self.skipped: set[int] = set()

    def click(self, x: float, y: float, step: int) -> None:
        self.shocks.append({"x": x, "y": y, "time": step, "radius": self.radius, "strength": self.strength})

    def frame(self, step: int, mouse=None, prev=None) -> None:
        speed = math.hypot(mouse[0] - prev[0], mouse[1] - prev[1]) if mouse and prev else 0.0
        speed_factor = min(speed / self.SPEED_TRIGGER, 1)
        self.skipped = set()
        for di, (ox, oy) in enumerate(self.origin):
            offset_x = offset_y = color_force = 0.0
            if mouse is not None:
                dx, dy = ox - mouse[0], oy - mouse[1]
                dist = math.sqrt(dx * dx + dy * dy)
                angle = math.atan2(dy, dx)
                if dist < self.PROXIMITY:
                    force = 1 - dist / self.PROXIMITY
                    offset_x += math.cos(angle) * self.MAX_PUSH * force
                    offset_y += math.sin(angle) * self.MAX_PUSH * force
                    color_force = max(color_force, force)
                if speed_factor > 0.2 and dist < self.PROXIMITY * 1.6:
                    v_force = (1 - dist / (self.PROXIMITY * 1.6)) * speed_factor
                    offset_x += math.cos(angle) * self.MAX_PUSH * 0.6 * v_force
                    offset_y += math.sin(angle) * self.MAX_PUSH * 0.6 * v_force
                    color_force = max(color_force, v_force * 0.8)
            idx = 0
            while idx < len(self.shocks):                        # shocks.forEach((shock, idx) => ...)
                shock = self.shocks[idx]
                age = (step - shock["time"]) * self.dt
                if age > self.duration:
                    self.shocks.pop(idx)                         # splice(idx, 1); forEach goes on at idx + 1
                    if idx < len(self.shocks):
                        self.skipped.add(di)
                    idx += 1
                    continue
                sdx, sdy = ox - shock["x"], oy - shock["y"]
                sdist = math.sqrt(sdx * sdx + sdy * sdy)
                wave_radius = shock["radius"] * age
                if max(0, wave_radius - self.wave_width) < sdist < wave_radius + self.wave_width:
                    s_force = (1 - age) * (1 - abs(sdist - wave_radius) / self.wave_width)
                    s_angle = math.atan2(sdy, sdx)
                    offset_x += math.cos(s_angle) * shock["strength"] * s_force
                    offset_y += math.sin(s_angle) * shock["strength"] * s_force
                    color_force = max(color_force, s_force)
                idx += 1
            self.offset[di] = [offset_x, offset_y]
            c = self.color[di]
            for q in range(3):
                target = self.BASE[q] + (self.ACTIVE[q] - self.BASE[q]) * color_force
                c[q] += (target - c[q]) * self.EASE


# ── seed 000 §04: the lanyard's strap and card ───────────────────────────────

class Strap000:
    """Seed 000 §04's `physicsStep()` and the card's release spring, on lists of [x, y, z].

    ``pos`` and ``prev`` are the nodes (node 0 at the anchor). The card's rot and angular
    velocity are [x, y, z] lists; `card_step` is the seed's ``if (!isDragging) {...}``
    block — while dragging the seed leaves both untouched. ``dt`` is the seed's FIXED_DT:
    1/60 s, or 1/30 s on mobile.
    """

    GRAVITY, DAMPING, SEGMENT_REST, PASSES, FOLLOW = -40.0, 0.97, 0.14, 10, 0.35

    def __init__(self, pos, prev, anchor, dt=1 / 60):
        self.FIXED_DT = dt
        self.pos = [list(map(float, p)) for p in pos]
        self.prev = [list(map(float, p)) for p in prev]
        self.anchor = list(map(float, anchor))
        self.rot = [0.0, 0.0, 0.0]
        self.vel = [0.0, 0.0, 0.0]

    def physics_step(self, dragging: bool, target=None) -> None:
        n = len(self.pos)
        for i in range(1, n):                       # ① Verlet, the anchor excluded
            p, q = self.pos[i], self.prev[i]
            v = [(p[k] - q[k]) * self.DAMPING for k in range(3)]
            self.prev[i] = list(p)
            p[0] += v[0]
            p[1] += v[1] + self.GRAVITY * self.FIXED_DT * self.FIXED_DT
            p[2] += v[2]
        last = self.pos[-1]
        if dragging:                                # ② lerp the end toward the drag target
            for k in range(3):
                last[k] += (target[k] - last[k]) * self.FOLLOW
        for _ in range(self.PASSES):                # ③ distance constraints
            self.pos[0] = list(self.anchor)
            for i in range(n - 1):
                a, b = self.pos[i], self.pos[i + 1]
                dx, dy, dz = b[0] - a[0], b[1] - a[1], b[2] - a[2]
                dist = math.sqrt(dx * dx + dy * dy + dz * dz)
                if dist < 1e-6:
                    continue
                diff = (dist - self.SEGMENT_REST) / dist
                mx, my, mz = dx * 0.5 * diff, dy * 0.5 * diff, dz * 0.5 * diff
                if i > 0:                           # skip the anchor: its neighbour still takes half
                    a[0] += mx
                    a[1] += my
                    a[2] += mz
                b[0] -= mx
                b[1] -= my
                b[2] -= mz

    def card_step(self, dragging: bool) -> None:
        if dragging:
            return
        rot, vel = self.rot, self.vel
        vel[2] = 0.0
        rot[2] += (0 - rot[2]) * 0.3
        last_vel_y = self.pos[-1][1] - self.prev[-1][1]
        target_x = min(max(-last_vel_y * 0.4, -0.3), 0.3)
        accel_x = -45.0 * math.sin(rot[0] - target_x)
        accel_y = -20.0 * math.sin(rot[1])
        vel[0] += accel_x * self.FIXED_DT
        vel[1] += accel_y * self.FIXED_DT
        vel[0] *= max(0.85, 1 - (0.015 * abs(vel[0]) + 0.01))
        vel[1] *= max(0.85, 1 - (0.015 * abs(vel[1]) + 0.01))
        rot[0] += vel[0] * self.FIXED_DT
        rot[1] += vel[1] * self.FIXED_DT

    def links(self) -> list[float]:
        return [math.dist(self.pos[i], self.pos[i + 1]) for i in range(len(self.pos) - 1)]


# ── seed 002: Tendrils ───────────────────────────────────────────────────────

def relax_002(x: list, y: list, length: float, passes: int = 4) -> None:
    """Seed 002's constraint passes over one rope, in place: the first segment gives the
    whole correction to point 1 (the anchor does not move), the others split it in half."""
    n = len(x)
    for _ in range(passes):
        for i in range(n - 1):
            dx, dy = x[i + 1] - x[i], y[i + 1] - y[i]
            d = math.sqrt(dx * dx + dy * dy) or 1e-4
            diff = (d - length) / d
            if i == 0:
                x[1] -= dx * diff
                y[1] -= dy * diff
            else:
                dx *= diff * 0.5
                dy *= diff * 0.5
                x[i] += dx
                y[i] += dy
                x[i + 1] -= dx
                y[i + 1] -= dy
