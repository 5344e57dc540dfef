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

Tunnelling: once a step, after the broad phase, a point whose move this step is longer
than half the thinnest collider is walked from its step start toward its position in steps of
that half width; the first sample inside a collider is where it stops. A rope end thrown at
5,000 px/s moves 83 px a step: against a 10 px box it is sampled every 5 px.
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
         grid, cells, items, near, near_cell, count):
    """One pass of contact: each point `prepare` found near a collider this step out of every
    collider of its grid cell it is within its radius of, with static / kinetic friction on its
    motion since ``prev`` (module docstring)."""
    for j in range(count[0]):
        i = near[j]
        r = pr[i]
        cell = near_cell[j]
        for t in range(cells[cell], cells[cell + 1]):
            c = items[t]
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
            pos[i, 0] = px
            pos[i, 1] = py


@numba.njit(inline="always")
def _sweep(pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach, near, count):
    """A point of the broad phase's (its move is in its margin, so no other can reach a shape)
    that moved further than ``step`` px is walked from prev toward pos in steps of at most
    ``step``; at the first sample inside a collider (within its radius) it stops. Only the
    colliders whose bounding circle the move passes within reach of are sampled."""
    k = shape.shape[0]
    for j in range(count[0]):
        i = near[j]
        ax = np.float64(prev[i, 0])
        ay = np.float64(prev[i, 1])
        mx = pos[i, 0] - ax
        my = pos[i, 1] - ay
        length = math.sqrt(mx * mx + my * my)
        if length <= step:
            continue
        n = min(int(math.ceil(length / step)), MAX_SWEEP)
        r = pr[i]
        first = n                              # the earliest sample inside any collider
        for c in range(k):
            if shape[c] != PLANE:              # the move's closest approach to the centre
                u = ((centre[c, 0] - ax) * mx + (centre[c, 1] - ay) * my) / (length * length)
                u = min(max(u, 0.0), 1.0)
                dx = ax + mx * u - centre[c, 0]
                dy = ay + my * u - centre[c, 1]
                far = reach[c] + r
                if dx * dx + dy * dy > far * far:
                    continue
            for s in range(1, first):
                f = s / n
                d, _, _ = distance(c, ax + mx * f, ay + my * f, shape, centre, axis, half, radius, verts, vstart)
                if d < r:
                    first = s
                    break
        if first < n:
            f = first / n
            pos[i, 0] = ax + mx * f
            pos[i, 1] = ay + my * f


@numba.njit(inline="always")
def _broad(pos, prev, inv_mass, shape, centre, axis, reach, pr, grid, cells, items, near, near_cell, count):
    """The step's broad phase: a grid of at most `GRID` × `GRID` cells over the shapes, each
    cell listing (ascending) the colliders whose bounding circle, widened by the largest point
    reach, overlaps it (a plane: every cell); then every free point within reach of one of its
    cell's colliders (`margin`), with its cell. Conservative for the step: a point moves less
    than its margin during the passes, so a point left out touches nothing."""
    n = pos.shape[0]
    k = shape.shape[0]
    widest = 0.0
    for i in range(n):
        if inv_mass[i] != 0.0:
            mx = pos[i, 0] - prev[i, 0]
            my = pos[i, 1] - prev[i, 1]
            widest = max(widest, pr[i] + margin(pr[i], mx, my))
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
    m = 0
    for i in range(n):
        if inv_mass[i] == 0.0:
            continue
        px = np.float64(pos[i, 0])
        py = np.float64(pos[i, 1])
        fx = (px - x0) / size
        fy = (py - y0) / size
        a = int(fx) if fx >= 0.0 else 0       # outside the grid (or NaN): the nearest edge cell
        b = int(fy) if fy >= 0.0 else 0
        a = min(a, cols - 1)
        b = min(b, rows - 1)
        cell = b * cols + a
        r = pr[i] + margin(pr[i], pos[i, 0] - prev[i, 0], pos[i, 1] - prev[i, 1])
        for t in range(cells[cell], cells[cell + 1]):
            c = items[t]
            ex = px - centre[c, 0]
            ey = py - centre[c, 1]
            if shape[c] == PLANE:             # its distance along the normal (sin a, -cos a)
                inside = ex * axis[c, 1] - ey * axis[c, 0] <= r
            else:
                far = reach[c] + r
                inside = ex * ex + ey * ey <= far * far
            if inside:
                near[m] = i
                near_cell[m] = cell
                m += 1
                break
    count[0] = m


@kernel()
def prepare(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach,
            grid, cells, items, near, near_cell, count):
    """Once a step, before the passes: the broad phase, then the swept test against tunnelling."""
    _broad(pos, prev, inv_mass, shape, centre, axis, reach, pr, grid, cells, items, near, near_cell, count)
    _sweep(pos, prev, shape, centre, axis, half, radius, verts, vstart, pr, step, reach, near, count)


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
    return (c.shape, c.centre, c.axis, c.half, c.radius, c.verts, c.vstart, c.mu_s, c.mu_k, c.point_radius, step,
            c.reach, c.grid, c.cells, c.items, c.near, c.near_cell, c.count)


def _near(shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach, grid, cells, items, near,
          near_cell, count) -> np.ndarray:
    """The points `prepare` found near a collider this step: the only ones `push` moves."""
    return near[:count[0]]


COLLIDERS = constraint_type(ConstraintType("colliders", Colliders, push, _arrays, order=100.0, begin=prepare,
                                           near=_near))
