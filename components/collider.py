"""Colliders: static and kinematic shapes a body's points are kept out of."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CIRCLE, CAPSULE, BOX, POLYGON, PLANE = 0, 1, 2, 3, 4
SHAPES = ("circle", "capsule", "box", "polygon", "plane")   # a level's `shape`, by code above


@dataclass
class Colliders:
    """The shapes one body collides with (k of them), in scene pixels, y down.

    shape: int32[k] — a code above. centre: float32[k, 2] — position, px (a plane: a point on
    its surface). axis: float32[k, 2] — (cos, sin) of the shape's angle. half: float32[k, 2] — a
    box's half width and height, a capsule's half length in [0], px. radius: float32[k] — a
    circle's or capsule's radius, px. verts: float32[V, 2] — every polygon's corners, offsets
    from its centre before rotation, px, counter-clockwise on screen; vstart: int32[k + 1] —
    collider c's corners are verts[vstart[c]:vstart[c + 1]]. mu_s, mu_k: float32[k] — static and
    kinetic friction coefficients. kinematic: bool[k] — dragged by the pointer. point_radius:
    float32[n] — each of the body's points' radius, px. thin: the thinnest collider's least
    width, px (the swept test's step). held, grip: the pointer's drag.
    """

    shape: np.ndarray
    centre: np.ndarray
    axis: np.ndarray
    half: np.ndarray
    radius: np.ndarray
    verts: np.ndarray
    vstart: np.ndarray
    mu_s: np.ndarray
    mu_k: np.ndarray
    kinematic: np.ndarray
    point_radius: np.ndarray
    thin: float = 1.0
    reach: np.ndarray | None = None   # float64[k]: px from the centre the shape reaches at most (a plane: 1e30)
    held: int = -1                    # the kinematic collider the pointer drags, -1 none
    grip: tuple = (0.0, 0.0)          # px: its centre's offset from the pointer while held
    # The broad phase's scratch, remade each step from the fields above (so no part of the value):
    # a grid over the shapes (grid: float64[5] x0, y0, cell px, columns, rows; cells: int32[C + 1]
    # and items: int32[...], each cell's colliders in ascending order), the step's points near
    # any collider (near: int32[n], and count[0] of them) and each one's cell (near_cell: int32[n]).
    grid: np.ndarray | None = field(default=None, compare=False, repr=False)
    cells: np.ndarray | None = field(default=None, compare=False, repr=False)
    items: np.ndarray | None = field(default=None, compare=False, repr=False)
    near: np.ndarray | None = field(default=None, compare=False, repr=False)
    near_cell: np.ndarray | None = field(default=None, compare=False, repr=False)
    count: np.ndarray | None = field(default=None, compare=False, repr=False)
