"""Ripple: start a shockwave ring on each press that fell through to the dot grid, and age the rings.

Reads: Pointer.pressed/claimed_by/x/y, Layer, Frame.dt. Writes: Shockwaves.

Runs last in the input stage: after every system that may claim a press (a card,
a rope), before repel pushes the dots. A press a layer above the grid took makes
no ring; a press nobody took, or that a layer below took, does. First every live
ring is one step older, and a ring older than `duration` ends (the seed's
``age > 0.85``); then the step's press starts its ring, no steps old. The seed's
click handler stamps ``performance.now()`` and the frame that follows reads the same
clock, so a ring pushes first at age 0 (radius 0, full strength) in its click's own
step, and one step older in each step after. The age is steps·dt, one product rather
than a running sum, so a ring of 1/60 s steps pushes exactly 52 steps, at ages
0 … 51/60 = 0.85 s, as the seed's frames at 60 Hz. A new ring takes a free slot of
the fixed pool, or the oldest ring's when all are in use, so any number of rings can
play at once and nothing is allocated per step.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components.dotgrid import Shockwaves
from ropework.components.pointer import Pointer
from ropework.components.render import Layer
from ropework.systems.input import claimed_above


def age_rings(rings: Shockwaves, dt: float) -> None:
    """Make every live ring one step older and retire those past their duration."""
    rings.steps[rings.alive] += 1
    rings.alive &= rings.steps * dt <= rings.duration


def start_ring(rings: Shockwaves, x: float, y: float) -> int:
    """Start a ring at (x, y), no steps old, in a free slot or the oldest one; return the slot."""
    slot = int(np.argmin(rings.alive)) if not rings.alive.all() else int(np.argmax(rings.steps))
    rings.x[slot], rings.y[slot], rings.steps[slot], rings.alive[slot] = x, y, 0, True
    return slot


class Ripple(esper.Processor):
    def process(self, frame):
        ptr = next((p for _, p in esper.get_component(Pointer)), None)
        for ent, rings in esper.get_component(Shockwaves):
            age_rings(rings, frame.dt)          # the live rings first: a new ring is no steps old when it pushes
            if ptr is not None and ptr.pressed:
                layer = esper.try_component(ent, Layer)
                if not claimed_above(ptr, layer.z if layer else 0):
                    start_ring(rings, ptr.x, ptr.y)
