"""The lanyard's issue-17 keys: click to flip and the back image, breeze, finishes, orientation,
strap image, anchor, and re-hanging a strap gone non-finite."""
from __future__ import annotations

import math

import numpy as np
import pytest
from PIL import Image

from ropework.components.lanyard import Breeze, CardFlip
from ropework.level import load
from ropework.render import Offscreen
from ropework.schema import LevelError
from tests.lanyard import SETTLE, SIZE, card_pixel, parts, pixel_of


def level(tmp_path, **keys):
    def val(v):
        return str(v).lower() if isinstance(v, bool) else f'"{v}"' if isinstance(v, str) else str(v)
    body = "".join(f"{k} = {val(v)}\n" for k, v in keys.items())
    path = tmp_path / "badge.toml"
    path.write_text(f'# python -m ropework badge.toml\ntheme = "dark"\n[[layer]]\nkind = "lanyard"\n{body}')
    return path


def settled(scenes, tmp_path, reduced_motion=True, **keys):
    s = scenes(level(tmp_path, **keys), size=SIZE, reduced_motion=reduced_motion)
    s.step(60)
    return s


def click(s, hold_steps=3, travel=0.0):
    x, y = card_pixel(s)
    s.pointer_move(x, y)
    s.step(1)
    s.pointer_down(x, y)
    s.step(1)
    for k in range(hold_steps):
        s.pointer_move(x + travel * (k + 1) / hold_steps, y)
        s.step(1)
    s.pointer_up(x + travel, y)
    s.step(1)


def wrapped(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


# ── click to flip ───────────────────────────────────────────────────────────

def test_a_click_flips_the_card_over_and_a_second_flips_it_back(scenes, tmp_path):
    s = settled(scenes, tmp_path, flip=True)
    click(s)
    (_, flip), = s.find(CardFlip)
    assert flip.flipped
    s.step(300)
    _, card, _, _ = parts(s)
    assert abs(wrapped(card.rot[1] - math.pi)) < 0.05          # the back faces the camera
    click(s)
    s.step(300)
    assert not flip.flipped and abs(wrapped(card.rot[1])) < 0.05


@pytest.mark.parametrize("hold, travel", [(30, 0.0), (3, 10.0)])
def test_a_long_press_or_a_drag_is_no_click(scenes, tmp_path, hold, travel):
    s = settled(scenes, tmp_path, flip=True)
    click(s, hold_steps=hold, travel=travel)
    (_, flip), = s.find(CardFlip)
    assert not flip.flipped


def test_without_the_flip_key_a_click_does_not_flip(scenes, tmp_path):
    s = settled(scenes, tmp_path)
    assert not s.find(CardFlip)
    click(s)
    s.step(300)
    assert abs(wrapped(parts(s)[1].rot[1])) < 0.05


def centre_rgb(s, gl_window):
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    x, y = card_pixel(s)
    return off.pixels()[int(y) - 3:int(y) + 4, int(x) - 3:int(x) + 4, :3].reshape(-1, 3).astype(int).mean(axis=0)


def test_a_flip_shows_the_back_image(scenes, tmp_path, gl_window):
    Image.new("RGB", (64, 90), (255, 0, 0)).save(tmp_path / "front.png")
    Image.new("RGB", (64, 90), (0, 200, 0)).save(tmp_path / "back.png")
    s = settled(scenes, tmp_path, flip=True, card_image="front.png", card_back_image="back.png")
    r, g, b = centre_rgb(s, gl_window)
    assert r > 150 and g < 80                                   # the red front
    click(s)
    s.step(300)
    r, g, b = centre_rgb(s, gl_window)
    assert g > 120 and r < 80                                   # the green back


def test_the_back_falls_back_to_the_front_picture(scenes, tmp_path, gl_window):
    Image.new("RGB", (64, 90), (0, 90, 255)).save(tmp_path / "front.png")
    s = settled(scenes, tmp_path, flip=True, card_image="front.png")
    click(s)
    s.step(300)
    r, g, b = centre_rgb(s, gl_window)
    assert b > 150 and r < 60


@pytest.mark.parametrize("key", ["card_back_image", "strap_image"])
def test_a_picture_outside_the_level_folder_is_a_one_line_error(tmp_path, key):
    inner = tmp_path / "inner"
    inner.mkdir()
    with pytest.raises(LevelError) as e:
        load(level(inner, **{key: "../x.png"}))
    assert f"layer[0].{key}" in str(e.value) and "leads outside it" in str(e.value) and "\n" not in str(e.value)


# ── breeze ──────────────────────────────────────────────────────────────────

def test_a_breeze_keeps_the_strap_moving_and_still_air_does_not(scenes, tmp_path):
    calm = settled(scenes, tmp_path, reduced_motion=False)
    calm.step(SETTLE)
    windy = scenes(level(tmp_path, breeze=1.2), size=SIZE)
    windy.step(SETTLE)
    for s, moving in ((calm, False), (windy, True)):
        pts = parts(s)[0]
        ends = []
        for _ in range(240):
            s.step(1)
            ends.append(pts.pos[-1].copy())
        sway = np.ptp(np.array(ends)[:, 0])
        assert (sway > 0.02) == moving, sway
        if moving:
            assert sway < 1.0                                   # gentle: a drift, not a gale


def test_no_breeze_under_reduced_motion(scenes, tmp_path):
    s = scenes(level(tmp_path, breeze=5.0), size=SIZE, reduced_motion=True)
    assert s.find(Breeze)
    before = parts(s)[0].pos.copy()
    s.step(240)
    assert np.abs(parts(s)[0].pos - before).max() < 1e-4
    assert abs(parts(s)[1].spin[1]) < 1e-6


# ── finish, orientation, anchor, strap image ────────────────────────────────

def test_orientation_landscape_swaps_the_card_sides(scenes, tmp_path):
    s = scenes(level(tmp_path, orientation="landscape", card_width=1.6, card_height=2.25), size=SIZE)
    np.testing.assert_allclose(parts(s)[1].size[:2], (2.25, 1.6))


@pytest.mark.parametrize("anchor, share", [("centre", 0.5), ("left", 0.25), ("right", 0.75)])
def test_the_anchor_hangs_the_strap_left_centre_or_right(scenes, tmp_path, anchor, share):
    s = scenes(level(tmp_path, anchor=anchor, anchor_y=0.0), size=SIZE, reduced_motion=True)
    x, _ = pixel_of(s, parts(s)[0].pos[0])
    assert x == pytest.approx(share * SIZE[0], abs=1.0)


def card_pixels(scenes, tmp_path, gl_window, **keys):
    """The card's middle, its face turned to mirror the key light (3, 5, 5) into the camera."""
    s = settled(scenes, tmp_path, **keys)
    parts(s)[1].rot[:] = (-0.39, 0.24, 0.0)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    x, y = card_pixel(s)
    return off.pixels()[int(y) - 60:int(y) + 60, int(x) - 40:int(x) + 40, :3].astype(float)


def test_each_finish_shades_the_card_its_own_way(scenes, tmp_path, gl_window):
    looks = {f: card_pixels(scenes, tmp_path, gl_window, finish=f, card_colour="#8090a0")
             for f in ("glossy", "matte", "metallic", "holographic")}
    for a in looks:
        for b in looks:
            if a < b:
                assert np.abs(looks[a] - looks[b]).mean() > 2.0, (a, b)
    assert looks["glossy"].mean() > looks["matte"].mean() + 8     # the laminate's highlight; matte has none
    foil = np.clip(looks["holographic"] - looks["glossy"], 0, 255)     # the light the foil adds
    shown = foil.sum(axis=2) > 12
    assert shown.mean() > 0.3
    rgb = foil[shown] / foil[shown].max(axis=1, keepdims=True) * 255
    hue = np.asarray(Image.fromarray(rgb[None].astype(np.uint8)).convert("HSV"), float)[0, :, 0]
    assert np.percentile(hue, 95) - np.percentile(hue, 5) > 80      # a rainbow across the card, not one tint


def test_a_strap_image_repeats_along_the_strap(scenes, tmp_path, gl_window):
    Image.new("RGB", (32, 16), (0, 220, 0)).save(tmp_path / "strap.png")
    s = settled(scenes, tmp_path, strap_image="strap.png", strap_width=0.4)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    img = off.pixels()[:, :, :3].astype(int)
    x, y = pixel_of(s, parts(s)[0].pos[8])
    patch = img[int(y) - 2:int(y) + 3, int(x) - 2:int(x) + 3].reshape(-1, 3)
    assert (patch[:, 1] > 120).all() and (patch[:, 0] < 80).all()     # the image's green, lit
    from ropework.systems.lanyard.draw_lanyard import DrawLanyard
    drawer = next(d for d in s.draws if isinstance(d, DrawLanyard))
    (gl,) = drawer._gl.values()
    assert gl.strap_tile == pytest.approx(0.8)                        # 0.4 wide × 2:1 per repeat


# ── re-hang ─────────────────────────────────────────────────────────────────

def test_a_non_finite_strap_is_hung_again_straight_and_still(scenes, tmp_path):
    s = settled(scenes, tmp_path)
    pts, card, grab, _ = parts(s)
    pts.pos[7] = np.nan
    card.spin[0] = np.inf
    s.step(1)
    assert np.isfinite(pts.pos).all() and np.isfinite(card.rot).all() and np.isfinite(card.spin).all()
    s.step(SETTLE)
    assert np.isfinite(pts.pos).all()
    rest = parts(scenes(level(tmp_path), size=SIZE, reduced_motion=True))[0].pos   # a strap hung at rest
    assert np.abs(pts.pos - rest).max() < 0.01


# ── sleep when calm ─────────────────────────────────────────────────────────

def test_a_calm_lanyard_sleeps_exactly_still_and_a_grab_wakes_it(scenes, tmp_path):
    from ropework.components.lanyard import StrapSleep
    s = scenes(level(tmp_path, sleep=True), size=SIZE)
    s.step(SETTLE * 2)
    (_, zz), = s.find(StrapSleep)
    assert zz.asleep
    pts, card, grab, _ = parts(s)
    frozen, rot = pts.pos.copy(), card.rot.copy()
    s.step(300)
    assert (pts.pos == frozen).all() and (card.rot == rot).all()
    x, y = card_pixel(s)
    s.pointer_move(x, y)
    s.pointer_down(x, y)
    s.step(1)
    assert grab.held and not zz.asleep
    for k in range(20):
        s.pointer_move(x + 8 * k, y)
        s.step(1)
    assert np.abs(pts.pos - frozen).max() > 0.3            # the hand moves it as ever
    assert pts.inv_mass[0] == 0.0 and (pts.inv_mass[1:] == 1.0).all()


def test_a_breeze_or_the_default_never_sleeps(scenes, tmp_path):
    from ropework.components.lanyard import StrapSleep
    assert not scenes(level(tmp_path), size=SIZE).find(StrapSleep)
    s = scenes(level(tmp_path, sleep=True, breeze=1.0), size=SIZE)
    s.step(SETTLE * 2)
    assert not s.find(StrapSleep)[0][1].asleep
