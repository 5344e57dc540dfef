"""Headless rendering: each rope's colour is where the rope is."""
from pathlib import Path

import numpy as np
import pytest

import ropework.levels
from ropework.components import Points, Ropes, RopeStyle
from ropework.render import BAND_BYTES, Offscreen


def test_each_rope_colour_is_drawn_where_the_rope_is(scenes, gl_window):
    scene = scenes("rope.toml", size=(800, 600))
    scene.step(30)
    off = Offscreen(gl_window.ctx, (800, 600))
    off.render(scene)
    img = off.pixels().astype(int)
    (_, pts), = scene.find(Points)
    (_, ropes), = scene.find(Ropes)
    (_, style), = scene.find(RopeStyle)
    for r in range(3):
        mid = ropes.start[r] + ropes.count[r] // 2
        x, y = np.round(pts.pos[mid]).astype(int)
        patch = img[y - 2:y + 3, x - 2:x + 3, :3].reshape(-1, 3)
        want = np.round(style.colour[r, :3] * 255)
        assert np.abs(patch - want).sum(axis=1).min() < 40, (r, patch, want)
        far = img[y, x + 60, :3]
        assert np.abs(far - want).sum() > 100        # not painted everywhere


def test_background_follows_the_theme(scenes, gl_window):
    scene = scenes("rope.toml", size=(200, 150))
    off = Offscreen(gl_window.ctx, (200, 150))
    off.render(scene)
    light = off.pixels()[140, 100, :3].astype(int)
    scene.toggle_theme()
    off.render(scene)
    dark = off.pixels()[140, 100, :3].astype(int)
    assert light.mean() > 200 and dark.mean() < 40


def test_draw_calls_do_not_grow_with_the_number_of_ropes(scenes, gl_window, tmp_path, monkeypatch):
    from arcade.gl import Geometry
    calls = []
    real = Geometry.render
    monkeypatch.setattr(Geometry, "render", lambda self, *a, **k: (calls.append(1), real(self, *a, **k))[1])
    from ropework.systems.services.canvas import Canvas
    blit = Canvas._blit          # a canvas composited by read-back and blit: one draw, without a Geometry
    monkeypatch.setattr(Canvas, "_blit", lambda self, *a, **k: (calls.append(1), blit(self, *a, **k))[1])
    many = tmp_path / "many.toml"
    many.write_text('[[layer]]\nkind = "ropes"\n' + "".join(
        f'[[layer.rope]]\nanchor = {i / 300:.4f}\npoints = 20\ncolour = "#00d4ff"\n' for i in range(300)))
    counts = []
    for level in ("rope.toml", many):
        scene = scenes(level, size=(800, 600))
        scene.step(2)
        calls.clear()
        Offscreen(gl_window.ctx, (800, 600)).render(scene)
        counts.append(len(calls))
    assert counts[0] == counts[1] <= 4


@pytest.mark.parametrize("name", sorted(p.stem for p in Path(ropework.levels.__file__).parent.glob("*.toml")))
def test_a_picture_drawn_in_bands_is_the_picture_drawn_whole(scenes, gl_window, name, render_profile):
    """A large picture is drawn band by band through one small framebuffer (Offscreen's BAND_BYTES):
    every shipped level, mid-drag, gives the picture drawn whole — 37-row bands, so the last one is
    short and every band edge cuts through the scene. The shifted viewport rounds a few
    antialiased edge pixels one level differently (seen: up to 30 of 64,000, by 1 in 255), and
    a pixel centre on the edge two of a link's triangles share can be covered by both or by
    neither (seen: one pixel of cloth's, 2 levels); nothing more may differ. The picture is its
    colour: alpha, which no PNG or window shows, is not compared. Under each render profile
    (tests/systems/services/test_profile.py compares the two)."""
    scene = scenes(f"{name}.toml", size=(320, 200))
    scene.pointer_move(160, 60)
    scene.step(20)
    scene.pointer_down(160, 60)
    scene.pointer_move(120, 110)
    scene.step(20)
    whole, banded = Offscreen(gl_window.ctx, (320, 200)), Offscreen(gl_window.ctx, (320, 200), band_rows=37)
    assert (whole.rows, banded.rows) == (200, 37)
    whole.render(scene)
    banded.render(scene)
    a, b = whole.pixels(), banded.pixels()
    assert a.shape == b.shape == (200, 320, 4)
    diff = np.abs(a[:, :, :3].astype(int) - b[:, :, :3].astype(int)).max(axis=2)
    assert diff.max() <= 2 and np.count_nonzero(diff) <= a.shape[0] * a.shape[1] // 1000, (name, diff.max(),
                                                                                           np.count_nonzero(diff))
    assert np.array_equal(np.concatenate(list(banded.strips())), b[:, :, :3])


def test_a_large_picture_holds_one_band_not_the_whole(gl_window):
    off = Offscreen(gl_window.ctx, (8192, 8192))
    try:
        w, h = off.fbo.color_attachments[0].size
        assert (w, h) == (8192, off.rows) and w * h * 4 <= BAND_BYTES < 8192 * 8192 * 4
    finally:
        off.release()
