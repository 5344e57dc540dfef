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
    tip, anchor: bool[r] or None — which ropes' last (first) point is a tip (an anchor) and gets its
    dot; None: every rope's. A rope that broke is drawn as its pieces, and only the piece that
    kept the tip has a tip dot, only the one that kept the anchor an anchor dot.
    """

    colour: np.ndarray
    width: np.ndarray
    tip_radius: float = 4.5
    anchor_radius: float = 2.5
    tip: np.ndarray | None = None
    anchor: np.ndarray | None = None


@dataclass
class Rail:
    """A faint horizontal line the layer's ropes hang from, at y (pixels)."""

    y: float


@dataclass
class LinkStyle:
    """Draw a body's constraints as straight lines: colour RGBA 0..1, width in pixels."""

    colour: tuple
    width: float
