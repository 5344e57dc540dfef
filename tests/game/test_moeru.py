"""The composed moeru scene: the dot grid under the lanyard, routed by the level's z values."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.components import Layer
from ropework.components.dotgrid import DotGrid, Shockwaves
from ropework.render import Offscreen
from tests.lanyard import SETTLE, SIZE, card_pixel, parts


@pytest.fixture
def moeru(scenes):
    s = scenes("moeru.toml", size=SIZE)
    s.step(SETTLE)
    return s


def rings(scene) -> Shockwaves:
    (_, r), = scene.find(Shockwaves)
    return r


def test_layer_order_comes_from_the_level(moeru):
    assert [(lay.name, lay.kind, lay.z) for lay in moeru.layers] == [("dots", "dotgrid", 0), ("badge", "lanyard", 1)]


def test_one_frame_shows_the_dots_and_the_card(moeru, gl_window):
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(moeru)
    img = off.pixels().astype(int)
    (_, grid), = moeru.find(DotGrid)
    x, y = card_pixel(moeru)
    far = [o for o in grid.origin if abs(o[0] - x) > 150]            # dots well clear of the lanyard
    lit = [img[int(oy), int(ox), :3].min() > 200 for ox, oy in far]
    assert len(far) > 50 and all(lit)                                 # #f0f0f0 dots on the dark page
    between = img[int(far[0][1]) + 25, int(far[0][0]) + 25, :3]
    assert between.max() < 40                                         # and the page between them
    face = img[int(y) - 20:int(y) - 10, int(x) - 20:int(x) + 20, :3].reshape(-1, 3)
    assert np.median(face, axis=0).min() > 215                        # the card's lit stock, over the grid


def test_a_press_on_the_card_takes_it_and_starts_no_shockwave(moeru):
    (ent, _), = [(e, lay) for e, lay in moeru.find(Layer) if lay.kind == "lanyard"]
    _, _, grab, _ = parts(moeru)
    x, y = card_pixel(moeru)
    moeru.pointer_down(x, y)
    moeru.step(1)
    assert grab.held and moeru.pointer.claimed_by == ent
    assert rings(moeru).live == 0


def test_a_press_beside_the_card_starts_a_shockwave_there(moeru):
    _, _, grab, _ = parts(moeru)
    x, y = card_pixel(moeru)
    moeru.pointer_down(x + 200, y)
    moeru.step(1)
    r = rings(moeru)
    assert not grab.held and moeru.pointer.claimed_by == -1
    assert r.live == 1 and (r.x[r.alive][0], r.y[r.alive][0]) == (x + 200, y)


def test_dots_react_to_the_pointer_while_it_drags_the_card(moeru):
    (_, grid), = moeru.find(DotGrid)
    _, _, grab, _ = parts(moeru)
    x, y = card_pixel(moeru)
    moeru.pointer_down(x, y)
    for k in range(10):
        moeru.pointer_move(x + 4 * k, y - 3 * k)
        moeru.step(1)
    assert grab.held
    near = np.hypot(*(grid.origin - [x + 36, y - 27]).T) < 150
    assert np.abs(grid.offset[near]).max() > 0.5                      # pushed under the dragged card


def test_the_composed_scene_replays_bit_identically(scenes):
    hashes = []
    for _ in range(2):
        s = scenes("moeru.toml", size=SIZE)
        s.step(120)
        x, y = card_pixel(s)
        s.pointer_down(x + 200, y)
        s.step(3)
        s.pointer_up(x + 200, y)
        s.pointer_down(x, y)
        for k in range(20):
            s.pointer_move(x + 6 * k, y)
            s.step(1)
        s.pointer_up(x + 120, y)
        s.step(60)
        hashes.append(s.state_hash())
    assert hashes[0] == hashes[1]
