"""Draw lanyard: the ribbon follows the strap, and a headless frame shows the lit card and the strap's red edge."""
from __future__ import annotations

import numpy as np
import pytest

from components.card import CardLook
from game.render import Offscreen
from systems.draw_lanyard import catmull_rom, render_ratio, ribbon, ribbon_indices, slab
from tests.lanyard import SETTLE, SIZE, card_pixel, parts, pixel_of


def wavy(n=9):
    t = np.linspace(0, 1, n)
    return np.stack([np.sin(3 * t), 5 - 3 * t, 0.3 * np.cos(5 * t)], axis=1)


def test_the_curve_passes_through_every_point_with_central_tangents():
    p = wavy()
    pos, tan = catmull_rom(p, 4)
    assert len(pos) == (len(p) - 1) * 4 + 1
    assert np.allclose(pos[::4], p)
    assert np.allclose(tan[4:-4:4], (p[2:] - p[:-2]) / 2)


def test_the_ribbon_is_width_wide_across_the_tangent_turned_about_z():
    p = wavy()
    v = ribbon(p, 0.3, 4).reshape(-1, 2, 8)
    pos, tan = catmull_rom(p, 4)
    across = v[:, 0, :3] - v[:, 1, :3]
    assert np.allclose(np.linalg.norm(across, axis=1), 0.3, atol=1e-6)
    assert np.allclose(across[:, 2], 0) and np.allclose((across[:, :2] * tan[:, :2]).sum(1), 0, atol=1e-6)
    assert np.allclose((v[:, 0, :3] + v[:, 1, :3]) / 2, pos, atol=1e-6)
    u = v[:, 0, 6]
    assert u[0] == 0 and u[-1] == pytest.approx(1) and np.all(np.diff(u) > 0)
    assert np.all(v[:, 0, 7] == 0) and np.all(v[:, 1, 7] == 1)
    assert np.all(v[:, 0, 5] > 0)                       # faces the camera when hanging in its plane
    assert ribbon_indices(3).tolist() == [0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5]


def test_the_card_slab_faces_point_out_and_cover_the_card():
    parts_ = slab(-0.8, -2.41, 0.8, -0.16, -0.04, 0.0, 0.1, 0.035)
    front, back, edge = (parts_[k][0] for k in ("front", "back", "edge"))
    assert np.all(front[:, 2] == 0) and np.all(front[:, 5] > 0) and np.all(back[:, 5] < 0)
    assert front[:, 0].min() == pytest.approx(-0.8) and front[:, 1].max() == pytest.approx(-0.16)
    assert np.allclose(np.linalg.norm(edge[:, 3:6], axis=1), 1) and np.all(edge[:, 5] == 0)
    assert front[:, 6].min() == pytest.approx(0) and front[:, 7].max() == pytest.approx(1)


@pytest.mark.parametrize("dpr, aa, cap, want", [
    (1.0, True, 2.0, (2.0, 2)), (2.0, True, 2.0, (2.0, 1)), (3.0, True, 2.0, (2.0, 1)),
    (1.0, False, 2.0, (1.0, 1)), (1.0, True, 1.5, (2.0, 2)), (2.0, False, 1.5, (1.5, 1)),
])
def test_render_ratio_caps_the_pixel_ratio_and_supersamples_sparse_framebuffers(dpr, aa, cap, want):
    look = CardLook("", "", "#000000", "#000000", "#000000", "#000000", "", max_pixel_ratio=cap, antialias=aa)
    assert render_ratio(look, dpr) == want


@pytest.fixture
def frame_of_settled(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    return s, off.pixels().astype(int)


def test_a_headless_frame_shows_the_lit_card_and_the_straps_red_edge(frame_of_settled):
    s, img = frame_of_settled
    pts, card, _, _ = parts(s)
    bg = np.round(np.array(s.background[:3]) * 255)
    x, y = card_pixel(s)
    face = img[int(y) - 20:int(y) - 10, int(x) - 20:int(x) + 20, :3].reshape(-1, 3)
    assert np.median(face, axis=0).min() > 215 and np.abs(face - bg).sum(1).max() > 6   # card stock, not page
    ink = img[int(y) - 10:int(y) + 30, int(x) - 40:int(x) + 40, :3]
    assert (ink.max(-1) < 80).sum() > 50                                                 # the title's ink
    sx, sy = (int(round(v)) for v in pixel_of(s, pts.pos[10]))
    row = img[sy, sx - 20:sx + 21, :3]
    red = row[:, 0] - row[:, 1:].max(-1) > 60                   # the 0.8 px border blends with its neighbours
    dark = row.max(-1) < 60
    assert red[:20].any() and red[21:].any() and dark.any()       # red edges either side of the dark band
    assert np.all(img[sy, :sx - 40, :3] == bg) and np.all(img[sy, sx + 40:, :3] == bg)   # transparent elsewhere


def test_the_turned_card_shows_its_edge_and_shading_changes(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, SIZE)
    _, card, _, _ = parts(s)
    x, y = card_pixel(s)
    off.render(s)
    flat = off.pixels()[int(y) - 15, int(x) - 15, :3].astype(int)
    card.rot[:] = (0.0, 0.9, 0.0)                       # turned about Y: the face catches the key light differently
    off.render(s)
    turned = off.pixels().astype(int)
    assert np.abs(turned[int(y) - 15, int(x) - 15, :3] - flat).sum() > 6 or \
        np.abs(turned[int(y) - 15, int(x) + 15, :3] - flat).sum() > 6


def test_a_dense_framebuffer_gets_the_card_at_its_own_pixels(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, (2 * SIZE[0], 2 * SIZE[1]))    # a HiDPI window: 2 px per scene px
    off.render(s)
    img = off.pixels().astype(int)
    x, y = card_pixel(s)
    face = img[int(2 * y) - 40:int(2 * y) - 20, int(2 * x) - 40:int(2 * x) + 40, :3].reshape(-1, 3)
    assert np.median(face, axis=0).min() > 215
    assert np.all(img[int(2 * y), :int(2 * x) - 200, :3] == np.round(np.array(s.background[:3]) * 255))
