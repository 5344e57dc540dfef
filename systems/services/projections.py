"""Compiled projections the relax stage shares: bending, XPBD distance, attachments, self-contact.

Each is a function over positions (float32[n, d], scene units, 2-D) and inverse masses
(float32[n]; 0 = pinned, never moved), moving points in place so a constraint holds. Velocity is
never stored, so each correction is also an impulse, and none of them can add energy: a point only
moves toward the constraint's surface.

- `bend`: verlet-js's angle constraint (``AngleConstraint.relax``): the middle point's angle is
  turned toward its rest angle by rotating the ends about the middle and the middle about the ends.
- `xpbd_distance`: Ten Minute Physics' ``solveEdges``: one XPBD sweep, compliance α̃ = α / h².
- `attach`: point i held on the point at t of the segment j, j + 1 (zero length), split by inverse
  mass so a heavy end barely moves.
- `near_pairs` / `collide_pairs`: a grid of cells the contact reach wide, the points sorted into it,
  then the pairs closer than two radii pushed apart.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ropework.systems.services.kernels import kernel, select

COLLIDE_WAYS = 8   # pairs `collide_pairs` takes in turn from as many runs of the list: one point's
                   # pairs lie together in it, and pushed one after another each waits on the last


@kernel()
def bend(pos, inv_mass, tri, angle, stiffness, coef):
    """One sweep of angle constraints, in order. tri: int32[3, k] (a, middle b, c); angle: float32[k]
    rest angle at b from (a - b) to (c - b), radians in (-π, π]; stiffness: float32[k] in 0..1;
    coef: verlet-js's stepCoef (1 / passes). A pinned point is not rotated."""
    for t in range(tri.shape[1]):
        i = tri[0, t]
        j = tri[1, t]
        k = tri[2, t]
        ax = np.float64(pos[i, 0]) - pos[j, 0]
        ay = np.float64(pos[i, 1]) - pos[j, 1]
        cx = np.float64(pos[k, 0]) - pos[j, 0]
        cy = np.float64(pos[k, 1]) - pos[j, 1]
        now = math.atan2(ax * cy - ay * cx, ax * cx + ay * cy)
        diff = now - angle[t]
        if diff <= -math.pi:
            diff += 2.0 * math.pi
        elif diff >= math.pi:
            diff -= 2.0 * math.pi
        diff *= coef * stiffness[t]
        if diff == 0.0:
            continue
        s, c = math.sin(diff), math.cos(diff)
        bx = np.float64(pos[j, 0])
        by = np.float64(pos[j, 1])
        if inv_mass[i] != 0.0:      # a about b by diff
            pos[i, 0] = ax * c - ay * s + bx
            pos[i, 1] = ax * s + ay * c + by
        if inv_mass[k] != 0.0:      # c about b by -diff
            pos[k, 0] = cx * c + cy * s + bx
            pos[k, 1] = -cx * s + cy * c + by
        if inv_mass[j] != 0.0:      # b about the new a by diff, then about the new c by -diff
            ox = np.float64(pos[i, 0])
            oy = np.float64(pos[i, 1])
            x = bx - ox
            y = by - oy
            bx = x * c - y * s + ox
            by = x * s + y * c + oy
            ox = np.float64(pos[k, 0])
            oy = np.float64(pos[k, 1])
            x = bx - ox
            y = by - oy
            pos[j, 0] = x * c + y * s + ox
            pos[j, 1] = -x * s + y * c + oy


@kernel()
def xpbd_distance(pos, inv_mass, a, b, rest, compliance, h):
    """One XPBD sweep over the links (a, b) in order (Ten Minute Physics' ``solveEdges``):
    C = |x_a - x_b| - rest, s = -C / (w_a + w_b + compliance / h²), x_a += s·w_a·n, x_b -= s·w_b·n.
    compliance: float32[m], px per unit force; h: the substep, s."""
    inv_h2 = 1.0 / (h * h)
    for t in range(a.shape[0]):
        i = a[t]
        j = b[t]
        wi = inv_mass[i]
        wj = inv_mass[j]
        w = wi + wj
        if w == 0.0:
            continue
        gx = pos[i, 0] - pos[j, 0]
        gy = pos[i, 1] - pos[j, 1]
        ln = math.sqrt(gx * gx + gy * gy)
        if ln == 0.0:
            continue
        gx /= ln
        gy /= ln
        s = -(ln - rest[t]) / (w + compliance[t] * inv_h2)
        pos[i, 0] += gx * s * wi
        pos[i, 1] += gy * s * wi
        pos[j, 0] -= gx * s * wj
        pos[j, 1] -= gy * s * wj


@kernel()
def attach(pos, inv_mass, at, frac, pull):
    """Zero-length attachments, in order: point at[0, t] (int32[3, k]) onto the point a fraction
    f = frac[t] along the segment at[1, t] → at[2, t] (f = 0 at the first). The error splits by inverse
    mass, the segment's two points weighted (1 - f) and f, as a point of a body of their masses.
    pull: float32[k], written: the correction's length each attachment took, px (its force is
    that over w·h²)."""
    for t in range(at.shape[1]):
        p = at[0, t]
        q0 = at[1, t]
        q1 = at[2, t]
        f = frac[t]
        g = np.float32(1.0) - f
        wp = inv_mass[p]
        w0 = inv_mass[q0]
        w1 = inv_mass[q1]
        wq = g * g * w0 + f * f * w1           # the target point's inverse mass (barycentric)
        w = wp + wq
        pull[t] = 0.0
        if w == 0.0:
            continue
        ex = g * pos[q0, 0] + f * pos[q1, 0] - pos[p, 0]
        ey = g * pos[q0, 1] + f * pos[q1, 1] - pos[p, 1]
        pull[t] = math.sqrt(ex * ex + ey * ey)
        ex /= w
        ey /= w
        pos[p, 0] += ex * wp
        pos[p, 1] += ey * wp
        pos[q0, 0] -= ex * g * w0
        pos[q0, 1] -= ey * g * w0
        pos[q1, 0] -= ex * f * w1
        pos[q1, 1] -= ey * f * w1


@numba.njit(inline="always")
def _cell(x, y, x0, y0, inv, w, h):
    """The grid cell (row-major, clamped into the grid) of a point at (x, y)."""
    cx = min(max(np.int64((x - x0) * inv), 0), w - 1)
    cy = min(max(np.int64((y - y0) * inv), 0), h - 1)
    return cy * w + cx


@kernel(error_model="numpy")
def near_pairs(pos, rest_pos, reach, apart, start, cell, items, sort, pairs):
    """The pairs (i < j) of points closer than ``reach`` now and at least ``apart`` apart at rest
    (so neighbours along a rope are left to its links), by a grid over the points' box, cells of
    ``reach`` (larger when that makes more cells than start has room for, so the work and the
    scratch follow the point count, never the box), the points counting-sorted into cell order:
    each point then meets the points after it in its own and the eight cells around it, which
    in row order are three runs of the sorted arrays, each tested branch-free.
    start int32[C + 1] (C ≥ 1, cells at most), cell and items int32[n], sort float32[4, n]
    (the sorted points' x, y and rest x, y) scratch; pairs int32[2, cap] out, in the sorted
    order. Returns the count (at most cap: past it the rest are dropped for this step). A point
    not finite, or past 1e30 px, is in an edge cell: it meets what its distance says."""
    n = pos.shape[0]
    if start.shape[0] < 2 or cell.shape[0] < n or items.shape[0] < n or sort.shape[1] < n or pairs.shape[1] < 1:
        raise ValueError("near_pairs was given scratch too small for its points")
    x0 = y0 = np.float32(np.inf)
    x1 = y1 = np.float32(-np.inf)
    for p in range(n):
        x = pos[p, 0]
        y = pos[p, 1]
        if abs(x) < 1e30 and abs(y) < 1e30:
            x0 = min(x0, x)
            x1 = max(x1, x)
            y0 = min(y0, y)
            y1 = max(y1, y)
    if x1 < x0:
        x0 = y0 = x1 = y1 = np.float32(0.0)
    size = np.float64(reach)
    while (math.floor((x1 - x0) / size) + 1) * (math.floor((y1 - y0) / size) + 1) > start.shape[0] - 1:
        size *= 1.25                     # a few hundred times at most: the box is under 2e30 px across
    inv = 1.0 / size
    w = np.int64(math.floor((x1 - x0) * inv)) + 1
    h = np.int64(math.floor((y1 - y0) * inv)) + 1
    for c in range(w * h + 1):
        start[c] = 0
    for p in range(n):                   # count each cell's points, then where each cell starts
        k = _cell(pos[p, 0], pos[p, 1], x0, y0, inv, w, h)
        cell[p] = k
        start[k + 1] += 1
    for c in range(w * h):
        start[c + 1] += start[c]
    for p in range(n):                   # each point into its cell's next place (start moves on by one)
        items[start[cell[p]]] = p
        start[cell[p]] += 1
    for c in range(w * h, 0, -1):        # and back to where each cell starts
        start[c] = start[c - 1]
    start[0] = 0
    for s in range(n):
        q = items[s]
        sort[0, s] = pos[q, 0]
        sort[1, s] = pos[q, 1]
        sort[2, s] = rest_pos[q, 0]
        sort[3, s] = rest_pos[q, 1]
    reach2 = reach * reach
    apart2 = apart * apart
    cap = pairs.shape[1]
    m = 0
    for s in range(n):
        px = sort[0, s]
        py = sort[1, s]
        k = cell[items[s]]
        cx = k % w
        cy = k // w
        a = max(cx - 1, 0)
        b = min(cx + 1, w - 1) + 1
        for r in range(max(cy - 1, 0), min(cy + 1, h - 1) + 1):
            for t in range(max(start[r * w + a], s + 1), start[r * w + b]):
                ex = sort[0, t] - px
                ey = sort[1, t] - py
                rx = sort[2, t] - sort[2, s]
                ry = sort[3, t] - sort[3, s]
                ok = (ex * ex + ey * ey < reach2) & (rx * rx + ry * ry >= apart2) & (m < cap)
                p = items[s]
                q = items[t]
                o = min(m, cap - 1)      # written always, kept when ok: no branch to mispredict
                pairs[0, o] = select(ok, min(p, q), pairs[0, o])
                pairs[1, o] = select(ok, max(p, q), pairs[1, o])
                m += ok
    return m



@kernel(error_model="numpy")
def collide_pairs(pos, inv_mass, pairs, m, gap):
    """Push apart each of the first m pairs closer than ``gap`` (two point radii, px), split by
    inverse mass, in a fixed order: pair r of each of `COLLIDE_WAYS` runs of the list, then pair
    r + 1 of each, so the pushes in flight at once are of other points. Branch-free: a pile's
    resting pairs sit at the gap, where a branch on it guesses wrong half the time. On the
    10,000-point pile (`bench.extras`), 96 µs a pass, against 222 in the list's order with a
    branch and two divisions."""
    rows = (m + COLLIDE_WAYS - 1) // COLLIDE_WAYS
    gap = np.float32(gap)                # the points' type, as the module's: each push is kept by a select
    g2 = gap * gap
    for r in range(rows):
        for b in range(COLLIDE_WAYS):
            t = min(b * rows + r, m - 1)
            i = pairs[0, t]
            j = pairs[1, t]
            wi = inv_mass[i]
            wj = inv_mass[j]
            w = wi + wj
            ex = pos[j, 0] - pos[i, 0]
            ey = pos[j, 1] - pos[i, 1]
            d2 = ex * ex + ey * ey
            on = (b * rows + r < m) & (d2 < g2) & (d2 != 0.0) & (w != 0.0)
            d = math.sqrt(d2)
            f = (gap - d) / (d * w)                # not finite when off: never kept
            pos[i, 0] = select(on, pos[i, 0] - ex * f * wi, pos[i, 0])
            pos[i, 1] = select(on, pos[i, 1] - ey * f * wi, pos[i, 1])
            pos[j, 0] = select(on, pos[j, 0] + ex * f * wj, pos[j, 0])
            pos[j, 1] = select(on, pos[j, 1] + ey * f * wj, pos[j, 1])
