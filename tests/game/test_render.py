"""Headless rendering: each rope's colour is where the rope is."""
import numpy as np

from ropework.components import Points, Ropes, RopeStyle
from ropework.render import Offscreen


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
