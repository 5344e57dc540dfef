"""T and M in every toy: both themes read, or T says the toy has one; M does what each seed says."""
from __future__ import annotations

import arcade
import numpy as np
import pytest

from ropework import level
from ropework.components.dotgrid import DotGrid
from ropework.controller import Controller
from ropework.render import Offscreen

K = arcade.key
SIZE = (480, 270)


def luminance(rgb) -> np.ndarray:
    """WCAG relative luminance of sRGB 0..255 colours."""
    c = np.asarray(rgb, float) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a, b) -> np.ndarray:
    la, lb = luminance(a), luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


@pytest.mark.parametrize("name", [p.name for p in level.shipped()])
def test_every_toy_reads_in_each_of_its_themes(scenes, gl_window, name, render_profile):
    """The dot grid's #f0f0f0 dots vanished on the light page (1.03:1). In every theme a toy has, at least
    1,000 of its pixels (a hundred for the lanyard's small card and strap) stand out 1.5:1 from the page
    (seed 001's cyan rope on its own light page is 1.8:1)."""
    s = scenes(name, size=SIZE, seed=1)
    s.step(30)
    off = Offscreen(gl_window.ctx, SIZE)
    for theme in s.themes():
        while s.theme != theme:
            s.toggle_theme()
        off.render(s)
        img = off.pixels()[:, :, :3]
        page = img[0, 0] if "tendrils" in name else np.round(np.array(s.background[:3]) * 255)
        strong = (contrast(img.reshape(-1, 3), page) >= 1.5).sum()
        assert strong >= (100 if "lanyard" in name else 1000), f"{name} on {theme}: {strong} px read"


def test_the_dot_grid_shows_dark_dots_on_the_light_theme_and_keeps_its_state(scenes, gl_window):
    s = scenes("dotgrid.toml", size=SIZE, seed=1)
    s.step(5)
    (_, grid), = s.find(DotGrid)
    x, y = (int(round(v)) for v in grid.origin[0] + grid.offset[0])
    off = Offscreen(gl_window.ctx, SIZE)
    assert s.theme == "dark"
    off.render(s)
    dark = off.pixels()[y, x, :3].astype(int)
    before = s.state_hash()
    s.toggle_theme()
    off.render(s)
    light = off.pixels()[y, x, :3].astype(int)
    page = np.round(np.array(s.background[:3]) * 255)
    assert dark.min() > 200 and light.max() < 100                 # #f0f0f0 on the dark page, #3a3a40 on the light
    assert contrast(light, page) > 7 and s.state_hash() == before    # only the drawing changed


def test_t_in_tendrils_says_it_has_one_theme(scenes, tmp_path):
    ctl = Controller(scenes("tendrils.toml", size=SIZE), out_dir=tmp_path)
    ctl.press(K.T)
    assert ctl.scene.theme == "dark"
    assert ctl.status.startswith("Tendrils has one theme, dark: ")
    ctl.press(K.T)
    assert ctl.scene.theme == "dark"


def test_t_in_a_two_theme_toy_switches_and_says_so(scenes, tmp_path):
    ctl = Controller(scenes("rope.toml", size=SIZE), out_dir=tmp_path)
    ctl.press(K.T)
    assert ctl.scene.theme == "dark" and ctl.status == "dark theme"


@pytest.mark.parametrize("name", ["rope.toml", "cloth.toml"])
def test_m_in_the_rope_and_cloth_paints_one_frame_and_stops(scenes, tmp_path, name):
    """Seed 001: 'Reduced motion: paint one frame, then stop.' M starts the toy again (as the seed reads
    the setting when it starts) and then nothing moves, whatever the hand does; M again and it plays."""
    ctl = Controller(scenes(name, size=SIZE, seed=1), out_dir=tmp_path)
    ctl.update(1 / 60 * 30)
    ctl.press(K.M)
    assert ctl.scene.reduced_motion and ctl.status.startswith("reduced motion on: the ")
    start = ctl.scene.state_hash()
    fresh = Controller(scenes(name, size=SIZE, seed=1), out_dir=tmp_path)
    assert start == fresh.scene.state_hash()                             # the first frame, as at load
    s = ctl.scene
    s.pointer_down(SIZE[0] / 2, 40)
    for k in range(30):
        s.pointer_move(SIZE[0] / 2 + 8 * k, 40 + 4 * k)
        ctl.update(1 / 60)
    s.pointer_up(SIZE[0] / 2 + 240, 160)
    ctl.update(0.05)
    assert s.state_hash() == start and s.pointer.events == []          # still, and no input piles up
    ctl.press(K.M)
    assert not ctl.scene.reduced_motion
    s = ctl.scene
    s.pointer_down(SIZE[0] / 2, 40)
    for k in range(30):
        s.pointer_move(SIZE[0] / 2 + 8 * k, 40 + 4 * k)
        ctl.update(1 / 60)
    assert s.state_hash() != start


def test_m_in_the_dot_grid_keeps_a_click_near_the_click(scenes, tmp_path):
    """Seed 000 is silent; the choice (game/kinds/dotgrid.py MOTION_NOTE): a click's ring does not spread
    across the page, and swipes do not shove. Dots more than a ring band from the click never move."""
    far_moved = {}
    for reduced in (False, True):
        s = scenes("dotgrid.toml", size=SIZE, seed=1, reduced_motion=reduced)
        (_, grid), = s.find(DotGrid)
        cx, cy = 100.0, 100.0
        far = np.hypot(grid.origin[:, 0] - cx, grid.origin[:, 1] - cy) > 210   # past the push under the pointer (200)
        s.pointer_move(cx, cy)
        s.step(1)
        s.pointer_down(cx, cy)
        s.pointer_up(cx, cy)
        most = 0.0
        for _ in range(50):
            s.step(1)
            most = max(most, float(np.abs(grid.offset[far]).max()))
        far_moved[reduced] = most
    assert far_moved[False] > 1.0 and far_moved[True] == 0.0
