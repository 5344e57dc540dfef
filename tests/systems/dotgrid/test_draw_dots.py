"""Draw dots: tinted where the pointer is, grey elsewhere; one draw call; composes under other layers."""
from __future__ import annotations

import numpy as np
import pytest
from arcade.gl import Geometry

from ropework.render import Offscreen
from ropework.systems.services.canvas import Canvas
from tests.dots import dot_level, grid

SIZE = (800, 600)


def brightest(img, x, y):
    """RGB of the brightest pixel within 3 px of (x, y) — a dot's centre."""
    x, y = int(round(x)), int(round(y))
    patch = img[y - 3:y + 4, x - 3:x + 4, :3].reshape(-1, 3).astype(int)
    return patch[np.argmax(patch.sum(axis=1))]


@pytest.fixture
def draw_calls(monkeypatch):
    calls = []
    real = Geometry.render
    monkeypatch.setattr(Geometry, "render", lambda self, *a, **k: (calls.append(1), real(self, *a, **k))[1])
    blit = Canvas._blit          # a canvas composited by read-back and blit: one draw, without a Geometry
    monkeypatch.setattr(Canvas, "_blit", lambda self, *a, **k: (calls.append(1), blit(self, *a, **k))[1])
    return calls


def test_dots_near_the_pointer_are_cyan_green_and_far_ones_grey(scenes, gl_window):
    scene = scenes("dotgrid.toml", size=SIZE)
    scene.pointer_move(400, 300)
    scene.step(60)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    img = off.pixels()
    g = grid(scene)
    pos = g.origin + g.offset
    d = np.hypot(g.origin[:, 0] - 400, g.origin[:, 1] - 300)
    near = brightest(img, *pos[np.argmin(d)])
    far = brightest(img, *pos[np.argmax(d)])
    assert near[1] > 200 and near[1] - near[0] > 60 and near[2] - near[0] > 40, near   # #86ead4-ish
    assert far.min() > 225 and far.max() - far.min() <= 3, far                         # #f0f0f0
    gap = img[50, 50, :3].astype(int)                       # between dots: the dark theme's page
    assert gap.max() < 40


def test_every_dot_in_one_draw_call(scenes, gl_window, tmp_path, draw_calls):
    scene = scenes(dot_level(tmp_path, gap=4), size=SIZE)
    assert grid(scene).n == 200 * 150
    scene.pointer_move(400, 300)
    scene.step(2)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    off.render(scene)
    assert len(draw_calls) == 2          # one per frame


def test_the_grid_does_not_clear_what_is_under_it(scenes, gl_window):
    scene = scenes("dotgrid.toml", size=SIZE)
    off = Offscreen(gl_window.ctx, SIZE)
    with off.fbo.activate():
        gl_window.ctx.viewport = (0, 0, *SIZE)
        off.fbo.clear(color=(255, 0, 255, 255))
        scene.draw(gl_window.ctx)
    img = off.pixels()
    np.testing.assert_array_equal(img[50, 50, :3], (255, 0, 255))
    assert brightest(img, 25, 25).min() > 225


def test_a_background_is_drawn_only_when_the_level_asks(scenes, gl_window, tmp_path, draw_calls):
    scene = scenes(dot_level(tmp_path, background="#204060ff"), size=SIZE)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    img = off.pixels()
    np.testing.assert_array_equal(img[50, 50, :3], (0x20, 0x40, 0x60))
    np.testing.assert_array_equal(img[0, 0, :3], (0x20, 0x40, 0x60))
    np.testing.assert_array_equal(img[-1, -1, :3], (0x20, 0x40, 0x60))
    assert brightest(img, 25, 25).min() > 225
    assert len(draw_calls) == 2          # the fill, then the dots


def test_a_grid_draws_only_its_own_layer(scenes, gl_window, draw_calls):
    scene = scenes("dotgrid.toml", size=SIZE)
    with scene.active():
        for d in scene.draws:
            d.draw(scene.frame, "some-other-layer", gl_window.ctx)
    assert not draw_calls
