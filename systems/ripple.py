"""Ripple: start a shockwave ring on each press that fell through to the dot grid, and age the rings.

Reads: Pointer.pressed/claimed_by/x/y, Layer, Frame.dt. Writes: Shockwaves.

Runs in the emit stage, after every input-stage system has had the chance to
claim the press: a press a layer above the grid took (a card, a rope) makes no
ring; a press nobody took, or that a layer below took, does. Live rings age by
one step and end once older than `duration` (the seed's 0.85 s: long enough to
see the ring spread, short enough not to smear into the next click). A new ring
takes a free slot of the fixed pool, or the oldest ring's when all are in use,
so any number of rings can play at once and nothing is allocated per step. A
ring starts at age 0 and first pushes in the next step's repel.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components.dots import Shockwaves
from ropework.components.pointer import Pointer
from ropework.components.render import Layer
from ropework.systems.input import claimed_above

AGE_SLACK = 1e-9   # s: ages are sums of 1/60 s steps; forgive their rounding at the duration


def age_rings(rings: Shockwaves, dt: float) -> None:
    """Advance every live ring by dt seconds and retire those past their duration."""
    rings.age[rings.alive] += dt
    rings.alive &= rings.age <= rings.duration + AGE_SLACK


def start_ring(rings: Shockwaves, x: float, y: float) -> int:
    """Start a ring at (x, y), age 0, in a free slot or the oldest one; return the slot."""
    slot = int(np.argmin(rings.alive)) if not rings.alive.all() else int(np.argmax(rings.age))
    rings.x[slot], rings.y[slot], rings.age[slot], rings.alive[slot] = x, y, 0.0, True
    return slot


class Ripple(esper.Processor):
    def process(self, frame):
        ptr = next((p for _, p in esper.get_component(Pointer)), None)
        for ent, rings in esper.get_component(Shockwaves):
            age_rings(rings, frame.dt)
            if ptr is None or not ptr.pressed:
                continue
            layer = esper.try_component(ent, Layer)
            if not claimed_above(ptr, layer.z if layer else 0):
                start_ring(rings, ptr.x, ptr.y)
