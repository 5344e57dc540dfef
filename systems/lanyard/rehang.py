"""Rehang: lay a lanyard whose state has gone non-finite back down, straight and still.

Reads: Points, Pins, Card, CardGrab. Writes: Points.pos/prev, Card.pos/rot/spin, CardGrab.held.

A NaN or an infinity never heals in Verlet — every neighbour it touches through a
constraint catches it — so one bad value (an extreme level, a driver returning
garbage for a ray) would blank the badge for good. Each step, before anything
moves, a strap with any non-finite position, or a card with a non-finite pose,
is re-hung: its points straight down from the pinned anchor at rest spacing,
with no velocity, and the card flat and unheld. A finite scene is left alone
(one `isfinite` over 25 points a step).
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Constraints, Pins, Points
from ropework.components.lanyard import Card, CardGrab


def broken(pts: Points, card: Card) -> bool:
    return not (np.isfinite(pts.pos).all() and np.isfinite(pts.prev).all() and np.isfinite(card.rot).all()
                and np.isfinite(card.spin).all() and np.isfinite(card.pos).all())


def rehang(pts: Points, pins: Pins, con: Constraints, card: Card, grab: CardGrab | None) -> None:
    """Straight down from the first pin at the first link's rest length, at rest; the card flat."""
    top = pins.anchor[0].astype(np.float64)
    rest = float(con.rest[0]) if len(con.rest) and np.isfinite(con.rest[0]) else 0.1
    j = np.arange(len(pts.pos))[:, None]
    pts.pos[:] = (top - j * rest * np.array([0.0, 1.0, 0.0])[: pts.pos.shape[1]]).astype(pts.pos.dtype)
    pts.prev[:] = pts.pos
    pins.apply(pts)
    card.rot[:] = 0.0
    card.spin[:] = 0.0
    card.pos[:] = pts.pos[-1] + card.hang
    if grab is not None:
        grab.held = False


class Rehang(esper.Processor):
    def process(self, frame):
        for ent, (pts, pins, con, card) in esper.get_components(Points, Pins, Constraints, Card):
            if broken(pts, card):
                rehang(pts, pins, con, card, esper.try_component(ent, CardGrab))
