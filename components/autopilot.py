"""Autopilot: a virtual hand that moves the pointer when nobody does."""
from __future__ import annotations

from dataclasses import dataclass


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
