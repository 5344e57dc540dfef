"""What the lanyard tests share: where the card is on screen, and a settled strap."""
from __future__ import annotations

import numpy as np

from ropework.components import Points
from ropework.components.lanyard import Camera, Card, CardGrab
from ropework.systems.lanyard import camera as cam3

SIZE = (800, 600)
SETTLE = 600   # steps (10 s): the strap's swing has died out


def parts(scene):
    """(points, card, grab, camera) of the scene's one lanyard."""
    (ent, card), = scene.find(Card)
    return (scene.component(ent, Points), card, scene.component(ent, CardGrab), scene.component(ent, Camera))


def card_centre(card: Card) -> np.ndarray:
    """World position of the card's face centre, at its pose."""
    w, h, t = card.size
    local = np.array([0.0, -card.drop - h / 2, 0.0])
    return cam3.euler_xyz(card.rot) @ local + card.pos


def card_pixel(scene) -> tuple[float, float]:
    """Scene pixel over the centre of the card's face."""
    _, card, _, camera = parts(scene)
    px, _ = cam3.project(camera, scene.width, scene.height, card_centre(card)[None])
    return float(px[0, 0]), float(px[0, 1])


def pixel_of(scene, world) -> tuple[float, float]:
    _, _, _, camera = parts(scene)
    px, _ = cam3.project(camera, scene.width, scene.height, np.asarray(world, float)[None])
    return float(px[0, 0]), float(px[0, 1])
