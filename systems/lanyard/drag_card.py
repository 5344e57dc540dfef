"""Drag card: pull the strap's last point toward the drag target while the card is held.

Reads: CardGrab (held, target, follow), Cadence. Writes: Points.pos of the last point.

Runs right after integrate, where the seed lerps: the last point closes `follow`
(0.35) of its gap to the target each strap step, after the Verlet prediction and
before the constraints. The move is not copied into the point's previous
position, so it becomes velocity: the hand's motion is what a release throws.
The constraints then drag the rest of the strap along.
"""
from __future__ import annotations

import esper

from ropework.components import Points
from ropework.components.lanyard import Cadence, CardGrab


class DragCard(esper.Processor):
    def process(self, frame):
        for _, (pts, grab, cad) in esper.get_components(Points, CardGrab, Cadence):
            if grab.held and cad.active:
                last = pts.pos[-1]
                last += (grab.target.astype(last.dtype) - last) * last.dtype.type(grab.follow)
