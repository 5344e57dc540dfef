"""Contact with colliders: the compiled projection the "colliders" constraint type runs.

Each pass, every free point closer to a collider than its radius is pushed out along the
shape's outward normal (a signed distance: circle, capsule, oriented box, convex polygon,
half-plane), and friction acts on its motion since the step began (position-based, Müller et
al. 2007 / Ten Minute Physics): a tangential displacement shorter than μs × the push is undone
(the point sticks), a longer one is shortened by μk × the push (it slides). Only positions
move, and only back toward where the point was, so contact cannot add energy.

Tunnelling: once a step, before the passes (`sweep`), a point whose move this step is longer
than half the thinnest collider is walked from its step start toward its position in steps of
that half width; the first sample inside a collider is where it stops. A rope end thrown at
5,000 px/s moves 83 px a step: against a 10 px box it is sampled every 5 px.

Dynamic colliders (`Colliders.inv_mass` > 0) are bodies of their own, translation only: once a
step (`advance`) each centre takes the points' Verlet step (gravity, the body's damping); in every
pass a point's contact and a held point's pull (`Colliders.hold`) split their correction between
the point and the collider by inverse mass, so a heavy ball swings a light rope and a light one is
dragged by a heavy rope; a dynamic circle is kept out of every other collider (`apart`) and each
dynamic centre in the box. After the passes, `bounce` gives the colliders' contacts their
restitution — position-based contact alone would leave two colliders that met moving together.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ropework.components.collider import BOX, CAPSULE, CIRCLE, PLANE, POLYGON, Colliders
from ropework.systems.services.kernels import kernel
from ropework.systems.services.solver import ConstraintType, constraint_type

ARC = 40              # segments in a full circle's outline (drawn, and picked by the pointer)
MIN_SWEEP_STEP = 0.5   # px: the swept test's finest step
MAX_SWEEP = 256   # samples a point's swept path takes at most (a 5,000 px/s throw against a 1 px shape is 166)
CONTACT_SLOP = 0.5   # px: two colliders this close or closer are in contact for `bounce` (after `apart` they touch)
BOUNCE_SWEEPS = 64   # `bounce`'s sweeps at most: a row of touching balls meeting plastically shares its speed within them
BOUNCE_TOL = 1e-4    # px per step: a pair approaching slower than this is at rest (below float32's step at 800 px)
QUIET = 2.0   # an approach slower than QUIET · |g| · dt (px/s) is a resting contact: no bounce (Müller et al.'s 2|g|h)
_F1 = np.zeros(0, np.float32)          # a body's absent dynamic arrays, as the kernels take them
_F2 = np.zeros((0, 2), np.float32)
_I1 = np.zeros(0, np.int32)
_I2 = np.zeros((2, 0), np.int32)


@numba.njit(inline="always")
def distance(c, px, py, shape, centre, axis, half, radius, verts, vstart):
    """(d, nx, ny): the signed distance of (px, py) from collider c's surface (negative inside)
    and the outward normal there."""
    cx = px - centre[c, 0]
    cy = py - centre[c, 1]
    ca = axis[c, 0]
    sa = axis[c, 1]
    s = shape[c]
    if s == PLANE:      # normal (sin a, -cos a): angle 0 is a floor, solid below
        nx = sa
        ny = -ca
        return cx * nx + cy * ny, nx, ny
    if s == CIRCLE:
        d = math.sqrt(cx * cx + cy * cy)
        if d < 1e-9:
            return -radius[c], 0.0, -1.0
        return d - radius[c], cx / d, cy / d
    lx = cx * ca + cy * sa       # into the shape's frame
    ly = -cx * sa + cy * ca
    if s == CAPSULE:
        h = half[c, 0]
        qx = min(max(lx, -h), h)
        ex = lx - qx
        ey = ly
        d = math.sqrt(ex * ex + ey * ey)
        if d < 1e-9:
            ex, ey, d = 0.0, -1.0, 1.0
            dist = -radius[c]
        else:
            dist = d - radius[c]
        nlx = ex / d
        nly = ey / d
    elif s == BOX:
        hx = half[c, 0]
        hy = half[c, 1]
        qx = abs(lx) - hx
        qy = abs(ly) - hy
        if qx > 0.0 or qy > 0.0:
            ox = max(qx, 0.0)
            oy = max(qy, 0.0)
            dist = math.sqrt(ox * ox + oy * oy)
            nlx = math.copysign(ox / dist, lx)
            nly = math.copysign(oy / dist, ly)
        elif qx > qy:
            dist = qx
            nlx = math.copysign(1.0, lx)
            nly = 0.0
        else:
            dist = qy
            nlx = 0.0
            nly = math.copysign(1.0, ly)
    else:   # POLYGON, convex, counter-clockwise on screen (y down): outward normal of edge e is (ey, -ex)
        v0 = vstart[c]
        v1 = vstart[c + 1]
        k = v1 - v0
        inside = -1e30
        inx = 0.0
        iny = 0.0
        best = 1e30
        bnx = 0.0
        bny = 0.0
        for t in range(k):
            ax = verts[v0 + t, 0]
            ay = verts[v0 + t, 1]
            bx = verts[v0 + (t + 1) % k, 0]
            by = verts[v0 + (t + 1) % k, 1]
            ex = bx - ax
            ey = by - ay
            le = math.sqrt(ex * ex + ey * ey)
            nx = ey / le
            ny = -ex / le
            sd = (lx - ax) * nx + (ly - ay) * ny
            if sd > inside:
                inside, inx, iny = sd, nx, ny
            u = ((lx - ax) * ex + (ly - ay) * ey) / (le * le)
            u = min(max(u, 0.0), 1.0)
            dx = lx - (ax + u * ex)
            dy = ly - (ay + u * ey)
            dd = math.sqrt(dx * dx + dy * dy)
            if dd < best:
                best = dd
                if dd > 1e-9:
                    bnx, bny = dx / dd, dy / dd
                else:
                    bnx, bny = nx, ny
        if inside <= 0.0:
            dist, nlx, nly = inside, inx, iny
        else:
            dist, nlx, nly = best, bnx, bny
    return dist, nlx * ca - nly * sa, nlx * sa + nly * ca


@kernel()
def push(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
         cw, cprev, box, hold, offset, hold_pull, held_by):
    """One pass of contact: the held points onto their colliders, each free point out of every
    collider it is within its radius of, with static / kinetic friction on its motion since
    ``prev`` (module docstring), then the dynamic colliders apart and into their box. ``step``:
    `sweep`'s; cw, cprev, box, hold, offset, hold_pull, held_by: `Colliders`' (empty when it has none)."""
    dyn = cw.shape[0] > 0
    for t in range(hold.shape[1]):
        p = hold[0, t]
        c = hold[1, t]
        wp = inv_mass[p]
        wc = cw[c] if dyn else np.float32(0.0)
        w = wp + wc
        if w == 0.0:
            continue
        ex = np.float64(centre[c, 0]) + offset[t, 0] - pos[p, 0]
        ey = np.float64(centre[c, 1]) + offset[t, 1] - pos[p, 1]
        hold_pull[t] += math.sqrt(ex * ex + ey * ey)
        ex /= w
        ey /= w
        pos[p, 0] += ex * wp
        pos[p, 1] += ey * wp
        centre[c, 0] -= ex * wc
        centre[c, 1] -= ey * wc
    skip = held_by.shape[0] > 0
    for i in range(pos.shape[0]):
        if inv_mass[i] == 0.0:
            continue
        r = pr[i]
        for c in range(shape.shape[0]):
            if skip and held_by[i] == c:
                continue
            px = np.float64(pos[i, 0])
            py = np.float64(pos[i, 1])
            ex = px - centre[c, 0]
            ey = py - centre[c, 1]
            far = reach[c] + r
            if ex * ex + ey * ey > far * far:      # outside the shape's bounding circle: no contact
                continue
            d, nx, ny = distance(c, px, py, shape, centre, axis, half, radius, verts, vstart)
            pen = r - d
            if pen <= 0.0:
                continue
            wc = cw[c] if dyn else np.float32(0.0)
            if wc == 0.0:          # a static or kinematic shape: the point takes the whole correction
                px += nx * pen
                py += ny * pen
                tx = px - prev[i, 0]       # motion since the step began, its tangential part
                ty = py - prev[i, 1]
                dn = tx * nx + ty * ny
                tx -= dn * nx
                ty -= dn * ny
                tl = math.sqrt(tx * tx + ty * ty)
                if tl > 0.0:
                    if tl < mu_s[c] * pen:
                        f = 1.0
                    else:
                        f = min(mu_k[c] * pen / tl, 1.0)
                    px -= tx * f
                    py -= ty * f
            else:                  # a dynamic one: split by inverse mass, friction on the motion relative to it
                wp = np.float64(inv_mass[i])
                w = wp + wc
                sp = wp / w
                sc = wc / w
                px += nx * pen * sp
                py += ny * pen * sp
                cx = centre[c, 0] - nx * pen * sc
                cy = centre[c, 1] - ny * pen * sc
                tx = (px - prev[i, 0]) - (cx - cprev[c, 0])
                ty = (py - prev[i, 1]) - (cy - cprev[c, 1])
                dn = tx * nx + ty * ny
                tx -= dn * nx
                ty -= dn * ny
                tl = math.sqrt(tx * tx + ty * ty)
                if tl > 0.0:
                    if tl < mu_s[c] * pen:
                        f = 1.0
                    else:
                        f = min(mu_k[c] * pen / tl, 1.0)
                    px -= tx * f * sp
                    py -= ty * f * sp
                    cx += tx * f * sc
                    cy += ty * f * sc
                centre[c, 0] = cx
                centre[c, 1] = cy
            pos[i, 0] = px
            pos[i, 1] = py
    if dyn:
        apart(shape, centre, axis, half, radius, verts, vstart, reach, cw, cprev)
        k = shape.shape[0]
        for c in range(k):
            if cw[c] > 0.0:
                for q in range(2):
                    lo = box[q] + reach[c]
                    hi = box[q + 2] - reach[c]
                    if hi < lo:
                        lo = hi = 0.5 * (box[q] + box[q + 2])
                    centre[c, q] = min(max(centre[c, q], lo), hi)


@numba.njit(inline="always")
def pair_gap(a, b, shape, centre, axis, half, radius, verts, vstart, reach, cw):
    """(gap, nx, ny, first, second) for colliders a < b: a dynamic circle ``first`` and the other
    collider ``second``, the gap between their surfaces, px (negative: overlapping) and the
    normal from ``second`` toward ``first``; first = -1 when the pair is not one that meets (no
    dynamic circle in it, or too far apart to touch)."""
    if cw[a] > 0.0 and shape[a] == CIRCLE:
        i, j = a, b
    elif cw[b] > 0.0 and shape[b] == CIRCLE:
        i, j = b, a
    else:
        return 1.0, 0.0, 0.0, -1, -1
    ex = np.float64(centre[i, 0]) - centre[j, 0]
    ey = np.float64(centre[i, 1]) - centre[j, 1]
    far = reach[i] + reach[j] + CONTACT_SLOP
    if ex * ex + ey * ey > far * far:
        return 1.0, 0.0, 0.0, -1, -1
    if shape[j] == CIRCLE:
        d = math.sqrt(ex * ex + ey * ey)
        if d < 1e-9:
            return -radius[i] - radius[j], 0.0, -1.0, i, j
        return d - radius[i] - radius[j], ex / d, ey / d, i, j
    d, nx, ny = distance(j, np.float64(centre[i, 0]), np.float64(centre[i, 1]), shape, centre, axis, half, radius,
                         verts, vstart)
    return d - radius[i], nx, ny, i, j


@numba.njit
def apart(shape, centre, axis, half, radius, verts, vstart, reach, cw, cprev):
    """Dynamic circles out of every other collider, split by inverse mass, each correction made to
    its centre and its previous position alike: contact between colliders moves them apart without
    changing their velocities, which `bounce` settles after the solve, with restitution."""
    k = shape.shape[0]
    for a in range(k):
        for b in range(a + 1, k):
            if cw[a] + cw[b] == 0.0:
                continue
            g, nx, ny, i, j = pair_gap(a, b, shape, centre, axis, half, radius, verts, vstart, reach, cw)
            if i < 0 or g >= 0.0:
                continue
            w = np.float64(cw[i]) + cw[j]
            si = -g * cw[i] / w
            sj = -g * cw[j] / w
            centre[i, 0] += nx * si
            centre[i, 1] += ny * si
            cprev[i, 0] += nx * si
            cprev[i, 1] += ny * si
            centre[j, 0] -= nx * sj
            centre[j, 1] -= ny * sj
            cprev[j, 0] -= nx * sj
            cprev[j, 1] -= ny * sj


@kernel()
def advance(centre, cprev, cw, gravity, damping, dt):
    """Once a step: each dynamic centre's Verlet step, as a point's (`integrate`):
    x' = x + (x - x_prev)·damping + g·dt². Static, kinematic and held colliders (cw 0) stay."""
    dt2 = dt * dt
    for c in range(centre.shape[0]):
        if cw[c] == 0.0:
            continue
        for q in range(2):
            now = centre[c, q]
            centre[c, q] = now + (now - cprev[c, q]) * damping + gravity[q] * dt2
            cprev[c, q] = now


@kernel()
def bounce(shape, centre, axis, half, radius, verts, vstart, reach, cw, cprev, restitution, quiet):
    """Once a step, after the solve: the velocity pass of Müller et al.'s position-based dynamics
    for the pairs of colliders in contact (within `CONTACT_SLOP`). Sweeps over the pairs in order,
    until none approaches: a pair closing at normal speed v (px per step) leaves parting at e·v,
    e the larger of the two restitutions — or at 0 when v is below ``quiet`` (a resting contact,
    so nothing chatters) — by equal and opposite impulses split by inverse mass. Pair by pair, so a
    row of touching balls hands an impact on ball to ball (Newton's cradle) rather than sharing it.
    Returns the sweeps made."""
    k = shape.shape[0]
    pairs = np.empty((k * (k - 1)) // 2 + 1, np.int64)
    normal = np.empty((pairs.shape[0], 2), np.float64)
    m = 0
    for a in range(k):
        for b in range(a + 1, k):
            if cw[a] + cw[b] == 0.0:
                continue
            g, nx, ny, i, j = pair_gap(a, b, shape, centre, axis, half, radius, verts, vstart, reach, cw)
            if i < 0 or g >= CONTACT_SLOP:
                continue
            pairs[m] = i * k + j
            normal[m, 0] = nx
            normal[m, 1] = ny
            m += 1
    sweeps = 0
    for _ in range(BOUNCE_SWEEPS):   # an impact crosses a contact a sweep at worst (a row hit from its far end)
        sweeps += 1
        changed = False
        for t in range(m):
            i = pairs[t] // k
            j = pairs[t] % k
            wi = np.float64(cw[i])
            wj = np.float64(cw[j])
            w = wi + wj
            if w == 0.0:
                continue
            nx = normal[t, 0]
            ny = normal[t, 1]
            vn = ((centre[i, 0] - cprev[i, 0]) - (centre[j, 0] - cprev[j, 0])) * nx \
                + ((centre[i, 1] - cprev[i, 1]) - (centre[j, 1] - cprev[j, 1])) * ny
            if vn >= -BOUNCE_TOL:
                continue
            e = max(restitution[i], restitution[j]) if -vn > quiet else 0.0
            dv = -vn * (1.0 + e)
            cprev[i, 0] -= nx * dv * wi / w
            cprev[i, 1] -= ny * dv * wi / w
            cprev[j, 0] += nx * dv * wj / w
            cprev[j, 1] += ny * dv * wj / w
            changed = True
        if not changed:
            break
    return sweeps


@kernel()
def sweep(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
          cw, cprev, box, hold, offset, hold_pull, held_by):
    """Once a step: a free point that moved further than ``step`` px is walked from prev toward pos
    in steps of at most ``step``; at the first sample inside a collider (within its radius) it stops."""
    for i in range(pos.shape[0]):
        if inv_mass[i] == 0.0:
            continue
        ax = np.float64(prev[i, 0])
        ay = np.float64(prev[i, 1])
        mx = pos[i, 0] - ax
        my = pos[i, 1] - ay
        length = math.sqrt(mx * mx + my * my)
        if length <= step:
            continue
        n = min(int(math.ceil(length / step)), MAX_SWEEP)
        r = pr[i]
        hit = False
        for s in range(1, n):
            f = s / n
            qx = ax + mx * f
            qy = ay + my * f
            for c in range(shape.shape[0]):
                d, _, _ = distance(c, qx, qy, shape, centre, axis, half, radius, verts, vstart)
                if d < r:
                    hit = True
                    break
            if hit:
                pos[i, 0] = qx
                pos[i, 1] = qy
                break


def outline(c: Colliders, i: int, w: float, h: float) -> np.ndarray:
    """float32[k, 2]: collider i's outline, a closed loop, scene px (a plane: its surface across the scene)."""
    ca, sa = c.axis[i]
    rot = np.array([[ca, sa], [-sa, ca]], np.float32)    # row vectors: local @ rot = world offset
    s = int(c.shape[i])
    if s == CIRCLE:
        t = np.linspace(0, 2 * np.pi, ARC, endpoint=False)
        local = c.radius[i] * np.stack([np.cos(t), np.sin(t)], 1)
    elif s == CAPSULE:
        hl, r = c.half[i, 0], c.radius[i]
        t = np.linspace(-np.pi / 2, np.pi / 2, ARC // 2)
        right = np.stack([hl + r * np.cos(t), r * np.sin(t)], 1)
        local = np.concatenate([right, -right])
    elif s == BOX:
        hx, hy = c.half[i]
        local = np.array([[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]])
    elif s == POLYGON:
        local = c.verts[c.vstart[i]:c.vstart[i + 1]]
    else:
        span = 2.0 * (w + h)
        local = np.array([[-span, 0.0], [span, 0.0]])
    return (c.centre[i] + np.asarray(local, np.float32) @ rot).astype(np.float32)



def _arrays(c: Colliders) -> tuple:
    step = np.float64(max(0.5 * c.thin, MIN_SWEEP_STEP))
    dyn = c.inv_mass is not None
    held = c.hold is not None
    return (c.shape, c.centre, c.axis, c.half, c.radius, c.verts, c.vstart, c.mu_s, c.mu_k, c.point_radius, step,
            c.reach, c.inv_mass if dyn else _F1, c.prev if dyn else _F2, c.box if dyn else _F1,
            c.hold if held else _I2, c.offset if held else _F2, c.hold_pull if held else _F1,
            c.held_by if held else _I1)


def _advance(c: Colliders, forces, dt: float) -> None:
    """Once a step, before the passes: the dynamic colliders' Verlet step; each hold's pull reset."""
    if c.hold_pull is not None:
        c.hold_pull[:] = 0.0
    if c.inv_mass is not None:
        advance(c.centre, c.prev, c.inv_mass, forces.gravity.astype(np.float64), np.float64(forces.damping),
                np.float64(dt))


def _finish(c: Colliders, pts, forces, dt: float, per_force: float) -> None:
    """Once a step, after the passes: the colliders' contacts' velocities (`bounce`), then the held
    points whose pull passed their `hold_break` let go (a step's corrections, px, over w · per_force:
    mass · px/s², as `[[layer.attach]]`'s)."""
    if c.inv_mass is not None and len(c.shape) > 1:
        quiet = QUIET * float(np.hypot(*forces.gravity)) * dt * dt
        bounce(c.shape, c.centre, c.axis, c.half, c.radius, c.verts, c.vstart, c.reach, c.inv_mass, c.prev,
               c.restitution, np.float64(quiet))
    if c.hold is not None and len(c.hold_break) and (c.hold_break > 0).any():
        cw = c.inv_mass[c.hold[1]] if c.inv_mass is not None else 0.0
        w = pts.inv_mass[c.hold[0]] + cw
        force = c.hold_pull / np.maximum(w, 1e-12) / np.float32(per_force)
        keep = (c.hold_break == 0) | (force <= c.hold_break)
        if not keep.all():
            c.held_by[c.hold[0][~keep]] = -1
            c.hold, c.offset = c.hold[:, keep], c.offset[keep]
            c.hold_break, c.hold_pull = c.hold_break[keep], c.hold_pull[keep]


COLLIDERS = constraint_type(ConstraintType("colliders", Colliders, push, _arrays, order=100.0, begin=sweep,
                                           advance=_advance, finish=_finish))
