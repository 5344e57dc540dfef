"""Doze: freeze a calm lanyard until the hand takes its card again (the `sleep` key).

Reads: Points, CardGrab, Card.spin, Cadence, Breeze, StrapSleep. Writes: StrapSleep,
Points.prev/inv_mass, Card.spin, Cadence.active.

Runs after grab_card, so a press that takes the card wakes the strap before this
step's integrate. A strap that has been still for `calm_steps` strap steps — no
point moving `still` units in a step, the card turning slower than `still_spin`,
not held, no breeze — is frozen: its last velocity and spin are dropped (it was
already below what any pixel shows) and its points made weightless, so integrate
and relax leave it exactly where it is, step after step. The grab restores the
pins' weights and the toy carries on from rest.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Pins, Points
from ropework.components.lanyard import Breeze, Cadence, Card, CardGrab, StrapSleep


class Doze(esper.Processor):
    def process(self, frame):
        for ent, (pts, grab, card, cad, zz) in esper.get_components(Points, CardGrab, Card, Cadence, StrapSleep):
            if grab.held or esper.has_component(ent, Breeze):
                if zz.asleep:
                    pins = esper.try_component(ent, Pins)
                    if pins is not None:
                        pins.apply(pts)
                    cad.active = True
                zz.asleep, zz.calm = False, 0
                continue
            if zz.asleep:
                pts.inv_mass[:] = 0.0
                cad.active = False
                continue
            if not cad.active:
                continue
            still = (np.abs(pts.pos - pts.prev).max() < zz.still) and np.abs(card.spin).max() < zz.still_spin
            zz.calm = zz.calm + 1 if still else 0
            if zz.calm >= zz.calm_steps:
                zz.asleep = True
                pts.prev[:] = pts.pos
                card.spin[:] = 0.0
                pts.inv_mass[:] = 0.0
                cad.active = False
