"""Orbit: turn each tendril anchor's offset around the pointer.

Reads: Tendrils (angle, orbit_radius, orbit_speed), Frame.t. Writes: PointerPins.offset.

Point 0 of every rope is pinned to the pointer plus an offset on a small circle
that turns at ``orbit_speed``; each rope has its own place on the circle, so the
ropes never start from one pixel and the bundle slowly twists. The input system
then puts the anchors (position and previous position) at pointer + offset.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import PointerPins
from ropework.components.tendrils import Tendrils


class Orbit(esper.Processor):
    def process(self, frame):
        for _, (pins, td) in esper.get_components(PointerPins, Tendrils):
            a = td.angle + np.float32(td.orbit_speed * frame.t)
            np.cos(a, out=pins.offset[:, 0])
            np.sin(a, out=pins.offset[:, 1])
            pins.offset *= np.float32(td.orbit_radius)
