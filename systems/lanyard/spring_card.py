"""Spring card: lock the badge to the strap's end and turn it — springing back after a release.

Reads: Points (last point), CardGrab, CardSpring, Cadence, Camera, CardPins. Writes: Card.pos, Card.rot,
Card.spin; Points.pos/prev of other bodies' CardPins.

Runs after relax, on the strap's settled positions. Then the points other layers pinned to the
card (`CardPins`: a rope's `[[layer.attach]]` with ``card = true``) are put on the card's clip as
the screen shows it (its origin through the first lanyard's camera, px), their previous
position where they were: one way, the card infinitely heavy to them. The card's origin is the
last point plus its small offset behind the strap. Its velocity v is the last
point's pos − prev: units per strap step.

Released (the seed, a damped pendulum per axis): rot Z eases to 0 by `ease_z`
per step with no spin of its own; rot X springs toward
clamp(−lift_gain·v_y, ±lift_max) and rot Y toward 0 with angular acceleration
−ω²·sin(θ − target), integrated with the strap's step; each step every spin is
multiplied by max(keep_min, 1 − (drag·|ω| + drag_base)), so fast swings lose
more (air) and a slow one still dies out.

Held: as the seed (its spring runs only ``if (!isDragging)``), the card's rotation
and spin are left as they were at the press, and the release resumes from them.
With `CardGrab.tilt_while_held` (a level option, ours) the card instead eases toward
a tilt set by the hand's velocity — about X by −tilt_x·v_y (the release target's
sign), about Y turned into the motion by tilt_y·v_x, about Z trailing by −tilt_z·v_x —
each clamped, and its spin is the tilt's rate of change, so a release carries that
spin into the spring and the card rocks far more than the seed's.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Points
from ropework.components.lanyard import Cadence, Camera, Card, CardFlip, CardGrab, CardPins, CardSpring
from ropework.systems.lanyard.camera import project


def spring_back(card: Card, s: CardSpring, vy: float, target_y: float = 0.0) -> None:
    """One strap step of the seed's release spring, in place; rot Y springs toward
    ``target_y`` (π for a flipped card; the seed's 0 otherwise)."""
    rot, spin = card.rot, card.spin
    spin[2] = 0.0
    rot[2] += (0.0 - rot[2]) * s.ease_z
    target_x = min(max(-vy * s.lift_gain, -s.lift_max), s.lift_max)
    spin[0] += -s.omega_x2 * math.sin(rot[0] - target_x) * s.dt
    spin[1] += -s.omega_y2 * math.sin(rot[1] - target_y) * s.dt
    for q in (0, 1):
        spin[q] *= max(s.keep_min, 1.0 - (s.drag * abs(spin[q]) + s.drag_base))
        rot[q] += spin[q] * s.dt


def tilt(card: Card, g: CardGrab, v: np.ndarray, dt: float, side: float | None = None) -> None:
    """One strap step of the held card easing toward its velocity tilt, in place. ``side``
    (a flippable card's rot-Y rest, 0 or π): the Y tilt is about that side, the short way round."""
    want = np.array([-g.tilt[0] * v[1], g.tilt[1] * v[0], -g.tilt[2] * v[0]])
    want = np.clip(want, -g.tilt_max, g.tilt_max)
    gap = want - card.rot
    if side is not None:
        gap[1] = (want[1] + side - card.rot[1] + math.pi) % (2.0 * math.pi) - math.pi
    new = card.rot + gap * g.tilt_ease
    card.spin[:] = (new - card.rot) / dt
    card.rot[:] = new


class SpringCard(esper.Processor):
    def process(self, frame):
        for ent, (pts, card, grab, spring, cad) in esper.get_components(Points, Card, CardGrab, CardSpring, Cadence):
            card.pos[:] = pts.pos[-1] + card.hang
            if not cad.active:
                continue
            v = pts.pos[-1].astype(np.float64) - pts.prev[-1]
            flip = esper.try_component(ent, CardFlip)
            if grab.held:
                if grab.tilt_while_held:
                    tilt(card, grab, v, spring.dt, flip.target_y if flip is not None else None)
            else:
                spring_back(card, spring, float(v[1]), flip.target_y if flip is not None else 0.0)
        pinned = esper.get_component(CardPins)   # esper caches the query: [] in a scene without any
        if pinned:
            carry(frame, pinned)


def carry(frame, pinned) -> None:
    """Put every `CardPins` point on the first lanyard's card clip, in screen px."""
    lanyards = sorted(esper.get_components(Card, Camera), key=lambda e: e[0])
    if not lanyards:
        return
    _, (card, cam) = lanyards[0]
    px, w = project(cam, frame.width, frame.height, card.pos)
    if w[0] <= 0.0 or not np.isfinite(px).all():     # behind the eye: the points stay where they were
        return
    for ent, cp in pinned:
        pts = esper.try_component(ent, Points)
        if pts is not None and len(cp.index):
            pts.prev[cp.index] = pts.pos[cp.index]
            pts.pos[cp.index] = px[0].astype(np.float32)
