"""Sparks: a fixed pool of short-lived particles thrown off fast rope tips."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
    def pool(cls, size: int, **params) -> "Sparks":
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
