"""Grab card: a press whose ray hits the badge's pick box takes the card; release lets go.

Reads: Pointer, Card, Camera, Layer, Points (last point), Frame.width/height.
Writes: CardGrab (held, hover, offset, target), Pointer.claimed_by, a lower layer's Grab.held.

Runs after the input system. The pointer's pixel becomes a ray from the camera
(the seed's Raycaster); the card is hit when the ray meets an invisible box
around it (the seed's drag proxy: cheaper and kinder than the card's own mesh).
The box's eight corners are projected to the screen and the press is tested
against their convex hull with pymunk (`ropework.systems.services.hitquery.inside_outline`) — for a
convex box that is exactly the set of pixels whose rays hit it. A press is
taken only if no layer above took it: unclaimed, or claimed by a lower layer
(whose grab is then dropped), so z in the level file decides. At the press the
grab offset is recorded, last point minus the ray's z = 0 point, and while held
the drag target is the ray's z = 0 point plus that offset. Up or leave ends it.

With `CardFlip` (the `flip` key), a release that comes within `max_steps` of
its press and after no more than `max_travel` px of pointer travel is a click:
the card flips (its spring's rot-Y target turns by π) with a spin kick toward
the new side. A leave is never a click.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Layer, Pointer, Points
from ropework.components.lanyard import Camera, Card, CardFlip, CardGrab
from ropework.systems.input import claimed_above, release
from ropework.systems.lanyard import camera as cam3
from ropework.systems.services.hitquery import inside_outline

_CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], np.float64)


def proxy_corners(card: Card) -> np.ndarray:
    """float64[8, 3]: the pick box's corners in world space, at the card's pose."""
    centre, half = card.proxy()
    local = centre + _CORNERS * half
    return local @ cam3.euler_xyz(card.rot).T + card.pos


def hits_card(card: Card, camera: Camera, width: float, height: float, x: float, y: float) -> bool:
    """Whether the ray from the camera through pixel (x, y) hits the card's pick box."""
    px, w = cam3.project(camera, width, height, proxy_corners(card))
    if np.any(w <= camera.near):      # the box reaches behind the eye: no sane outline
        return False
    return inside_outline(px, x, y)


def click(flip: CardFlip, card: Card, step: int) -> bool:
    """At a release: flip the card if the press was a click (short and still); return whether it was."""
    quick = 0 <= step - flip.press_step <= flip.max_steps and flip.travel <= flip.max_travel
    flip.press_step = -1
    if quick:
        flip.flipped = not flip.flipped
        card.spin[1] += flip.spin if flip.flipped else -flip.spin
    return quick


class GrabCard(esper.Processor):
    def process(self, frame):
        ptr = next((p for _, p in esper.get_component(Pointer)), None)
        if ptr is None:
            return
        w, h = frame.width, frame.height
        for ent, (card, grab, camera, layer, pts) in esper.get_components(Card, CardGrab, Camera, Layer, Points):
            if ptr.pressed and not claimed_above(ptr, layer.z) and hits_card(card, camera, w, h, ptr.x, ptr.y):
                hit = cam3.plane_point(camera, w, h, ptr.x, ptr.y)
                if hit is not None:
                    release(ptr.claimed_by)
                    ptr.claimed_by = ent
                    grab.held = True
                    grab.offset = pts.pos[-1].astype(np.float64) - hit
                    flip = esper.try_component(ent, CardFlip)
                    if flip is not None:
                        flip.press_step, flip.press_x, flip.press_y, flip.travel = frame.steps, ptr.x, ptr.y, 0.0
            if grab.held and (not ptr.down or not ptr.inside):
                grab.held = False
                flip = esper.try_component(ent, CardFlip)
                if flip is not None and ptr.inside:
                    click(flip, card, frame.steps)
            elif grab.held:
                flip = esper.try_component(ent, CardFlip)
                if flip is not None:
                    flip.travel = max(flip.travel, float(np.hypot(ptr.x - flip.press_x, ptr.y - flip.press_y)))
            if grab.held:
                aim = cam3.plane_point(camera, w, h, ptr.x, ptr.y)
                if aim is not None:
                    grab.target = aim + grab.offset
            grab.hover = grab.held or (ptr.inside and hits_card(card, camera, w, h, ptr.x, ptr.y))
