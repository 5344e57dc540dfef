"""Components of a Verlet body: its points, what holds them, what pulls them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Points:
    """Verlet state of every point of one body.

    pos, prev: float32[n, d], scene units (pixels, y down, for 2D toys; d is 2 or 3).
    Velocity is never stored: it is ``pos - prev``, so anything that moves a point
    also sets its velocity.
    inv_mass: float32[n] — the solver's weight per point: 0 for pinned points
    (they refuse to move), 1 for free ones. Written by `Pins.apply`.
    """

    pos: np.ndarray
    prev: np.ndarray
    inv_mass: np.ndarray

    @classmethod
    def at(cls, pos: np.ndarray) -> Points:
        """Points at rest at ``pos`` (previous position = position: no velocity)."""
        pos = np.ascontiguousarray(pos, dtype=np.float32)
        return cls(pos=pos, prev=pos.copy(), inv_mass=np.ones(len(pos), np.float32))

    @property
    def n(self) -> int:
        return len(self.pos)


@dataclass
class Pins:
    """Points fixed to anchors.

    index: int32[k] — pinned points; anchor: float32[k, d] — where each is held.
    """

    index: np.ndarray
    anchor: np.ndarray

    def apply(self, points: Points) -> None:
        """Zero the pinned points' solver weight and put them on their anchors."""
        points.inv_mass[:] = 1.0
        points.inv_mass[self.index] = 0.0
        points.pos[self.index] = self.anchor
        points.prev[self.index] = self.anchor


@dataclass
class Constraints:
    """Distance constraints, solved in this order (sequential Gauss-Seidel).

    a, b: int32[m] — the joined points; rest: float32[m] — rest lengths, scene units.
    passes: relaxation passes per step; more passes, stiffer body.
    share: the fraction of a link's length error its free end takes when the other end
    is pinned (inverse mass 0), in 0.5..1: 0.5 is seeds 001 and 000 §04 (every end moves
    half and a pinned one simply stays), 1.0 seed 002 and the standard workloads (the
    free end takes it all). Links between two free points split the error by inverse mass.
    schedule: the relax system's cache of the solve order derived from a and b; it is
    rebuilt when a or b is replaced by another array (so replace them, never edit in place).
    rest may be edited in place or replaced: a body of `relax.IN_ORDER_POINTS` points or more
    keeps a copy of it there too, compared with rest before every step.
    """

    a: np.ndarray
    b: np.ndarray
    rest: np.ndarray
    passes: int
    share: float
    schedule: object = field(default=None, repr=False, compare=False)


@dataclass
class Forces:
    """What accelerates a body's free points.

    gravity: float32[d] — uniform acceleration, scene units / s².
    damping: fraction of the implied velocity kept per step (Verlet history).
    extra: float32[n, d] or None — per-point acceleration written by force
    systems (wind, shake), scene units / s².
    """

    gravity: np.ndarray
    damping: float
    extra: np.ndarray | None = None


@dataclass
class Bounds:
    """Axis-aligned box that free points are clamped into, in the relaxation pass.

    lo, hi: float32[d], scene units (already inset by the margin).
    """

    lo: np.ndarray
    hi: np.ndarray
