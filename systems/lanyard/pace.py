"""Pace: hold a body that steps slower than the engine still between its own steps.

Reads: Cadence, Pins, Frame.steps. Writes: Cadence.active, Points.inv_mass.

A body with `Cadence(every=k)` takes one step every k engine steps (the lanyard's
low-power 1/30 s step on the engine's 1/60 s clock). On the engine steps in
between, every point's solver weight is set to 0: integrate and relax leave
weightless points alone, so the body keeps its positions and its Verlet history
— its velocity — exactly. On the body's own steps its pins restore the weights.
With k = 1 (the default) nothing is written.
"""
from __future__ import annotations

import esper

from ropework.components import Pins, Points
from ropework.components.lanyard import Cadence


class Pace(esper.Processor):
    def process(self, frame):
        for ent, (pts, cad) in esper.get_components(Points, Cadence):
            if cad.every <= 1:
                cad.active = True
                continue
            was_active = cad.active
            cad.active = frame.steps % cad.every == 0
            if not cad.active:
                pts.inv_mass[:] = 0.0
            elif not was_active:
                pins = esper.try_component(ent, Pins)
                if pins is not None:
                    pins.apply(pts)
                else:
                    pts.inv_mass[:] = 1.0
