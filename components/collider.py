"""Colliders: static, kinematic and dynamic shapes a body's points are kept out of."""
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

    Dynamic colliders (a rigid body each, translation only; a circle meets other colliders too)
    — every field below is None when no collider of the body is dynamic or holds a point:
    inv_mass: float32[k] — 1 / mass, a free rope point weighing 1; 0 for a static or kinematic
    collider (and for a dynamic one while the pointer holds it: held_weight keeps its own).
    prev: float32[k, 2] — each centre a step ago, px: the velocity is centre - prev, as a point's.
    restitution: float32[k] in 0..1 — the share of an impact's approach speed a pair of colliders
    part with (the larger of the two). box: float32[4] — x0, y0, x1, y1, px: the box a dynamic
    centre stays in, inset by its reach.
    Held points (a rope's point held on a collider): hold: int32[2, h] — the point, then the
    collider; offset: float32[h, 2] — where, px from the centre; hold_break: float32[h] — the
    force it lets go past (0 never), point mass · px/s²; hold_pull: float32[h] — its corrections
    this step, px (written by relax); held_by: int32[n] — each point's holder, -1 none (a held
    point does not collide with its holder).
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
    held_weight: float = 0.0          # the held collider's own inv_mass, restored on release
    inv_mass: np.ndarray | None = None
    prev: np.ndarray | None = None
    restitution: np.ndarray | None = None
    box: np.ndarray | None = None
    hold: np.ndarray | None = None
    offset: np.ndarray | None = None
    hold_break: np.ndarray | None = None
    hold_pull: np.ndarray | None = None
    held_by: np.ndarray | None = None

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
    lanes: tuple | None = field(default=None, compare=False, repr=False)   # `contact.row_scratch`'s, by chain groups

    @property
    def dynamic(self) -> np.ndarray:
        """bool[k]: the colliders that move as bodies (held by the pointer or not)."""
        if self.inv_mass is None:
            return np.zeros(len(self.shape), bool)
        d = self.inv_mass > 0
        if self.held >= 0:
            d[self.held] = self.held_weight > 0
        return d
