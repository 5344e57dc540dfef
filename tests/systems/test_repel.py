"""Repel: the seed's static and swipe pushes, exactly, and the colour chase."""
from __future__ import annotations

import numpy as np
import pytest

from tests.dots import dot_level, grid, static_push, unit

SIZE = (800, 600)
BASE = np.array([0xF0, 0xF0, 0xF0]) / 255.0
ACTIVE = np.array([0x86, 0xEA, 0xD4]) / 255.0


@pytest.fixture
def dense(scenes, tmp_path):
    """The seed's forces on a 20 px grid, so every distance band holds many dots."""
    return scenes(dot_level(tmp_path, gap=20), size=SIZE)


def test_static_push_at_a_known_distance_is_the_formula(dense):
    # the dot at (250, 250) with the pointer 100 px away along (0.6, 0.8): 5·(1 − 100/200) = 2.5 px
    dense.pointer_move(310, 330)
    dense.step(1)
    g = grid(dense)
    i = int(np.flatnonzero((g.origin[:, 0] == 250) & (g.origin[:, 1] == 250))[0])
    np.testing.assert_allclose(g.offset[i], (-1.5, -2.0), atol=1e-5)
    expected, _ = static_push(g.origin, 310, 330)
    np.testing.assert_allclose(g.offset, expected, atol=1e-5)
    assert np.hypot(*g.offset.T).max() <= 5.0 + 1e-5


def test_a_still_pointer_moves_nothing_beyond_proximity(dense):
    dense.pointer_move(400, 300)
    dense.step(30)
    g = grid(dense)
    d = np.hypot(g.origin[:, 0] - 400, g.origin[:, 1] - 300)
    far = d >= 200
    assert far.sum() > 100 and (~far).sum() > 100
    assert not g.offset[far].any()
    np.testing.assert_array_equal(g.colour[far], np.tile(BASE.astype(np.float32), (far.sum(), 1)))
    assert (np.hypot(*g.offset[~far & (d > 0)].T) > 0).all()


@pytest.mark.parametrize("step_px, factor", [(80, 1.0), (160, 1.0), (40, 0.5), (24, 0.3)])
def test_a_swipe_pushes_out_to_reach_times_proximity(dense, step_px, factor):
    dense.pointer_move(200, 300)
    dense.step(1)
    dense.pointer_move(200 + step_px, 300)
    dense.step(1)
    g = grid(dense)
    px = 200 + step_px
    d = np.hypot(g.origin[:, 0] - px, g.origin[:, 1] - 300)
    push, _ = static_push(g.origin, px, 300)
    swipe = np.where(d < 320, (1 - d / 320) * factor, 0.0)
    push += unit(g.origin, px, 300) * (5 * 0.6 * swipe)[:, None]
    np.testing.assert_allclose(g.offset, push, atol=1e-5)
    moved = np.hypot(*g.offset.T) > 0
    assert d[moved].max() > 300            # the swipe reaches past the static 200 px ...
    assert not moved[d >= 320].any()       # ... but not past 1.6 × 200


@pytest.mark.parametrize("step_px", [5, 15, 16])
def test_a_slow_move_is_no_swipe(dense, step_px):
    dense.pointer_move(300, 300)
    dense.step(1)
    dense.pointer_move(300 + step_px, 300)
    dense.step(1)
    g = grid(dense)
    expected, _ = static_push(g.origin, 300 + step_px, 300)
    np.testing.assert_allclose(g.offset, expected, atol=1e-5)


def test_entering_the_window_is_not_a_swipe(dense):
    dense.pointer_move(400, 300)     # from outside (-9999, -9999): no speed on the first step
    dense.step(1)
    g = grid(dense)
    expected, _ = static_push(g.origin, 400, 300)
    np.testing.assert_allclose(g.offset, expected, atol=1e-5)


def test_colour_chases_its_target_by_the_ease_each_step(dense):
    dense.pointer_move(400, 300)
    g = grid(dense)
    _, force = static_push(g.origin, 400, 300)
    target = BASE + (ACTIVE - BASE) * force[:, None]
    colour = np.tile(BASE, (g.n, 1))
    for _ in range(40):
        dense.step(1)
        colour += (target - colour) * 0.12
        np.testing.assert_allclose(grid(dense).colour, colour, atol=2e-6)
    near = int(np.argmax(force))
    assert force[near] > 0.9
    assert grid(dense).colour[near, 0] < BASE[0] - 0.3   # red falls toward 0x86: cyan-green


def test_swipe_colour_force_is_its_share_of_the_push(dense):
    dense.pointer_move(100, 300)
    dense.step(1)
    dense.pointer_move(180, 300)
    dense.step(1)
    g = grid(dense)
    _, first = static_push(g.origin, 100, 300)
    colour = BASE + (ACTIVE - BASE) * first[:, None] * 0.12          # after the still first step
    d = np.hypot(g.origin[:, 0] - 180, g.origin[:, 1] - 300)
    _, f = static_push(g.origin, 180, 300)
    force = np.maximum(f, 0.8 * np.where(d < 320, 1 - d / 320, 0.0))
    target = BASE + (ACTIVE - BASE) * force[:, None]
    np.testing.assert_allclose(g.colour, colour + (target - colour) * 0.12, atol=2e-6)


def test_leaving_stops_the_pointer_forces(dense):
    dense.pointer_move(400, 300)
    dense.step(5)
    dense.pointer_move(480, 300)
    dense.pointer_leave()
    dense.step(1)
    assert not grid(dense).offset.any()
    before = grid(dense).colour.copy()
    dense.step(1)
    after = grid(dense).colour
    assert (np.abs(after - BASE) <= np.abs(before - BASE) + 1e-7).all()   # colours fade back, no jump
    assert (after != BASE.astype(np.float32)).any()


def test_without_inertia_there_is_no_velocity_state(dense):
    assert grid(dense).velocity.shape == (0, 2)


def test_inertia_eases_dots_to_the_push_and_back(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=20, inertia=True), size=SIZE)
    assert grid(scene).velocity.shape == (grid(scene).n, 2)
    scene.pointer_move(400, 300)
    scene.step(1)
    g = grid(scene)
    target, _ = static_push(g.origin, 400, 300)
    moving = np.hypot(*target.T) > 1.0
    got = np.hypot(*g.offset.T)[moving]
    assert (got > 0).all() and (got < 0.5 * np.hypot(*target.T)[moving]).all()   # no jump
    peak = 0.0
    for _ in range(60):
        scene.step(1)
        peak = max(peak, float(np.max(np.hypot(*g.offset.T)[moving] / np.hypot(*target.T)[moving])))
    assert peak > 1.05                                        # the spring overshoots ...
    np.testing.assert_allclose(g.offset, target, atol=0.05)   # ... and settles on the seed's push
    scene.pointer_leave()
    scene.step(240)
    assert np.abs(g.offset).max() < 0.01                       # and returns to rest once released


def _play(scene):
    scene.pointer_move(100, 100)
    for i in range(20):
        scene.pointer_move(100 + 37 * i, 100 + 11 * i)
        scene.step(1)
    scene.pointer_down(500, 300)
    scene.step(1)
    scene.pointer_up(500, 300)
    scene.step(10)
    scene.pointer_down(200, 400)
    scene.pointer_leave()
    scene.step(30)
    return scene.state_hash()


@pytest.mark.parametrize("inertia", [False, True])
def test_same_input_same_state(scenes, tmp_path, inertia):
    path = dot_level(tmp_path, gap=20, inertia=inertia)
    a, b = _play(scenes(path, size=SIZE)), _play(scenes(path, size=SIZE))
    assert a == b
