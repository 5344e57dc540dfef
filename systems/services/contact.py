"""Contact with colliders: the compiled projection the "colliders" constraint type runs.

Each pass, every free point closer to a collider than its radius is pushed out along the
shape's outward normal (a signed distance: circle, capsule, oriented box, convex polygon,
half-plane), and friction acts on its motion since the step began (position-based, Müller et
al. 2007 / Ten Minute Physics): a tangential displacement shorter than μs × the push is undone
(the point sticks), a longer one is shortened by μk × the push (it slides). Only positions
move, and only back toward where the point was, so contact cannot add energy.

Broad phase: once a step, before the passes (`prepare`), a grid over the shapes finds the points
within reach of one (`margin`); only those are pushed in the passes, each against its cell's shapes.
A 100,000-point curtain among 32 shapes then tests a fraction of its points a pass, not every one
against every shape.

In the lanes: a body of ropes whose links fall into chain groups (`relax.schedule_arrays`: eight
ropes or more), among static and kinematic shapes only, with no other extra, meets the shapes inside
its groups' lane kernels (`relax.solve_near`'s ``touch``): once a group's points are gathered,
`lane_entries` finds the slot rows (point k of each of its 32 ropes) within reach of a shape, and
after each pass `touch_row` pushes every lane of such a row out of that shape at once, in float32
(`push` meets a point alone in float64: the same push and friction to float32's precision, a
test). The group then takes all its passes in one call, as a body without shapes does; its points
in no group (`others_near`) are `push`'s, pass by pass. 100,000 points among 32 shapes: relax
1.6x the same scene without them (`bench.colliders`), where contact point by point took 8.8x.

Tunnelling: once a step, after the broad phase, a point whose move this step is longer
than half the thinnest collider is walked from its step start toward its position in steps of
that half width; it stops at the last sample before the first inside a collider (within the
point's radius of it): short of the shape, so nothing it is linked to can push it on through.
Stopping at that first sample inside, half a width deep at most, holds a lone point, but a stretch
of rope thrown whole gathers there and its links push some points out of the far side (40 ropes
thrown at a 10 px box: 52 of 480 points through; stopped short: none). A rope thrown at
5,000 px/s moves 83 px a step: against a 10 px box it is sampled every 5 px.

Dynamic colliders (`Colliders.inv_mass` > 0) are bodies of their own, translation only: once a
step (`advance`) each centre takes the points' Verlet step (gravity, the body's damping); in every
pass a point's contact and a held point's pull (`Colliders.hold`) split their correction between
the point and the collider by inverse mass, so a heavy ball swings a light rope and a light one is
dragged by a heavy rope; a dynamic circle is kept out of every other collider (`apart`) and each
dynamic centre in the box. After the passes, `bounce` gives the colliders' contacts their
restitution — position-based contact alone would leave two colliders that met moving together.
The broad phase is laid after `advance`; a collider moved further by one step's passes than the
points' margin meets the points it reached there on the next step.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ropework.components.collider import BOX, CAPSULE, CIRCLE, PLANE, POLYGON, Colliders
from ropework.systems.services.kernels import kernel
from ropework.systems.services.kernels import select as _select
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
BLOCK = 8          # point slot rows a chain group's broad phase boxes at once (`lane_entries`): a row is tested
                   # against a shape only where its block's box comes within reach of it
GRID = 64          # the broad phase's grid has at most GRID × GRID cells over the shapes: a cell lists a few colliders
MIN_CELL = 8.0     # px: its cells are never smaller (a few small shapes close together)
MARGIN_RADII = 1.0   # a point is near a collider out to this many of its radii more, plus MARGIN and its move
MARGIN = 2.0         # this step (px): room for the passes' corrections, which at rest move a point a fraction of a
                     # pixel; a point pushed further in one step's passes (a rope laid through a shape) meets it the next


@numba.njit(inline="always")
def margin(r, mx, my):
    """px beyond its radius r that a point moving (mx, my) this step is looked for around each
    shape: what the passes may still move it by, and its move."""
    return r * MARGIN_RADII + MARGIN + math.sqrt(mx * mx + my * my)


@numba.njit(inline="always")
def _circle(ex, ey, r, one):
    """(d, nx, ny) for a point at (ex, ey) from a circle's centre, radius r: the signed distance
    and the outward normal; at the centre, straight up. ``one`` is 1 in the float type the caller
    computes in (the passes' lanes: float32; a point alone: float64): these are selects, not
    branches, so a loop over lanes vectorises, and every constant takes the caller's type."""
    d = math.sqrt(ex * ex + ey * ey)
    small = d < 1e-9
    d = _select(small, one, d)
    return _select(small, -r, d - r), _select(small, one - one, ex / d), _select(small, -one, ey / d)


@numba.njit(inline="always")
def _capsule(lx, ly, h, r, one):
    """(d, nx, ny) in a capsule's frame: a segment from (-h, 0) to (h, 0), radius r (`_circle`'s
    ``one``): the circle about the segment's nearest point. On the segment itself, straight up."""
    return _circle(lx - min(max(lx, -h), h), ly, r, one)


@numba.njit(inline="always")
def _box(lx, ly, hx, hy, one):
    """(d, nx, ny) in a box's frame: half width hx, half height hy (`_circle`'s ``one``)."""
    zero = one - one
    qx = abs(lx) - hx
    qy = abs(ly) - hy
    ox = max(qx, zero)
    oy = max(qy, zero)
    outside = (qx > zero) | (qy > zero)
    out = _select(outside, math.sqrt(ox * ox + oy * oy), one)   # inside: unused, and nothing divides by 0
    side = qx > qy                  # inside: the nearer of the two pairs of sides
    d = _select(outside, out, _select(side, qx, qy))
    nx = _select(outside, math.copysign(ox / out, lx), _select(side, math.copysign(one, lx), zero))
    ny = _select(outside, math.copysign(oy / out, ly), _select(side, zero, math.copysign(one, ly)))
    return d, nx, ny


@numba.njit(inline="always")
def _edge(lx, ly, ax, ay, bx, by, one):
    """A convex polygon's edge from (ax, ay) to (bx, by), counter-clockwise on screen (y down), and
    a point (lx, ly) in its frame: (sd, nx, ny, dd, dx, dy) — the signed distance from the edge's
    line along its outward normal (nx, ny) = (ey, -ex) / |e|, and the offset (dx, dy) of the point
    from the nearest point of the edge, dd long (`_circle`'s ``one``)."""
    ex = bx - ax
    ey = by - ay
    le = math.sqrt(ex * ex + ey * ey)
    nx = ey / le
    ny = -ex / le
    sd = (lx - ax) * nx + (ly - ay) * ny
    u = ((lx - ax) * ex + (ly - ay) * ey) / (le * le)
    u = min(max(u, one - one), one)
    dx = lx - (ax + u * ex)
    dy = ly - (ay + u * ey)
    return sd, nx, ny, math.sqrt(dx * dx + dy * dy), dx, dy


@numba.njit(inline="always")
def distance(c, px, py, shape, centre, axis, half, radius, verts, vstart):
    """(d, nx, ny): the signed distance of (px, py) from collider c's surface (negative inside)
    and the outward normal there, float64."""
    cx = px - centre[c, 0]
    cy = py - centre[c, 1]
    ca = axis[c, 0]
    sa = axis[c, 1]
    s = shape[c]
    if s == PLANE:      # normal (sin a, -cos a): angle 0 is a floor, solid below
        return cx * sa + cy * -ca, np.float64(sa), np.float64(-ca)
    if s == CIRCLE:
        return _circle(cx, cy, np.float64(radius[c]), 1.0)
    lx = cx * ca + cy * sa       # into the shape's frame
    ly = -cx * sa + cy * ca
    if s == CAPSULE:
        dist, nlx, nly = _capsule(lx, ly, np.float64(half[c, 0]), np.float64(radius[c]), 1.0)
    elif s == BOX:
        dist, nlx, nly = _box(lx, ly, np.float64(half[c, 0]), np.float64(half[c, 1]), 1.0)
    else:   # POLYGON: inside, the nearest edge's line; outside, the nearest point of an edge
        v0 = vstart[c]
        k = vstart[c + 1] - v0
        inside = -1e30
        inx = iny = 0.0
        best = 1e30
        bnx = bny = 0.0
        for t in range(k):
            sd, nx, ny, dd, dx, dy = _edge(lx, ly, verts[v0 + t, 0], verts[v0 + t, 1], verts[v0 + (t + 1) % k, 0],
                                           verts[v0 + (t + 1) % k, 1], 1.0)
            if sd > inside:
                inside, inx, iny = sd, nx, ny
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


@numba.njit(inline="always")
def friction(tx, ty, nx, ny, pen, mu_s, mu_k, one):
    """(tx, ty, f): the tangential part of a contact's motion (tx, ty) since the step began, against
    the normal (nx, ny), and the share f of it friction takes back for a push of ``pen`` px: all of
    it while shorter than mu_s · pen (the point sticks), else mu_k · pen of its length (it slides);
    0 when there is none. Selects, as `_circle` (and its ``one``)."""
    dn = tx * nx + ty * ny
    tx -= dn * nx
    ty -= dn * ny
    tl = math.sqrt(tx * tx + ty * ty)
    moving = tl > one - one
    f = _select(tl < mu_s * pen, one, min(mu_k * pen / _select(moving, tl, one), one))
    return tx, ty, _select(moving, f, one - one)


@numba.njit(inline="always")
def _lane_push(x, y, w, x0, y0, r, d, nx, ny, mu_s, mu_k, one):
    """(x, y): `push`'s static contact for a point at (x, y) weighing w, at (x0, y0) when the
    step began, of radius r, given its signed distance d from the shape and the normal (nx, ny):
    a point not inside (or pinned, or a lane's padding: w = 0) keeps its bits. Scalars in and
    out: an array argument to an inlined function inside a loop over lanes keeps numba's
    reference counts in the loop, which then does not vectorise."""
    pen = r - d
    live = (pen > one - one) & (w != one - one)
    px = x + nx * pen
    py = y + ny * pen
    tx, ty, f = friction(px - x0, py - y0, nx, ny, pen, mu_s, mu_k, one)
    return _select(live, px - tx * f, x), _select(live, py - ty * f, y)


@numba.njit(inline="always")
def lane_frame(c, centre, axis):
    """(cx, cy, ca, sa), float32: collider c's centre and axis (cos, sin of its angle) as the lanes
    compute with them."""
    return np.float32(centre[c, 0]), np.float32(centre[c, 1]), np.float32(axis[c, 0]), np.float32(axis[c, 1])


@numba.njit(inline="always")
def _edge_line(verts, v0, t, k):
    """(ax, ay, ex, ey, nx, ny), float32: edge t of the k-cornered polygon whose corners start at
    verts[v0] — its first corner, its run to the next and its outward unit normal (corners
    counter-clockwise on screen, y down), for the lanes' loops."""
    ax = np.float32(verts[v0 + t, 0])
    ay = np.float32(verts[v0 + t, 1])
    ex = np.float32(verts[v0 + (t + 1) % k, 0]) - ax
    ey = np.float32(verts[v0 + (t + 1) % k, 1]) - ay
    le = np.float32(math.sqrt(ex * ex + ey * ey))
    return ax, ay, ex, ey, ey / le, -ex / le


@numba.njit(inline="always")
def touch_polygon(s, o, lanes, side, so, acc, c, centre, axis, mu_s, mu_k, verts, vstart):
    """`touch_row` for collider c, a convex polygon. Edge by edge, each lane keeps in acc the
    edge whose line it is furthest outside of (or least inside): inside, that line is the surface, as `distance` takes
    it; outside, the nearest point of a convex polygon lies on that same edge (a point nearest an
    edge's inside is furthest from its line, and one nearest a corner is in the corner's normal
    cone, where no other edge's line is further than the corner's two), so `distance`'s nearest
    point of every edge comes out of that one edge, met once at the end: a row of 32 lanes
    against a triangle, ≈ 63 ns, against 86 with every edge's nearest point, normal and length
    made for each lane. Its own function, which the caller calls for a polygon instead of
    `touch_row`: as a branch of `touch_row`, inlined or called, it made every shape's row three
    times slower. acc: 7 · lanes floats of scratch."""
    o = max(o, 0)     # not negative, as `touch_row`'s: the loops vectorise
    so = max(so, 0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    cx, cy, ca, sa = lane_frame(c, centre, axis)
    mus = np.float32(mu_s[c])
    muk = np.float32(mu_k[c])
    v0 = vstart[c]
    k = vstart[c + 1] - v0
    for lane in range(lanes):
        ex = s[o + lane] - cx                  # the lane in the polygon's frame
        ey = s[o + lanes + lane] - cy
        acc[5 * lanes + lane] = ex * ca + ey * sa
        acc[6 * lanes + lane] = -ex * sa + ey * ca
        acc[lane] = np.float32(-1e30)          # the furthest edge line's distance, its corner and its side
    for t in range(k):
        ax, ay, ex, ey, nx, ny = _edge_line(verts, v0, t, k)
        for lane in range(lanes):
            sd = (acc[5 * lanes + lane] - ax) * nx + (acc[6 * lanes + lane] - ay) * ny
            more = sd > acc[lane]
            acc[lane] = _select(more, sd, acc[lane])
            acc[lanes + lane] = _select(more, ax, acc[lanes + lane])
            acc[2 * lanes + lane] = _select(more, ay, acc[2 * lanes + lane])
            acc[3 * lanes + lane] = _select(more, ex, acc[3 * lanes + lane])
            acc[4 * lanes + lane] = _select(more, ey, acc[4 * lanes + lane])
    for lane in range(lanes):
        ex = acc[3 * lanes + lane]
        ey = acc[4 * lanes + lane]
        le2 = ex * ex + ey * ey
        rx = acc[5 * lanes + lane] - acc[lanes + lane]
        ry = acc[6 * lanes + lane] - acc[2 * lanes + lane]
        u = min(max((rx * ex + ry * ey) / le2, zero), one)
        dx = rx - u * ex                       # from the edge's nearest point
        dy = ry - u * ey
        dd = math.sqrt(dx * dx + dy * dy)
        le = math.sqrt(le2)
        inside = acc[lane] <= zero
        apart = dd > 1e-9                      # else on the edge: its normal
        d = _select(inside, acc[lane], dd)
        nlx = _select(inside | ~apart, ey / le, dx / _select(apart, dd, one))
        nly = _select(inside | ~apart, -ex / le, dy / _select(apart, dd, one))
        x = s[o + lane]
        y = s[o + lanes + lane]
        s[o + lane], s[o + lanes + lane] = _lane_push(x, y, s[o + 3 * lanes + lane], side[so + lane],
                                                      side[so + lanes + lane], side[so + 2 * lanes + lane], d,
                                                      nlx * ca - nly * sa, nlx * sa + nly * ca, mus, muk, one)


@numba.njit(inline="always")
def touch_row(s, o, lanes, side, so, c, shape, centre, axis, half, radius, mu_s, mu_k):
    """Contact of one point slot row of a chain group's lane scratch (its slots at s[o + lane],
    `_lane_push`) with the static or kinematic collider c — a circle, a plane, a capsule or a
    box; a polygon is `touch_polygon`'s — every lane at once in float32: the shape's `distance`,
    each lane's push and friction, as `push` does for a point alone. side[so:]: the row's
    step-start positions and radii (`lane_entries`)."""
    o = max(o, 0)     # offsets LLVM knows are not negative: numba's negative-index wraparound then folds
    so = max(so, 0)   # away, and the loops over lanes vectorise (with it they stay scalar, ~6x slower)
    one = np.float32(1.0)
    cx, cy, ca, sa = lane_frame(c, centre, axis)
    mus = np.float32(mu_s[c])
    muk = np.float32(mu_k[c])
    r = np.float32(radius[c])
    hx = np.float32(half[c, 0])
    hy = np.float32(half[c, 1])
    sh = shape[c]
    if sh == CIRCLE:      # each shape its own loop over the lanes, with no branch in it
        for lane in range(lanes):
            x = s[o + lane]
            y = s[o + lanes + lane]
            d, nx, ny = _circle(x - cx, y - cy, r, one)
            s[o + lane], s[o + lanes + lane] = _lane_push(x, y, s[o + 3 * lanes + lane], side[so + lane],
                                                          side[so + lanes + lane], side[so + 2 * lanes + lane],
                                                          d, nx, ny, mus, muk, one)
    elif sh == PLANE:
        for lane in range(lanes):
            x = s[o + lane]
            y = s[o + lanes + lane]
            s[o + lane], s[o + lanes + lane] = _lane_push(x, y, s[o + 3 * lanes + lane], side[so + lane],
                                                          side[so + lanes + lane], side[so + 2 * lanes + lane],
                                                          (x - cx) * sa + (y - cy) * -ca, sa, -ca, mus, muk, one)
    elif sh == CAPSULE:
        for lane in range(lanes):
            x = s[o + lane]
            y = s[o + lanes + lane]
            d, nlx, nly = _capsule((x - cx) * ca + (y - cy) * sa, -(x - cx) * sa + (y - cy) * ca, hx, r, one)
            s[o + lane], s[o + lanes + lane] = _lane_push(x, y, s[o + 3 * lanes + lane], side[so + lane],
                                                          side[so + lanes + lane], side[so + 2 * lanes + lane], d,
                                                          nlx * ca - nly * sa, nlx * sa + nly * ca, mus, muk, one)
    elif sh == BOX:
        for lane in range(lanes):
            x = s[o + lane]
            y = s[o + lanes + lane]
            d, nlx, nly = _box((x - cx) * ca + (y - cy) * sa, -(x - cx) * sa + (y - cy) * ca, hx, hy, one)
            s[o + lane], s[o + lanes + lane] = _lane_push(x, y, s[o + 3 * lanes + lane], side[so + lane],
                                                          side[so + lanes + lane], side[so + 2 * lanes + lane], d,
                                                          nlx * ca - nly * sa, nlx * sa + nly * ca, mus, muk, one)


@kernel()
def push(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
         grid, cells, items, near, near_cell, count, cw, cprev, box, hold, offset, hold_pull, held_by):
    """One pass of contact: the held points onto their colliders; each point `prepare` found near a
    collider this step out of every collider of its grid cell it is within its radius of, with
    static / kinetic friction on its motion since ``prev`` (module docstring); then the dynamic
    colliders apart and into their box. cw, cprev, box, hold, offset, hold_pull, held_by:
    `Colliders`' (empty when it has none)."""
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
    for j in range(count[0]):
        i = near[j]
        r = pr[i]
        cell = near_cell[j]
        for t in range(cells[cell], cells[cell + 1]):
            c = items[t]
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
                tx, ty, f = friction(px - prev[i, 0], py - prev[i, 1], nx, ny, pen, mu_s[c], mu_k[c], 1.0)
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
                tx, ty, f = friction((px - prev[i, 0]) - (cx - cprev[c, 0]), (py - prev[i, 1]) - (cy - cprev[c, 1]),
                                     nx, ny, pen, mu_s[c], mu_k[c], 1.0)
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


@numba.njit(inline="always")
def _fast(i, pos, prev, step):
    """Whether point i moved further this step than ``step`` px (then `_sweep_one` walks it)."""
    mx = pos[i, 0] - np.float64(prev[i, 0])
    my = pos[i, 1] - np.float64(prev[i, 1])
    return mx * mx + my * my > step * step


@numba.njit(inline="always")
def _sweep_one(i, pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach, cols, c0, c1):
    """A point the broad phase found near (its move is in its margin, so no other can reach a
    shape) that moved further than ``step`` px (`_fast`: called for those alone) is walked from
    prev toward pos in steps of at most ``step``; it stops at the last sample before the first
    inside a collider (within its radius). Of the colliders cols[c0:c1] (those of the point's cell or row, which
    hold every one its move can reach), only those whose bounding circle the move passes within
    reach of are sampled. No break and no early return: either, in a function inlined into a
    loop, left numba's reference counts in the loop (10x slower)."""
    ax = np.float64(prev[i, 0])
    ay = np.float64(prev[i, 1])
    mx = pos[i, 0] - ax
    my = pos[i, 1] - ay
    length = math.sqrt(mx * mx + my * my)
    n = max(min(int(math.ceil(length / step)), MAX_SWEEP), 1)
    r = pr[i]
    first = n                              # the earliest sample inside any collider (sample 0: prev)
    for t in range(c0, c1):
        c = cols[t]
        near = True
        if shape[c] != PLANE:              # the move's closest approach to the centre
            u = ((centre[c, 0] - ax) * mx + (centre[c, 1] - ay) * my) / max(length * length, 1e-30)
            u = min(max(u, 0.0), 1.0)
            dx = ax + mx * u - centre[c, 0]
            dy = ay + my * u - centre[c, 1]
            far = reach[c] + r
            near = dx * dx + dy * dy <= far * far
        s = 1
        while near and s < first:
            f = s / n
            d, _, _ = distance(c, ax + mx * f, ay + my * f, shape, centre, axis, half, radius, verts, vstart)
            if d < r:
                first = s                  # and the loop ends: s + 1 > first
            s += 1
    if first < n:
        f = (first - 1) / n
        pos[i, 0] = ax + mx * f
        pos[i, 1] = ay + my * f


@numba.njit(inline="always")
def _reach(i, pos, prev, pr):
    """px: how far from a shape's bounding circle point i is looked for (its radius and `margin`)."""
    return pr[i] + margin(pr[i], pos[i, 0] - prev[i, 0], pos[i, 1] - prev[i, 1])


@numba.njit   # not inlined: with its loops inside a caller, numba left reference counts in the caller's
def _grid(shape, centre, reach, widest, grid, cells, items):
    """The broad phase's grid: at most `GRID` × `GRID` cells over the shapes, each cell listing
    (ascending) the colliders whose bounding circle, widened by ``widest`` (the largest point
    reach), overlaps it (a plane: every cell). grid: x0, y0, cell size, columns, rows."""
    k = shape.shape[0]
    x0 = y0 = 1e300
    x1 = y1 = -1e300
    for c in range(k):
        if shape[c] != PLANE:
            e = reach[c] + widest
            x0 = min(x0, centre[c, 0] - e)
            y0 = min(y0, centre[c, 1] - e)
            x1 = max(x1, centre[c, 0] + e)
            y1 = max(y1, centre[c, 1] + e)
    if x1 < x0:                               # planes alone: one cell
        x0 = y0 = 0.0
        x1 = y1 = 1.0
    size = max(max(x1 - x0, y1 - y0) / GRID, MIN_CELL)
    cols = min(int(math.ceil((x1 - x0) / size)), GRID)
    rows = min(int(math.ceil((y1 - y0) / size)), GRID)
    grid[0], grid[1], grid[2], grid[3], grid[4] = x0, y0, size, cols, rows
    for t in range(cols * rows + 1):
        cells[t] = 0
    for rep in range(2):                      # count each cell's colliders, then place them
        for c in range(k):
            if shape[c] == PLANE:
                a0, a1, b0, b1 = 0, cols - 1, 0, rows - 1
            else:
                e = reach[c] + widest
                a0 = max(int((centre[c, 0] - e - x0) / size), 0)
                a1 = min(int((centre[c, 0] + e - x0) / size), cols - 1)
                b0 = max(int((centre[c, 1] - e - y0) / size), 0)
                b1 = min(int((centre[c, 1] + e - y0) / size), rows - 1)
            for b in range(b0, b1 + 1):
                for a in range(a0, a1 + 1):
                    if rep == 0:
                        cells[b * cols + a + 1] += 1
                    else:
                        items[cells[b * cols + a]] = c
                        cells[b * cols + a] += 1
        if rep == 0:
            for t in range(cols * rows):
                cells[t + 1] += cells[t]
        else:                                 # placing advanced each start to the next cell's
            for t in range(cols * rows, 0, -1):
                cells[t] = cells[t - 1]
            cells[0] = 0


@numba.njit(inline="always")
def _column(x, x0, size, cols):
    """The grid column holding coordinate x (x0: the grid's left, size: its cell, cols: its
    columns; a row the same way); outside the grid (or NaN), the nearest edge's."""
    f = (x - x0) / size
    a = int(f) if f >= 0.0 else 0
    return min(a, cols - 1)


@numba.njit(inline="always")
def _near_cell(px, py, r, shape, centre, axis, reach, x0, y0, size, cols, rows, cells, items):
    """The grid cell of a point at (px, py) when it is within r px (`_reach`) of one of that
    cell's colliders, else -1 (x0, y0, size, cols, rows: the grid's, `_grid`)."""
    cell = _column(py, y0, size, rows) * cols + _column(px, x0, size, cols)
    hit = -1
    for t in range(cells[cell], cells[cell + 1]):
        c = items[t]
        ex = px - centre[c, 0]
        ey = py - centre[c, 1]
        if shape[c] == PLANE:             # its distance along the normal (sin a, -cos a)
            inside = ex * axis[c, 1] - ey * axis[c, 0] <= r
        else:
            far = reach[c] + r
            inside = ex * ex + ey * ey <= far * far
        if inside and hit < 0:    # no break: one in an inlined loop left numba's reference
            hit = cell            # counts in every caller's loop (10x slower)
    return hit


@numba.njit
def _broad(pos, prev, inv_mass, shape, centre, axis, reach, pr, grid, cells, items, near, near_cell, count):
    """The step's broad phase: the grid (`_grid`), widened by the largest point reach; then every
    free point within reach of one of its cell's colliders (`margin`), with its cell. Conservative
    for the step: a point moves less than its margin during the passes, so a point left out
    touches nothing."""
    n = pos.shape[0]
    widest = 0.0
    for i in range(n):
        if inv_mass[i] != 0.0:
            widest = max(widest, _reach(i, pos, prev, pr))
    _grid(shape, centre, reach, widest, grid, cells, items)
    x0, y0, size, cols, rows = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    m = 0
    for i in range(n):
        if inv_mass[i] == 0.0:
            continue
        cell = _near_cell(np.float64(pos[i, 0]), np.float64(pos[i, 1]), _reach(i, pos, prev, pr), shape, centre, axis,
                          reach, x0, y0, size, cols, rows, cells, items)
        if cell >= 0:
            near[m] = i
            near_cell[m] = cell
            m += 1
    count[0] = m


@kernel()
def prepare(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
            grid, cells, items, near, near_cell, count, cw, cprev, box, hold, offset, hold_pull, held_by):
    """Once a step, before the passes: the broad phase, then the swept test against tunnelling."""
    _broad(pos, prev, inv_mass, shape, centre, axis, reach, pr, grid, cells, items, near, near_cell, count)
    for j in range(count[0]):
        if _fast(near[j], pos, prev, step):
            _sweep_one(near[j], pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach, items,
                       cells[near_cell[j]], cells[near_cell[j] + 1])


@numba.njit(inline="always")
def _row_meets(s, o, lanes, c, far, shape, centre, axis, half, radius, reach):
    """Whether any free lane of the point slot row at s[o] (x, y at o + lane and lanes further;
    `relax.FIELDS`' weight 3 · lanes further, 0 for a pinned or padding slot) is within ``far`` px
    of collider c's bounding shape: the circle itself, its surface (a plane), its box in its own
    frame (a box, a capsule); a polygon is `_row_meets_polygon`'s. Each shape its own loop, an or
    over the lanes (an integer reduction, which vectorises)."""
    o = max(o, 0)
    cx, cy, ca, sa = lane_frame(c, centre, axis)
    f = np.float32(far)
    hit = 0
    sh = shape[c]
    if sh == PLANE:
        for lane in range(lanes):
            d = (s[o + lane] - cx) * sa - (s[o + lanes + lane] - cy) * ca
            hit |= (d <= f) & (s[o + 3 * lanes + lane] != 0.0)
    elif sh == BOX or sh == CAPSULE:
        r = np.float32(radius[c]) if sh == CAPSULE else np.float32(0.0)
        hx = np.float32(half[c, 0]) + r + f
        hy = (r if sh == CAPSULE else np.float32(half[c, 1])) + f
        for lane in range(lanes):
            ex = s[o + lane] - cx
            ey = s[o + lanes + lane] - cy
            near = (abs(ex * ca + ey * sa) <= hx) & (abs(-ex * sa + ey * ca) <= hy)
            hit |= near & (s[o + 3 * lanes + lane] != 0.0)
    else:
        e = np.float32(reach[c]) + f
        e2 = e * e
        for lane in range(lanes):
            ex = s[o + lane] - cx
            ey = s[o + lanes + lane] - cy
            hit |= (ex * ex + ey * ey <= e2) & (s[o + 3 * lanes + lane] != 0.0)
    return hit != 0


@numba.njit(inline="always")
def _row_meets_polygon(s, o, lanes, c, far, centre, axis, verts, vstart, acc):
    """`_row_meets` for collider c, a convex polygon: whether a free lane of the row lies within
    ``far`` px of every one of its edges' lines (the polygon grown by far, its corners sharp: all
    within far of it, and a little more). Against its bounding circle, the 10,000-point curtain of
    `bench.colliders` met 85 rows of its triangles a step; this way, 49. acc: ``lanes`` floats of
    scratch, each lane's largest edge distance."""
    o = max(o, 0)
    cx, cy, ca, sa = lane_frame(c, centre, axis)
    f = np.float32(far)
    v0 = vstart[c]
    k = vstart[c + 1] - v0
    for lane in range(lanes):
        acc[lane] = np.float32(-1e30)
    for t in range(k):
        ax, ay, ex, ey, nx, ny = _edge_line(verts, v0, t, k)
        for lane in range(lanes):
            x = s[o + lane] - cx
            y = s[o + lanes + lane] - cy
            acc[lane] = max(acc[lane], (x * ca + y * sa - ax) * nx + (-x * sa + y * ca - ay) * ny)
    hit = 0
    for lane in range(lanes):
        hit |= (acc[lane] <= f) & (s[o + 3 * lanes + lane] != 0.0)
    return hit != 0


@numba.njit(inline="always")
def _candidates(x0, y0, x1, y1, far, shape, centre, axis, reach, cand, j0, j1, out, every):
    """Of the colliders cand[j0:j1] (``every``: colliders j0..j1 themselves), those whose bounding
    circle (a plane: its surface) comes within ``far`` px of the box x0..x1, y0..y1, written from
    cand[out]; returns out plus their count."""
    n = out
    for j in range(j0, j1 if x1 >= x0 else j0):   # none for a box of no free point (or NaN)
        c = j if every else cand[j]
        cx = centre[c, 0]
        cy = centre[c, 1]
        if shape[c] == PLANE:
            sx = axis[c, 1]
            sy = -axis[c, 0]
            near = min((x0 - cx) * sx, (x1 - cx) * sx) + min((y0 - cy) * sy, (y1 - cy) * sy) <= far
        else:
            e = reach[c] + far
            near = (x0 - e <= cx) & (cx <= x1 + e) & (y0 - e <= cy) & (cy <= y1 + e)
        if near:
            cand[n] = c
            n += 1
    return n


@numba.njit(inline="always")
def lane_entries(s, rows_n, lanes, row, pm, regular, pos, prev, pr, ent, cand, side, sbase, box, bb, shape, centre,
                 axis, half, radius, verts, vstart, reach, step, rmax):
    """The broad phase of one chain group, inside its lane kernel once its points are gathered
    (`relax.solve_near`'s ``touch``): s holds its ``rows_n`` point slot rows (``row`` floats
    each; each slot's x, y, move² this step — in the z field, free in 2-D — and weight,
    `relax.FIELDS`), pm its slot map (regular: lane l's points are pm[l] + k). Block by block of
    `BLOCK` rows: each lane's extent over the block and the longest move (``box``: 5 · lanes
    floats of scratch, then `_row_meets_polygon`'s) give the block's box and reach (the largest point radius ``rmax`` and its
    `margin`), into ``bb`` (float64[blocks, 5]); the colliders within reach of the group's box
    (the blocks' together), then of those the ones within reach of a block's, are its candidates
    (``cand``: twice the colliders' room), and each row of the block meets those of them one of
    its free lanes comes within reach of (`_row_meets`): the
    entries, ent[0] the row and ent[1] the collider (ascending within a row), from 0. A row with
    entries gets its lanes' step-start positions and radii in side[sbase + 3 · lanes · k:] (x, y,
    radius, ``lanes`` each) and its lanes that moved further than ``step`` their swept test
    (`_sweep_one`, against the row's colliders), their slots then read again. Returns the entries'
    count. Conservative as `_broad`: a point moves less than its margin during the passes."""
    big = np.float32(1e30)
    nb = (rows_n + BLOCK - 1) // BLOCK
    for bk in range(nb):                      # each block's box and longest move, into bb
        b0 = bk * BLOCK
        b1 = min(b0 + BLOCK, rows_n)
        for lane in range(lanes):
            box[lane] = big
            box[lanes + lane] = big
            box[2 * lanes + lane] = -big
            box[3 * lanes + lane] = -big
            box[4 * lanes + lane] = 0.0
        for k in range(b0, b1):               # each lane's extent: no chain from lane to lane
            o = max(k * row, 0)               # not negative: the lanes vectorise (`touch_row`)
            for lane in range(lanes):
                x = s[o + lane]
                y = s[o + lanes + lane]
                free = s[o + 3 * lanes + lane] != 0.0
                box[lane] = _select(free & (x < box[lane]), x, box[lane])
                box[lanes + lane] = _select(free & (y < box[lanes + lane]), y, box[lanes + lane])
                box[2 * lanes + lane] = _select(free & (x > box[2 * lanes + lane]), x, box[2 * lanes + lane])
                box[3 * lanes + lane] = _select(free & (y > box[3 * lanes + lane]), y, box[3 * lanes + lane])
                box[4 * lanes + lane] = max(box[4 * lanes + lane], s[o + 2 * lanes + lane])
        bb[bk, 0] = bb[bk, 1] = 1e30
        bb[bk, 2] = bb[bk, 3] = -1e30
        bb[bk, 4] = 0.0
        for lane in range(lanes):
            bb[bk, 0] = min(bb[bk, 0], np.float64(box[lane]))
            bb[bk, 1] = min(bb[bk, 1], np.float64(box[lanes + lane]))
            bb[bk, 2] = max(bb[bk, 2], np.float64(box[2 * lanes + lane]))
            bb[bk, 3] = max(bb[bk, 3], np.float64(box[3 * lanes + lane]))
            bb[bk, 4] = max(bb[bk, 4], np.float64(box[4 * lanes + lane]))
    gx0 = gy0 = 1e30                          # the group's box and longest move: its candidates
    gx1 = gy1 = -1e30
    move = 0.0
    for bk in range(nb):
        gx0 = min(gx0, bb[bk, 0])
        gy0 = min(gy0, bb[bk, 1])
        gx1 = max(gx1, bb[bk, 2])
        gy1 = max(gy1, bb[bk, 3])
        move = max(move, bb[bk, 4])
    ng = _candidates(gx0, gy0, gx1, gy1, rmax + margin(rmax, math.sqrt(move), 0.0), shape, centre, axis, reach,
                     cand, 0, shape.shape[0], 0, True)
    m = 0
    for bk in range(nb if ng > 0 else 0):
        b0 = bk * BLOCK
        b1 = min(b0 + BLOCK, rows_n)
        x0, y0, x1, y1 = bb[bk, 0], bb[bk, 1], bb[bk, 2], bb[bk, 3]
        far = rmax + margin(rmax, math.sqrt(bb[bk, 4]), 0.0)
        nc = _candidates(x0, y0, x1, y1, far, shape, centre, axis, reach, cand, 0, ng, ng, False) - ng   # after the group's
        for k in range(b0, b1 if nc > 0 else b0):
            first = m
            for j in range(ng, ng + nc):
                c = cand[j]
                if (_row_meets_polygon(s, k * row, lanes, c, far, centre, axis, verts, vstart, box)
                        if shape[c] == POLYGON else
                        _row_meets(s, k * row, lanes, c, far, shape, centre, axis, half, radius, reach)):
                    ent[0, m] = k
                    ent[1, m] = cand[j]
                    m += 1
            if m > first:
                o = k * row
                b = max(sbase + 3 * lanes * k, 0)
                for lane in range(lanes):
                    q = pm[lane] + k if regular else pm[k * lanes + lane]
                    p = max(q, 0)
                    side[b + lane] = prev[p, 0]
                    side[b + lanes + lane] = prev[p, 1]
                    side[b + 2 * lanes + lane] = pr[p]
                    if s[o + 3 * lanes + lane] != 0.0 and s[o + 2 * lanes + lane] > step * step:
                        _sweep_one(p, pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach,
                                   ent[1], first, m)
                        s[o + lane] = pos[p, 0]
                        s[o + lanes + lane] = pos[p, 1]
    return m


@kernel()
def others_near(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
                grid, cells, items, near, near_cell, count, others):
    """`prepare` for the points in no chain group (``others``) of a body whose chain groups take
    their contacts in their lane kernels (`lane_entries`): the broad phase and the swept test of
    those points alone."""
    widest = 0.0
    for j in range(others.shape[0]):
        if inv_mass[others[j]] != 0.0:
            widest = max(widest, _reach(others[j], pos, prev, pr))
    _grid(shape, centre, reach, widest, grid, cells, items)
    gx, gy, size, cols, nrows = grid[0], grid[1], grid[2], int(grid[3]), int(grid[4])
    n = 0
    for j in range(others.shape[0]):
        i = others[j]
        if inv_mass[i] != 0.0:
            cell = _near_cell(np.float64(pos[i, 0]), np.float64(pos[i, 1]), _reach(i, pos, prev, pr), shape, centre,
                              axis, reach, gx, gy, size, cols, nrows, cells, items)
            if cell >= 0:
                near[n] = i
                near_cell[n] = cell
                n += 1
    count[0] = n
    for j in range(n):
        if _fast(near[j], pos, prev, step):
            _sweep_one(near[j], pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach, items,
                       cells[near_cell[j]], cells[near_cell[j] + 1])


def row_scratch(c: Colliders, groups: np.ndarray) -> tuple:
    """(ent, cand, side, box, bb, acc, met): `lane_entries`' and `touch_row`'s scratch for a body's chain
    ``groups``, kept on ``c`` while they and its collider count stay (the entries' room: every
    row of the largest group meeting every collider; met[0]: the entries a step made, summed
    over the groups, which the lane kernels add up)."""
    key = c.lanes
    k = len(c.shape)
    if key is None or key[0] is not groups or key[1] != k:
        lanes = groups[:-1, 2].astype(np.int64)
        rows = (groups[1:, 1].astype(np.int64) - groups[:-1, 1]) // np.maximum(lanes, 1)
        most = int(lanes.max(initial=1))
        blocks = (int(rows.max(initial=1)) + BLOCK - 1) // BLOCK
        c.lanes = (groups, k, np.zeros((2, max(int(rows.max(initial=1)) * k, 1)), np.int32),
                   np.zeros(max(2 * k, 1), np.int32), np.zeros(3 * int(groups[-1, 1]), np.float32),
                   np.zeros(5 * most, np.float32), np.zeros((max(blocks, 1), 5), np.float64),
                   np.zeros(7 * most, np.float32), np.zeros(1, np.int64))
    return c.lanes[2:]


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
    n, k = len(c.point_radius), len(c.shape)
    if c.near is None or len(c.near) != n or len(c.items) != k * GRID * GRID:   # the broad phase's scratch
        c.grid = np.zeros(5, np.float64)
        c.cells = np.zeros(GRID * GRID + 1, np.int32)
        c.items = np.zeros(k * GRID * GRID, np.int32)
        c.near, c.near_cell = np.zeros(n, np.int32), np.zeros(n, np.int32)
        c.count = np.zeros(1, np.int32)
    dyn = c.inv_mass is not None
    held = c.hold is not None
    return (c.shape, c.centre, c.axis, c.half, c.radius, c.verts, c.vstart, c.mu_s, c.mu_k, c.point_radius, step,
            c.reach, c.grid, c.cells, c.items, c.near, c.near_cell, c.count,
            c.inv_mass if dyn else _F1, c.prev if dyn else _F2, c.box if dyn else _F1,
            c.hold if held else _I2, c.offset if held else _F2, c.hold_pull if held else _F1,
            c.held_by if held else _I1)


def _near(shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach, grid, cells, items, near,
          near_cell, count, cw, cprev, box, hold, offset, hold_pull, held_by) -> np.ndarray:
    """The points `push` moves this step: those `prepare` found near a collider, and the held ones."""
    if hold.shape[1] == 0:
        return near[:count[0]]
    return np.union1d(near[:count[0]], hold[0]).astype(np.int32)


def _advance(c: Colliders, forces, dt: float) -> None:
    """Once a step, before the passes: the dynamic colliders' Verlet step; each hold's pull reset."""
    if c.hold_pull is not None:
        c.hold_pull[:] = 0.0
    if c.inv_mass is not None:
        advance(c.centre, c.prev, c.inv_mass, forces.gravity.astype(np.float64), np.float64(forces.damping),
                np.float64(dt))


def _finish(c: Colliders, pts, forces, dt: float, per_force: float) -> float:
    """Once a step, after the passes: the colliders' contacts' velocities (`bounce`), then the held
    points whose pull passed their `hold_break` let go (a step's corrections, px, over w · per_force:
    mass · px/s², as `[[layer.attach]]`'s). Returns how far a dynamic collider moved this step, px
    (a body whose balls still roll does not sleep)."""
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
    if c.inv_mass is None:
        return 0.0
    return float(np.abs(c.centre - c.prev).max())


COLLIDERS = constraint_type(ConstraintType("colliders", Colliders, push, _arrays, order=100.0, begin=prepare,
                                           near=_near, advance=_advance, finish=_finish))
