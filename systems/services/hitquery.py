"""Pointer hit-queries with pymunk — the only module that touches pymunk.

A press asks for the nearest free point within the grab radius. Only the
points inside the radius's bounding square can answer, so a vectorised numpy
test narrows the body to those (a handful, even at 100,000 points; the nearest
MAX_CANDIDATES of them where a dense sheet puts thousands there), and pymunk
answers the query over them: each becomes a static zero-radius circle in a
small space built at the press, with the positions of that moment. Nothing is
indexed or synced between presses — keeping every point of a 100,000-point
scene in a pymunk space costs hundreds of ms per step, and building one at a
press took minutes. The square is tested over every point's float32 position
in place (no gathered copy of the candidates), then exactly, in float64, over
the few inside it.
"""
from __future__ import annotations

import numpy as np
import pymunk

MAX_CANDIDATES = 64     # nearest points handed to pymunk at most: each costs ≈ 0.1 ms of pymunk objects, and the
                        # nearest is among them (4,096 made a press in the million-point curtain a 0.4 s stall)
SQUARE_PAD = 1e-3       # px per px of coordinate: the float32 prefilter's square is this much wider than the exact one


class PointIndex:
    """Nearest-point queries over a fixed set of a body's points (e.g. the free ones)."""

    def __init__(self, candidates: np.ndarray):
        """candidates: int[k] — the point indices that may be picked."""
        self.candidates = np.asarray(candidates, dtype=np.int64)
        self._member = np.zeros(0, bool)   # point index -> is a candidate, sized to the body at the first query

    def _square(self, pos: np.ndarray, x: float, y: float, radius: float) -> np.ndarray:
        """Sorted indices of the candidate points strictly inside the square of half-side ``radius`` at (x, y)."""
        n = len(pos)
        if len(self._member) != n:
            self._member = np.zeros(n, bool)
            self._member[self.candidates[self.candidates < n]] = True
        wide = radius + SQUARE_PAD * (abs(x) + abs(y) + radius) + 1e-3   # covers float32's rounding of pos − x
        xs, ys = pos[:, 0], pos[:, 1]
        rough = np.flatnonzero((np.abs(xs - np.float32(x)) < wide) & (np.abs(ys - np.float32(y)) < wide))
        rough = rough[self._member[rough]]
        p = pos[rough, :2].astype(np.float64)
        return rough[(np.abs(p[:, 0] - x) < radius) & (np.abs(p[:, 1] - y) < radius)]

    def nearest(self, pos: np.ndarray, x: float, y: float, radius: float) -> int:
        """Index of the candidate point nearest (x, y) strictly within ``radius``, or -1."""
        if len(self.candidates) == 0 or not radius > 0:
            return -1
        near = self._square(pos, x, y, radius)          # point indices, ascending
        if len(near) > MAX_CANDIDATES:   # the nearest of them is among the closest few
            p = pos[near, :2].astype(np.float64)
            d2 = (p[:, 0] - x) ** 2 + (p[:, 1] - y) ** 2
            near = np.sort(near[np.argpartition(d2, MAX_CANDIDATES)[:MAX_CANDIDATES]])
        if len(near) == 0:
            return -1
        p = pos[near, :2].astype(np.float64)
        space = pymunk.Space()
        for k, i in enumerate(near):      # a few points: the ones inside the radius's square
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
            body.position = float(p[k, 0]), float(p[k, 1])
            shape = pymunk.Circle(body, 0.0)
            shape.point = int(i)
            space.add(body, shape)
        hit = space.point_query_nearest((float(x), float(y)), float(radius), pymunk.ShapeFilter())
        found = hit.shape.point if hit is not None and hit.distance < radius else -1
        for shape in list(space.shapes):  # free the C objects now, not from a GC callback at exit
            space.remove(shape.body, shape)
        return found


BOX_MARGIN = 1e-6   # px: pymunk's hull distance rounds a pixel a hair (~1e-13 px) outside to "inside";
                    # past this margin it never does, so the bounding-box shortcut answers as pymunk would


def inside_outline(outline: np.ndarray, x: float, y: float) -> bool:
    """Whether pixel (x, y) lies inside the convex hull of ``outline`` (float[k, 2], pixels).

    For pick proxies of 3D layers: a box projected to the screen is the convex hull
    of its eight projected corners, so a ray through (x, y) hits the box exactly
    when this returns True. pymunk builds the hull (`Poly` takes any points); a pixel
    more than `BOX_MARGIN` outside the outline's bounding box is outside the hull, and is
    answered without it (the hover test asks every step).
    """
    outline = np.asarray(outline, np.float64)
    lo, hi = outline.min(axis=0) - BOX_MARGIN, outline.max(axis=0) + BOX_MARGIN
    if not (lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]):
        return False
    body = pymunk.Body(body_type=pymunk.Body.STATIC)
    poly = pymunk.Poly(body, [(float(px), float(py)) for px, py in outline])
    poly.cache_bb()
    return poly.point_query((float(x), float(y))).distance <= 0.0


def shape_at(outlines: list, x: float, y: float, reach: float = 0.0) -> int:
    """Index of the first convex outline (float[k, 2] px, a closed loop) containing (x, y), or within
    ``reach`` px of it, or -1: each a pymunk polygon in a space built for the press, as every pick is."""
    space = pymunk.Space()
    for k, o in enumerate(outlines):
        body = pymunk.Body(body_type=pymunk.Body.STATIC)
        shape = pymunk.Poly(body, [(float(a), float(b)) for a, b in o])
        shape.index = k
        space.add(body, shape)
    hits = [h.shape.index for h in space.point_query((float(x), float(y)), float(reach), pymunk.ShapeFilter())]
    for shape in list(space.shapes):
        space.remove(shape.body, shape)
    return min(hits) if hits else -1
