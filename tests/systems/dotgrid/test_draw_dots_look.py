"""Draw dots, the look keys and the sleep cache: what each key does to the pixels."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.components.dotgrid import DotColours, DotSleep
from ropework.render import Offscreen
from ropework.systems.dotgrid.draw_dots import GLOW_REACH
from tests.dots import dot_level, grid

SIZE = (400, 300)


def render(scene, gl_window) -> np.ndarray:
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(scene)
    return off.pixels()[:, :, :3].astype(int)


def lit_pixels(img, x, y, r) -> int:
    """Pixels brighter than the dark page within r px of (x, y)."""
    x, y = int(round(x)), int(round(y))
    return int((img[y - r:y + r + 1, x - r:x + r + 1].max(axis=2) > 60).sum())


def lone_dot(scenes, tmp_path, **keys):
    """One dot lit (proximity 20 on a 100 px grid), the pointer resting on it."""
    scene = scenes(dot_level(tmp_path, gap=100, dot_size=10, proximity=20, max_push=0.001, colour_ease=1.0,
                             **keys), size=SIZE)
    scene.pointer_move(150, 150)
    scene.step(3)
    return scene


def test_swell_grows_a_lit_dot_and_leaves_an_unlit_one(scenes, gl_window, tmp_path):
    plain = render(lone_dot(scenes, tmp_path), gl_window)
    big = render(lone_dot(scenes, tmp_path, swell=1.0), gl_window)
    assert lit_pixels(big, 150, 150, 20) > 3 * lit_pixels(plain, 150, 150, 20)    # radius ×2: area ×4
    assert lit_pixels(big, 350, 250, 20) == lit_pixels(plain, 350, 250, 20) > 0    # far and unlit: as before


def test_glow_haloes_a_lit_dot_only(scenes, gl_window, tmp_path):
    img = render(lone_dot(scenes, tmp_path, glow=1.0), gl_window)
    ring = img[150, 150 + 8:150 + 15].max(axis=1)          # 3..10 px beyond the 5 px dot's edge
    assert (ring > 25).all()
    assert img[250, 350 + 8:350 + 15].max() < 25            # the unlit dot has none


def test_square_fills_the_corners(scenes, gl_window, tmp_path):
    img = render(lone_dot(scenes, tmp_path, shape="square"), gl_window)
    round_ = render(lone_dot(scenes, tmp_path), gl_window)
    assert img[245, 345].max() > 200 and round_[245, 345].max() < 60   # (−4.5, −4.5) from the centre (350, 250)


def test_stretch_draws_a_moving_dot_as_a_streak_along_its_motion(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=100, dot_size=6, stretch=0.05, return_duration=2.0, bounce=1.0),
                   size=SIZE)
    g = grid(scene)
    g.velocity[:] = (400.0, 0.0)            # px/s along +x: a streak 0.05·400 = 20 px longer
    img = render(scene, gl_window)
    row, col = img[150, 120:181].max(axis=1), img[120:181, 150].max(axis=1)
    assert (row > 100).sum() >= 24 and (col > 100).sum() <= 8


def test_fade_dims_dots_near_the_edges(scenes, gl_window, tmp_path):
    img = render(scenes(dot_level(tmp_path, gap=50, dot_size=8, fade=100), size=SIZE), gl_window)
    edge, middle = img[25, 25].max(), img[125, 175].max()
    assert middle > 200 and edge < middle * 0.3


def test_the_intro_pops_the_grid_in_from_the_centre(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=50, dot_size=8, intro=1.0), size=SIZE)
    assert render(scene, gl_window).max() < 60                   # t = 0: nothing yet
    scene.step(24)                                               # 0.4 s: the centre is in, the corners not
    img = render(scene, gl_window)
    assert img[125, 175].max() > 200 and img[25, 25].max() < 60
    scene.step(60)
    img = render(scene, gl_window)
    assert img[25, 25].max() > 200


def test_a_resize_does_not_replay_the_intro(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=50, dot_size=8, intro=1.0), size=(380, 280))
    scene.step(90)                                               # the intro is over
    scene.resize(*SIZE)                                          # re-laid: the clock starts again at 0
    img = render(scene, gl_window)
    assert img[25, 25].max() > 200 and img[125, 175].max() > 200
    scene.reset()                                                # a reset is a load: it pops in again
    assert render(scene, gl_window).max() < 60


def test_no_intro_under_reduced_motion(scenes, gl_window, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=50, dot_size=8, intro=1.0), size=SIZE, reduced_motion=True)
    assert render(scene, gl_window)[25, 25].max() > 200


@pytest.mark.parametrize("keys", [{}, {"swell": 0.5, "shape": "square", "fade": 40}])
def test_a_sleeping_grid_draws_its_cached_image(scenes, gl_window, tmp_path, keys):
    scene = scenes(dot_level(tmp_path, gap=6, **keys), size=SIZE)   # 3,350 dots: their quads cover 1.4× the viewport
    scene.pointer_move(200, 150)
    scene.step(200)                  # pushed and tinted, then still: asleep with lit dots
    (ent, sleep), = scene.find(DotSleep)
    assert sleep.asleep
    cached = render(scene, gl_window)
    sleep.asleep = False             # the same grid drawn dot by dot
    direct = render(scene, gl_window)
    sleep.asleep = True
    again = render(scene, gl_window)
    drawer = next(d for d in scene.draws if hasattr(d, "_gl"))
    assert drawer._gl[ent].cached_draws == 2
    # drawn directly, each overlapping dot rounds a pixel to 8 bits; the half-float cache once (with
    # glow, ~9 faint haloes overlap everywhere and the two part by a few levels, by rounding alone)
    diff = np.abs(cached - direct)
    assert np.percentile(diff, 99) <= 1 and diff.max() <= 3 and (cached == again).all()
    assert (direct.max(axis=2) > 60).sum() > 1000


def reference_dot(size, centre, radius, colour, halo, reach, background) -> np.ndarray:
    """float64[h, w, 3]: one round dot with a halo over the background, the look shader's formula at
    every pixel centre (cover = clamp(0.5 − d), halo·(1 − d/reach)², the larger wins; blended over)."""
    ys, xs = np.mgrid[0:size[1], 0:size[0]] + 0.5
    d = np.hypot(xs - centre[0], ys - centre[1]) - radius
    cover = np.maximum(np.clip(0.5 - d, 0.0, 1.0), halo * (1.0 - np.clip(d / reach, 0.0, 1.0)) ** 2)
    a = cover[..., None]
    return 255.0 * (np.asarray(colour) * a + np.asarray(background) * (1.0 - a))


@pytest.mark.parametrize("lit", [1.0, 0.2, 0.02, 0.003])
def test_a_dot_at_a_known_offset_lights_exactly_the_pixels_its_formula_does(scenes, gl_window, tmp_path, lit):
    """The quad is cut to what a dot can change (its disc and the halo down to half a colour level):
    every pixel of a halo, faint or bright, is as the formula says, within one level of rounding,
    including those outside the cut quad."""
    scene = scenes(dot_level(tmp_path, gap=100, dot_size=10, swell=0.5, glow=0.8), size=SIZE)
    g = grid(scene)
    (_, colours), = scene.find(DotColours)
    i = 1 * g.cols + 1                                   # the dot at (150, 150)
    g.offset[i] = (7.25, -4.5)
    g.colour[i] = colours.base + lit * (colours.active - colours.base)
    img = render(scene, gl_window)
    r = 5.0 * (1.0 + 0.5 * lit)
    want = reference_dot(SIZE, (157.25, 145.5), r, g.colour[i], 0.8 * lit, min(GLOW_REACH * r, g.gap),
                         np.round(np.asarray(scene.background[:3]) * 255.0) / 255.0)   # cleared in 8 bits
    window = (slice(110, 185), slice(115, 200))          # the dot, its halo and a margin around both
    assert np.abs(img[window] - np.round(want[window])).max() <= 1
    assert (img[window].max(axis=2) > 200).sum() > 60     # the disc itself is there
