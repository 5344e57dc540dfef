"""Pointer hit-queries with pymunk — the only module that touches pymunk.

One static pymunk body (a zero-radius circle) stands for each candidate point.
Positions are synced in one batch call and the index rebuilt only when a query
is made — never every step (at 100,000 points that costs hundreds of ms).
"""
from __future__ import annotations

import atexit
import gc
import weakref

import numpy as np
import pymunk
import pymunk.batch


_LIVE: "weakref.WeakSet[PointIndex]" = weakref.WeakSet()


@atexit.register
def _free_all() -> None:
    # pymunk frees its C objects from GC callbacks that log; at interpreter
    # teardown logging is gone and each free prints a traceback. Free them now.
    for index in list(_LIVE):
        index.close()
    gc.collect()


class PointIndex:
    """Nearest-point queries over a fixed set of a body's points."""

    def __init__(self, candidates: np.ndarray):
        """candidates: int[k] — the point indices that may be picked."""
        _LIVE.add(self)
        self.candidates = np.asarray(candidates, dtype=np.int64)
        self.space = pymunk.Space()
        bodies = []
        for k in range(len(self.candidates)):   # once per topology, not per step
            body = pymunk.Body(body_type=pymunk.Body.STATIC)
            shape = pymunk.Circle(body, 0.0)
            shape.point = int(self.candidates[k])
            bodies.append((body, shape))
        for body, shape in bodies:
            self.space.add(body, shape)
        # The order in which pymunk walks its bodies, so a batch write lands right.
        buf = pymunk.batch.Buffer()
        pymunk.batch.get_space_bodies(self.space, pymunk.batch.BodyFields.BODY_ID, buf)
        walk_ids = np.frombuffer(buf.int_buf(), dtype=np.uintp)
        by_id = {b.id: k for k, (b, _) in enumerate(bodies)}
        self._walk = np.array([by_id[int(i)] for i in walk_ids], dtype=np.int64)
        self._xy = np.zeros((len(self.candidates), 2), np.float64)
        self._buf = pymunk.batch.Buffer()

    def close(self) -> None:
        """Release the pymunk space and its shapes."""
        self.space = None

    def sync(self, pos: np.ndarray) -> None:
        """Move the index's points to ``pos`` (float[n, >=2]) and reindex."""
        self._xy[:] = pos[self.candidates[self._walk], :2]
        self._buf.set_float_buf(self._xy.reshape(-1))
        pymunk.batch.set_space_bodies(self.space, pymunk.batch.BodyFields.POSITION, self._buf)
        self.space.reindex_static()

    def nearest(self, pos: np.ndarray, x: float, y: float, radius: float) -> int:
        """Index of the candidate point nearest (x, y) strictly within ``radius``, or -1."""
        if len(self.candidates) == 0:
            return -1
        self.sync(pos)
        hit = self.space.point_query_nearest((x, y), radius, pymunk.ShapeFilter())
        if hit is None or not hit.distance < radius:
            return -1
        return hit.shape.point


def inside_outline(outline: np.ndarray, x: float, y: float) -> bool:
    """Whether pixel (x, y) lies inside the convex hull of ``outline`` (float[k, 2], pixels).

    For pick proxies of 3D layers: a box projected to the screen is the convex hull
    of its eight projected corners, so a ray through (x, y) hits the box exactly
    when this returns True. pymunk builds the hull (`Poly` takes any points).
    """
    body = pymunk.Body(body_type=pymunk.Body.STATIC)
    poly = pymunk.Poly(body, [(float(px), float(py)) for px, py in np.asarray(outline, np.float64)])
    poly.cache_bb()
    return poly.point_query((float(x), float(y))).distance <= 0.0
