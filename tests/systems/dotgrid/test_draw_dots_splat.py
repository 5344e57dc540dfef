"""Draw dots on the CPU (the splat): the same picture as the GPU programs, for every look, through
plain, scaled and banded viewports; the sparse seed page keeps its GPU program.

Drawn into a float32 framebuffer, where neither path rounds to 8 bits, the two evaluate the same
formulas in float32 at the same pixel centres in the same order: they agree to float rounding,
except that the seed's program keeps fragments down to cover > 0 where the splat stops at
INVISIBLE (half an 8-bit level). So FLOAT_LEVELS is half a level, and a formula that is off
(a halo reaching 20 % further, a swell 10 % larger, a glow 10 % fainter) breaks it by far
(`test_the_comparison_sees_a_wrong_formula`).

Into the 8-bit picture a player sees, the GPU rounds after every blend (±½ level each) and the
splat once, when its image is composited; ~10 dots overlap a pixel of a dense grid (halos
included), so there the two part by the GPU's accumulated rounding: a level at most pixels
that differ, a few levels where many faint halos stack (MAX_LEVELS, MEAN_LEVELS).
"""
from __future__ import annotations

import numpy as np
import pytest

from ropework.components.dotgrid import DotGrid, DotSleep
from ropework.render import Offscreen
from ropework.systems.dotgrid import draw_dots
from tests.dots import dot_level, grid

SIZE = (400, 300)
FLOAT_LEVELS = 0.5      # the largest difference of a channel, of 255, drawn into a float framebuffer
MAX_LEVELS = 6          # ... drawn into the 8-bit picture (measured: 4)
MEAN_LEVELS = 0.4       # the mean difference of a channel in the 8-bit picture (measured: 0.08-0.26)
LOOK = {"swell": 0.6, "glow": 0.5, "stretch": 0.05}


def drive(scene, steps=40):
    """The bench's input: the pointer on a circle through the grid, a click every 20 steps."""
    w, h = scene.width, scene.height
    for k in range(steps):
        a = k * 40.0 / (0.3 * min(w, h))
        x, y = w / 2 + 0.3 * min(w, h) * np.cos(a), h / 2 + 0.3 * min(w, h) * np.sin(a)
        scene.pointer_move(x, y)
        if k % 20 == 0:
            scene.pointer_down(x, y)
        elif k % 20 == 1:
            scene.pointer_up(x, y)
        scene.step(1)


def use(scene, splat: bool, monkeypatch):
    """Draw ``scene`` with the splat or the GPU program from now on (fresh GL state)."""
    monkeypatch.setattr(draw_dots, "splat_pays", lambda *a: splat)
    drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
    drawer._gl.clear()
    return drawer


def made_splat(scene, drawer) -> bool:
    (ent, _), = scene.find(DotGrid)
    return drawer._gl[ent].splat is not None


def picture(scene, ctx, splat: bool, monkeypatch, size=SIZE, band_rows=None) -> np.ndarray:
    """int[h, w, 3]: the 8-bit picture (`Offscreen`, in bands of ``band_rows``)."""
    drawer = use(scene, splat, monkeypatch)
    off = Offscreen(ctx, size, band_rows=band_rows)
    off.render(scene)
    img = off.pixels()[..., :3].astype(int)
    off.release()
    assert made_splat(scene, drawer) == splat
    return img


def float_picture(scene, ctx, splat: bool, monkeypatch, size=SIZE) -> np.ndarray:
    """float[h, w, 3] in levels of 255: the scene drawn into a float32 framebuffer (no rounding)."""
    drawer = use(scene, splat, monkeypatch)
    fbo = ctx.framebuffer(color_attachments=[ctx.texture(size, components=4, dtype="f4")])
    with fbo.activate():
        ctx.viewport = (0, 0, *size)
        fbo.clear(color=tuple(scene.background))
        scene.draw(ctx)
    img = np.frombuffer(fbo.read(components=4, dtype="f4"), np.float32).reshape(size[1], size[0], 4)
    fbo.color_attachments[0].delete()
    fbo.delete()
    assert made_splat(scene, drawer) == splat
    return img[::-1, :, :3] * 255.0


def float_difference(scene, ctx, monkeypatch, size=SIZE) -> float:
    gpu = float_picture(scene, ctx, False, monkeypatch, size)
    assert (gpu.max(axis=2) > 60).mean() > 0.2          # the grid is there: a dense picture, not an empty one
    return float(np.abs(float_picture(scene, ctx, True, monkeypatch, size) - gpu).max())


@pytest.mark.parametrize("keys, theme", [
    (LOOK, "dark"),
    ({"shape": "square", "fade": 60}, "dark"),
    (dict(LOOK, shape="square"), "dark"),                     # a square along its motion
    (LOOK, "light"),
    ({}, "dark"),                                              # the seed's own program, dense
    ({}, "light"),
])
def test_the_splat_draws_what_the_gpu_draws(scenes, gl_window, tmp_path, monkeypatch, keys, theme):
    scene = scenes(dot_level(tmp_path, theme=theme, gap=3.04, **keys), size=SIZE)
    drive(scene)
    assert float_difference(scene, gl_window.ctx, monkeypatch) <= FLOAT_LEVELS


def test_the_8_bit_picture_parts_only_by_the_gpus_rounding(scenes, gl_window, tmp_path, monkeypatch):
    scene = scenes(dot_level(tmp_path, gap=3.04, **LOOK), size=SIZE)
    drive(scene)
    d = np.abs(picture(scene, gl_window.ctx, True, monkeypatch) - picture(scene, gl_window.ctx, False, monkeypatch))
    assert d.max() <= MAX_LEVELS and d.mean() <= MEAN_LEVELS, (d.max(), d.mean())


def test_the_intro_mid_way(scenes, gl_window, tmp_path, monkeypatch):
    scene = scenes(dot_level(tmp_path, gap=3.04, intro=1.0, **LOOK), size=SIZE)
    drive(scene, 30)                                      # 0.5 s: the centre in (overshooting), the corners not
    gpu = float_picture(scene, gl_window.ctx, False, monkeypatch)
    assert gpu[140:160, 190:210].max() > 200 and gpu[5:20, 5:20].max() < 60
    assert np.abs(float_picture(scene, gl_window.ctx, True, monkeypatch) - gpu).max() <= FLOAT_LEVELS


def test_a_scene_drawn_scaled_and_in_bands(scenes, gl_window, tmp_path, monkeypatch):
    """An 800×600 scene into a 400×300 picture (each pixel is 2×2 scene px), and a 400×300 scene in
    bands of 64 rows (Offscreen's viewport shifted past each band): as the GPU draws them whole."""
    scene = scenes(dot_level(tmp_path, gap=6.0, **LOOK), size=(800, 600))
    drive(scene)
    ctx = gl_window.ctx
    assert float_difference(scene, ctx, monkeypatch) <= FLOAT_LEVELS      # 800×600 into 400×300
    scene = scenes(dot_level(tmp_path, gap=3.04, **LOOK), size=SIZE)
    drive(scene)
    whole = picture(scene, ctx, True, monkeypatch)
    banded = picture(scene, ctx, True, monkeypatch, band_rows=64)       # 5 bands, each its own canvas
    assert np.abs(banded - whole).max() <= 1 and (banded != whole).mean() < 1e-3
    d = np.abs(banded - picture(scene, ctx, False, monkeypatch, band_rows=64))
    assert d.max() <= MAX_LEVELS and d.mean() <= MEAN_LEVELS


def test_the_comparison_sees_a_wrong_formula(scenes, gl_window, tmp_path, monkeypatch):
    """The bounds are tight enough to catch a formula that is slightly off."""
    scene = scenes(dot_level(tmp_path, gap=3.04, **LOOK), size=SIZE)
    drive(scene)
    gpu = float_picture(scene, gl_window.ctx, False, monkeypatch)
    real = draw_dots.splat_params
    for key, factor in ((draw_dots.P_GAP, 1.2), (draw_dots.P_SWELL, 1.1), (draw_dots.P_GLOW, 0.9)):
        def wrong(*a, key=key, factor=factor):
            p = real(*a)
            p[key] *= factor
            return p
        monkeypatch.setattr(draw_dots, "splat_params", wrong)
        worst = np.abs(float_picture(scene, gl_window.ctx, True, monkeypatch) - gpu).max()
        assert worst > 4 * FLOAT_LEVELS, (key, worst)
    monkeypatch.setattr(draw_dots, "splat_params", real)


def test_the_seed_page_keeps_its_gpu_program(scenes, gl_window, monkeypatch):
    """390 dots: the GPU's quads cost less than a canvas the size of the window, so the splat is not
    made, and the pixels are the GPU program's exactly."""
    scene = scenes("dotgrid.toml", size=(1280, 720))
    scene.pointer_move(640, 360)
    scene.step(30)
    g = grid(scene)
    assert g.n == 390 and not draw_dots.splat_pays(g.n, 5.0, None, (0, 0, 1280, 720))
    drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
    off = Offscreen(gl_window.ctx, (1280, 720))
    off.render(scene)
    default = off.pixels()
    (ent, _), = scene.find(DotGrid)
    assert drawer._gl[ent].splat is None
    assert (picture(scene, gl_window.ctx, False, monkeypatch, size=(1280, 720)) == default[..., :3]).all()


def test_a_dense_grid_is_splatted(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=3.04, **LOOK), size=SIZE)
    drive(scene, 3)
    assert draw_dots.splat_pays(grid(scene).n, 5.0, None, (0, 0, *SIZE))
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
    (ent, _), = scene.find(DotGrid)
    assert drawer._gl[ent].splat is not None and drawer._gl[ent].splat.canvas.image.shape == (300, 400, 4)


def test_a_sleeping_dense_grid_composites_its_image_without_painting(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=3.04, swell=0.6, glow=0.5), size=SIZE)
    scene.pointer_move(200, 150)
    scene.step(200)                            # pushed, tinted and still: asleep
    (ent, sleep), = scene.find(DotSleep)
    assert sleep.asleep
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    first = off.pixels()
    drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
    splat = drawer._gl[ent].splat
    assert splat.paints == 1
    for _ in range(3):
        scene.step(1)
        off.render(scene)
    assert splat.paints == 1 and drawer._gl[ent].cached_draws == 4 and (off.pixels() == first).all()
    scene.pointer_move(100, 100)               # it wakes: painted again
    scene.step(1)
    off.render(scene)
    assert splat.paints == 2 and not (off.pixels() == first).all()


def test_the_splat_stays_within_its_memory_bounds():
    """A canvas and its texture cost 32 B a covered pixel, the tables ~80 B a dot: past the bounds
    (an 8192-wide Offscreen band, two million dots) the grid draws on the GPU as before."""
    assert draw_dots.splat_pays(100_000, 5.0, None, (0, 0, 1280, 720))
    assert draw_dots.splat_pays(1_000_000, 5.0, None, (0, 0, 2560, 1600))
    assert not draw_dots.splat_pays(1_000_000, 5.0, None, (0, 0, 8192, 1024))      # the pixels of one band
    assert not draw_dots.splat_pays(2_000_000, 5.0, None, (0, 0, 1280, 720))


def test_a_first_runs_warm_up_compiles_the_splat_only_where_it_will_run(tmp_path, monkeypatch):
    """The warm-up steps a throwaway scene and draws nothing; the drawer's `warm_kernels` calls the
    splat's kernels (compiling them before the first frame) for a dense grid, not for the seed's page."""
    from ropework.compile import warm
    from ropework.level import load, resolve
    calls = []
    real = draw_dots._splat_band
    monkeypatch.setattr(draw_dots, "_splat_band", lambda *a: (calls.append(1), real(*a))[1])
    warm(load(dot_level(tmp_path, gap=3.04, **LOOK), (1280, 720)))
    assert calls == [1]
    warm(load(resolve("dotgrid"), (1280, 720)))
    assert calls == [1]


@pytest.mark.parametrize("name", ["dotgrid", "moeru", "jelly", "streaks", "pixels"])
def test_the_shipped_grids_stay_on_the_gpu(scenes, gl_window, name):
    """Sparse or big-dotted: the GPU draws them for less (pixels.toml's 2,840 10 px squares measured
    11.7 ms on the GPU against 14.3 splatted), so their pictures are what they were."""
    scene = scenes(f"{name}.toml", size=(1280, 720))
    scene.step(2)
    off = Offscreen(gl_window.ctx, (1280, 720))
    off.render(scene)
    drawer = next(d for d in scene.draws if isinstance(d, draw_dots.DrawDots))
    assert drawer._gl and all(gl.splat is None for gl in drawer._gl.values())
