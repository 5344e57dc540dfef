"""The tendrils (seed 002): a bundle of ropes hanging from the pointer, the sparks its tips throw,
and the virtual hand that moves the pointer when nobody does.

Tendrils: each rope's gravity, wind and look. Sparks: a fixed pool of short-lived particles
thrown off fast rope tips. Autopilot: the idle pointer's slow path.
"""
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


@dataclass
class Sparks:
    """A ring buffer of ``size`` sparks; a new spark overwrites the oldest slot.

    pos: float32[P, 2], px; vel: float32[P, 2], px/s; life: float32[P], seconds
    left (≤ 0: the slot is free); rope: int32[P], the rope that threw it (its
    colour). head: the slot the next spark is written to. The arrays are made
    once at spawn and only ever written in place: no allocation per step.

    threshold: tip speed above which a tip may throw a spark, px/s. chance: the
    probability it does, per step. keep: fraction of the tip velocity a spark
    takes; jitter: ± random px/s added per axis. life_min + U(0, life_spread):
    a spark's life, s. gravity: px/s², down. drag: fraction of velocity kept per step.
    """

    pos: np.ndarray
    vel: np.ndarray
    life: np.ndarray
    rope: np.ndarray
    head: int = 0
    threshold: float = 900.0
    chance: float = 0.6
    keep: float = 0.35
    jitter: float = 100.0
    life_min: float = 0.5
    life_spread: float = 0.6
    gravity: float = 600.0
    drag: float = 0.98

    @classmethod
    def pool(cls, size: int, **params) -> Sparks:
        """An empty pool of ``size`` slots."""
        return cls(pos=np.zeros((size, 2), np.float32), vel=np.zeros((size, 2), np.float32),
                   life=np.zeros(size, np.float32), rope=np.zeros(size, np.int32), **params)

    @property
    def size(self) -> int:
        return len(self.life)

    @property
    def live(self) -> int:
        """How many slots hold a spark still alive."""
        return int(np.count_nonzero(self.life > 0))


@dataclass
class Autopilot:
    """After ``after`` seconds with no pointer event the pointer follows a slow path.

    The path is a Lissajous figure over the window, at scene time t:
        x = width  · (0.5 + ax · sin(fx · t))
        y = height · (cy  + ay · sin(fy · t + phase))
    and the pointer chases it with a first-order lag of ``ease`` seconds, never
    faster than ``max_speed`` px/s, so the take-over is smooth and slow from
    wherever the pointer was (the path itself moves at ≈ 120 px/s at most on a
    1280×720 window). home: where the pointer
    starts from if it has never been over the window, px. active: the autopilot
    moved the pointer this step.
    """

    home: tuple
    after: float = 2.5
    ax: float = 0.32
    fx: float = 0.27
    cy: float = 0.42
    ay: float = 0.18
    fy: float = 0.41
    phase: float = 0.9
    ease: float = 0.6
    max_speed: float = 200.0
    active: bool = False
