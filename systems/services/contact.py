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
def push(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach):
    """One pass of contact: each free point out of every collider it is within its radius of,
    with static / kinetic friction on its motion since ``prev`` (module docstring). ``step``: `sweep`'s."""
    for i in range(pos.shape[0]):
        if inv_mass[i] == 0.0:
            continue
        r = pr[i]
        for c in range(shape.shape[0]):
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


@kernel()
def sweep(pos, prev, inv_mass, shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k, pr, step, reach):
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
    return (c.shape, c.centre, c.axis, c.half, c.radius, c.verts, c.vstart, c.mu_s, c.mu_k, c.point_radius, step,
            c.reach)


COLLIDERS = constraint_type(ConstraintType("colliders", Colliders, push, _arrays, order=100.0, begin=sweep))
