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
- `near_pairs` / `collide_pairs`: a spatial hash on the point radius, then the pairs closer than
  two radii pushed apart.
"""
from __future__ import annotations

import math

import numba
import numpy as np

from ropework.systems.services.kernels import kernel

HASH_PRIME_X = 92837111    # Ten Minute Physics' spatial hash multipliers (11-hashing.html)
HASH_PRIME_Y = 689287499


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
def _slot(xi, yi, mask):
    """The hash slot of cell (xi, yi): a table of a power of two, so a mask and not a division."""
    return ((xi * HASH_PRIME_X) ^ (yi * HASH_PRIME_Y)) & mask


@kernel()
def near_pairs(pos, rest_pos, reach, apart, table, start, items, pairs):
    """The pairs (i < j) of points closer than ``reach`` now and at least ``apart`` apart at rest
    (so neighbours along a rope are left to its links), by a spatial hash of cell ``reach``:
    table int32[T] (T a power of two), start int32[T + 1], items int32[n] scratch; pairs
    int32[2, cap] out. Returns the count (at most cap: past it the rest are dropped for this step)."""
    n = pos.shape[0]
    size = table.shape[0]
    mask = np.int64(size - 1)
    inv = np.float32(1.0) / reach
    for c in range(size + 1):
        start[c] = 0
    for c in range(size):
        table[c] = 0                 # then: points placed in each cell so far
    for p in range(n):
        h = _slot(np.int64(math.floor(pos[p, 0] * inv)), np.int64(math.floor(pos[p, 1] * inv)), mask)
        start[h + 1] += 1
    for c in range(size):
        start[c + 1] += start[c]
    for p in range(n):
        h = _slot(np.int64(math.floor(pos[p, 0] * inv)), np.int64(math.floor(pos[p, 1] * inv)), mask)
        items[start[h] + table[h]] = p
        table[h] += 1
    reach2 = reach * reach
    apart2 = apart * apart
    cap = pairs.shape[1]
    m = 0
    visited = np.empty(9, np.int64)   # the slots visited around one point
    for p in range(n):
        px = pos[p, 0]
        py = pos[p, 1]
        xi = np.int64(math.floor(px * inv))
        yi = np.int64(math.floor(py * inv))
        seen = 0
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                h = _slot(xi + dx, yi + dy, mask)
                dup = False                  # two cells may hash to one slot: visit it once
                for u in range(seen):
                    dup |= visited[u] == h
                if dup:
                    continue
                visited[seen] = h
                seen += 1
                for s in range(start[h], start[h + 1]):
                    q = items[s]
                    if q <= p:
                        continue
                    ex = pos[q, 0] - px
                    ey = pos[q, 1] - py
                    if ex * ex + ey * ey >= reach2:
                        continue
                    rx = rest_pos[q, 0] - rest_pos[p, 0]
                    ry = rest_pos[q, 1] - rest_pos[p, 1]
                    if rx * rx + ry * ry < apart2:
                        continue
                    if m < cap:
                        pairs[0, m] = p
                        pairs[1, m] = q
                        m += 1
    return m


@kernel()
def collide_pairs(pos, inv_mass, pairs, m, gap):
    """Push apart, in order, each of the first m pairs closer than ``gap`` (two point radii, px),
    split by inverse mass."""
    for t in range(m):
        i = pairs[0, t]
        j = pairs[1, t]
        wi = inv_mass[i]
        wj = inv_mass[j]
        w = wi + wj
        if w == 0.0:
            continue
        ex = pos[j, 0] - pos[i, 0]
        ey = pos[j, 1] - pos[i, 1]
        d2 = ex * ex + ey * ey
        if d2 >= gap * gap or d2 == 0.0:
            continue
        d = math.sqrt(d2)
        f = (gap - d) / d / w
        pos[i, 0] -= ex * f * wi
        pos[i, 1] -= ey * f * wi
        pos[j, 0] += ex * f * wj
        pos[j, 1] += ey * f * wj
