"""Electrify: while the button is held over a tendril bundle, charge it.

Reads: Pointer (down, claimed_by), Tendrils (drag, electric_drag). Writes:
Tendrils.electrified, Forces.damping.

A held button that no other layer took (a grab, a card) electrifies every
bundle: blow then drops gravity and adds the shake, and draw_tendrils draws the
ropes white. The drag becomes the seed's much stronger 0.9 per step (velocity
half-life ≈ 6.6 steps, 0.11 s, against ≈ 46 steps, 0.76 s, at 0.985), so the
shake reads as a crackle rather than a flight. Release restores both.
"""
from __future__ import annotations

import esper

from ropework.components import Forces, Pointer
from ropework.components.tendrils import Tendrils


class Electrify(esper.Processor):
    def process(self, frame):
        held, claimer = False, -1
        for _, ptr in esper.get_component(Pointer):
            held, claimer = ptr.down, ptr.claimed_by
        for ent, (td, forces) in esper.get_components(Tendrils, Forces):
            td.electrified = held and claimer in (-1, ent)
            forces.damping = td.electric_drag if td.electrified else td.drag
