"""The pointer, and what it holds."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Pointer:
    """The scene's one pointer, in scene units (pixels, y down).

    events: pointer events not yet applied, oldest first; each is
    ``(kind, x, y)`` with kind in {"move", "down", "up", "leave"}.
    inside: the pointer is over the scene; down: the button is held.
    idle: seconds since the last event (the autopilot reads it).
    A press is offered to layers topmost first; the first that takes it sets
    ``claimed_by``, and layers below see the press as claimed.
    """

    x: float = -9999.0
    y: float = -9999.0
    inside: bool = False
    down: bool = False
    idle: float = 0.0
    events: list = field(default_factory=list)
    pressed: bool = False   # a "down" arrived during this step
    released: bool = False  # an "up" or "leave" arrived during this step
    claimed_by: int = -1    # entity that took this press (a grab, a card); -1: it fell through


@dataclass
class Grab:
    """A body whose free points can be picked up and thrown.

    radius: pick distance, scene units (the nearest free point strictly inside wins).
    held: index of the held point, -1 when nothing is held.
    pin: while held, the point is pinned to the cursor (inverse mass 0) rather
    than teleported there and left to the solver (the rope seed's way).
    """

    radius: float
    held: int = -1
    pin: bool = False
    held_weight: float = 1.0   # the held point's inverse mass before a pinned grab zeroed it (restored on release)


@dataclass
class PointerPins:
    """Points pinned to the pointer plus an offset (tendril anchors).

    index: int32[k] — the points; offset: float32[k, d] — added to the pointer,
    scene units. Written each step by the system that owns the offsets' motion.
    """

    index: np.ndarray
    offset: np.ndarray
