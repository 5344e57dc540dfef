"""Orbit: each anchor's offset turns on a 6 px circle at 0.8 rad/s, each rope at its own angle."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Frame, PointerPins
from ropework.components.tendrils import Tendrils
from ropework.systems.tendrils.orbit import Orbit


def test_offsets_turn_on_the_circle():
    R = 5
    angle = (np.arange(R) / R * 2 * math.pi).astype(np.float32)
    td = Tendrils(gdir=angle, phase=angle, freq=angle, angle=angle, rope_of=np.zeros(0, np.int32),
                  along=np.zeros(0, np.float32), frac=np.zeros(0, np.float32), shake=np.zeros((0, 2), np.float32))
    pins = PointerPins(index=np.arange(R, dtype=np.int32), offset=np.zeros((R, 2), np.float32))
    esper.create_entity(td, pins)
    offset = pins.offset
    for t in (0.0, 1.0, 7.3):
        Orbit().process(Frame(dt=1 / 60, t=t, width=800, height=600, rng=np.random.default_rng(0)))
        a = t * 0.8 + np.arange(R) / R * 2 * math.pi
        assert np.allclose(pins.offset, 6 * np.stack([np.cos(a), np.sin(a)], 1), atol=1e-4)
    assert pins.offset is offset
