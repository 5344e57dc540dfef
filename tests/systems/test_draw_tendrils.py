"""Draw tendrils: the light buffers stay within MAX_LIGHT_PIXELS, and a coarse light still shows."""
import numpy as np

from ropework.render import Offscreen
from ropework.systems import draw_tendrils
from ropework.systems.draw_tendrils import MAX_LIGHT_PIXELS, light_size


def test_light_is_one_texel_a_pixel_until_the_scene_would_pass_the_cap():
    assert light_size((1280, 720), 1) == (1280, 720)
    assert light_size((1280, 720), 9) == (1280, 720)          # 9 bundles at 1280×720 fit
    w, h = light_size((8192, 8192), 1)
    assert w * h <= MAX_LIGHT_PIXELS and w * h > 0.99 * MAX_LIGHT_PIXELS and abs(w / h - 1) < 0.01
    w, h = light_size((1280, 720), 31)
    assert 31 * w * h <= MAX_LIGHT_PIXELS and abs(w / h - 16 / 9) < 0.01


def test_a_coarse_light_is_drawn_smoothed_where_the_full_one_is(scenes, gl_window, monkeypatch):
    """With the cap at a quarter of the picture, the light buffers have half the texels a side and the
    picture keeps the tendrils where they were: the same bright pixels, within a blur."""
    def picture():
        scene = scenes("tendrils.toml", size=(320, 200))
        scene.pointer_move(160, 100)
        scene.step(30)
        off = Offscreen(gl_window.ctx, (320, 200))
        off.render(scene)
        drawer = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))
        sizes = {t.size for t in drawer._trails.values()}
        return off.pixels()[:, :, :3].astype(int).sum(axis=2), sizes
    full, full_sizes = picture()
    monkeypatch.setattr(draw_tendrils, "MAX_LIGHT_PIXELS", 320 * 200 // 4)
    coarse, coarse_sizes = picture()
    assert full_sizes == {(320, 200)} and coarse_sizes == {(160, 100)}
    lit = full > full.max() / 2
    assert lit.sum() > 200
    assert (coarse[lit] > coarse.max() / 8).mean() > 0.9          # where the light was, it still is
    assert abs(coarse.sum() / full.sum() - 1) < 0.35             # about as much light in all
