"""Breeze: a gentle, ever-changing wind on the lanyard's strap and card.

Reads: Breeze, Points, Frame.t/reduced_motion. Writes: Forces.extra, Card.spin.

The wind is a sum of three sines per axis at incommensurate frequencies (their
ratios irrational), so the pattern never repeats: mostly sideways (x), a third
as much toward and away from the camera (z). Each point feels it in proportion
to how far down the strap it hangs (the anchor is held; the end and the card
catch the most air), and the card turns a little about its string (Y) with the
same gusts. Under reduced motion there is no wind at all: the strap hangs still
unless the hand moves it.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Forces, Points
from ropework.components.lanyard import Breeze, Cadence, Card

GUSTS = ((0.31, 1.0, 0.0), (0.77, 0.45, 1.3), (1.93, 0.2, 2.9))   # (Hz, share, phase rad): slow swells, faster flutter
SIDE_SHARE = 0.35      # the wind toward/away from the camera, as a fraction of the sideways wind
TWIST = 0.25           # rad/s² of card spin about Y per unit/s² of wind at the strap's end


def gust(t: float, offset: float) -> float:
    """The wind's shape at time t, between about −1.65 and 1.65: three sines, never repeating."""
    return sum(share * math.sin(2.0 * math.pi * hz * t * math.sqrt(2.0 + offset) + phase + offset)
               for hz, share, phase in GUSTS)



class BreezeSystem(esper.Processor):
    def process(self, frame):
        for ent, (pts, forces, breeze) in esper.get_components(Points, Forces, Breeze):
            if forces.extra is None or forces.extra.shape != pts.pos.shape:
                forces.extra = np.zeros_like(pts.pos)
            cad = esper.try_component(ent, Cadence)
            if frame.reduced_motion or (cad is not None and not cad.active):
                forces.extra[:] = 0.0
                continue
            t = frame.t + breeze.phase
            wx = breeze.strength * gust(t, 0.0)
            wz = breeze.strength * SIDE_SHARE * gust(t, 0.5)
            n = len(pts.pos)
            reach = (np.arange(n, dtype=np.float32) / max(n - 1, 1))[:, None]
            forces.extra[:] = reach * np.array([wx, 0.0, wz], np.float32)
            card = esper.try_component(ent, Card)
            if card is not None:
                card.spin[1] += TWIST * breeze.strength * gust(t, 1.5) * frame.dt
