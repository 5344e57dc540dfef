"""Tendrils: a bundle of ropes hanging from the pointer, each with its own gravity, wind and look."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Tendrils:
    """What moves a tendril bundle, per rope and per point (seed 002).

    Per rope r (arrays of length R):
    gdir: float32[r] — direction gravity pulls this rope, radians (π/2 is straight down).
    phase: float32[r] — the rope's wind and wave phase, radians.
    freq: float32[r] — the rope's fast wind frequency, rad/s.
    angle: float32[r] — the rope's place on the anchor circle at t = 0, radians.

    Per point p (arrays of length n, the body's points):
    rope_of: int32[n] — which rope the point is on.
    along: float32[n] — its index i along its rope (0 at the anchor).
    frac: float32[n] — i / (points in its rope): how much wind and wave it feels.

    Scalars (px, s, rad) are the level's keys; ``electrified`` is state: the button
    is held over this bundle (set by the electrify system, read by blow and draw).
    ``shake``: float32[n, 2] scratch the shake's uniform randoms are drawn into.
    """

    gdir: np.ndarray
    phase: np.ndarray
    freq: np.ndarray
    angle: np.ndarray
    rope_of: np.ndarray
    along: np.ndarray
    frac: np.ndarray
    shake: np.ndarray
    gravity: float = 380.0
    wind: float = 160.0
    gust: float = 80.0
    gust_freq: float = 0.37
    wave: float = 90.0
    wave_freq: float = 1.3
    wave_lag: float = 0.2
    orbit_radius: float = 6.0
    orbit_speed: float = 0.8
    drag: float = 0.985
    electric_drag: float = 0.9
    electric_shake: float = 4500.0
    electrified: bool = False


@dataclass
class TendrilLook:
    """How a tendril bundle is drawn (additive light that fades into trails).

    colour: float32[r, 4] — each rope's RGBA, 0..1; width: float32[r] — core width, px.
    glow_width: the glow stroke's width as a multiple of the core's; glow_alpha,
    core_alpha: the two strokes' opacity. electric_glow / electric_core: RGBA 0..1
    used instead while electrified. keep: fraction of the trail kept per 1/60 s.
    backdrop: RGBA 0..1 the light is shown over (alpha 0: added onto whatever is
    drawn below instead). pointer_glow: radius of the glow at the pointer, px.
    spark_size: side of a spark's square, px.
    """

    colour: np.ndarray
    width: np.ndarray
    glow_width: float = 6.0
    glow_alpha: float = 0.14
    core_alpha: float = 0.85
    electric_glow: tuple = (200 / 255, 230 / 255, 1.0, 0.18)
    electric_core: tuple = (1.0, 1.0, 1.0, 0.95)
    keep: float = 0.78
    backdrop: tuple = (5 / 255, 5 / 255, 8 / 255, 1.0)
    pointer_glow: float = 40.0
    spark_size: float = 2.0
