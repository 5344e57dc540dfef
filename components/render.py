"""How entities are drawn, and in which layer."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Layer:
    """Which level layer an entity belongs to: drawn in ascending z, picked topmost first."""

    name: str
    kind: str
    z: int = 0


@dataclass
class RopeStyle:
    """Per-rope look.

    colour: float32[r, 4] — RGBA in 0..1; width: float32[r] — stroke width, pixels.
    tip_radius / anchor_radius: dots at the ends, pixels (0 draws none).
    """

    colour: np.ndarray
    width: np.ndarray
    tip_radius: float = 4.5
    anchor_radius: float = 2.5


@dataclass
class Rail:
    """A faint horizontal line the layer's ropes hang from, at y (pixels)."""

    y: float


@dataclass
class LinkStyle:
    """Draw a body's constraints as straight lines: colour RGBA 0..1, width in pixels."""

    colour: tuple
    width: float
