"""Repel: the seed's static and swipe pushes, exactly, and the colour chase."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components.frame import STEP
from ropework.kinds import dotgrid
from ropework.systems.dotgrid.repel import spring_step
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


def _spring_exact(k, c, t, x0=1.0, v0=0.0):
    """x(t), v(t) of x'' = −k·x − c·x', closed form (under-, critically and over-damped; free when k = 0)."""
    if k == 0:
        if c == 0:
            return x0 + v0 * t, v0
        return x0 + v0 / c * (1 - math.exp(-c * t)), v0 * math.exp(-c * t)
    disc = c * c / 4 - k
    a = -c / 2
    if disc < 0:
        w = math.sqrt(-disc)
        B = (v0 - a * x0) / w
        e = math.exp(a * t)
        x = e * (x0 * math.cos(w * t) + B * math.sin(w * t))
        v = a * x + e * w * (-x0 * math.sin(w * t) + B * math.cos(w * t))
        return x, v
    if disc == 0:
        B = v0 - a * x0
        e = math.exp(a * t)
        return e * (x0 + B * t), e * (a * (x0 + B * t) + B)
    r = math.sqrt(disc)
    l1, l2 = a + r, a - r
    c2 = (v0 - l1 * x0) / (l2 - l1)
    c1 = x0 - c2
    return c1 * math.exp(l1 * t) + c2 * math.exp(l2 * t), c1 * l1 * math.exp(l1 * t) + c2 * l2 * math.exp(l2 * t)


@pytest.mark.parametrize("k,c", [(150.0, 8.0), (100.0, 20.0), (10_000.0, 50.0), (10_000.0, 1000.0), (0.0, 0.0),
                                 (0.0, 1000.0), (10_000.0, 0.0)])
def test_inertia_spring_step_is_the_exact_solution(k, c):
    """One step of the dot grid's spring is the closed-form damped spring over that step, to float64 rounding."""
    p00, p01, p10, p11 = spring_step(k, c, STEP).ravel()
    for x0, v0 in ((1.0, 0.0), (0.0, 1.0), (-3.0, 40.0)):
        x, v = _spring_exact(k, c, STEP, x0, v0)
        assert p00 * x0 + p01 * v0 == pytest.approx(x, rel=1e-9, abs=1e-12)
        assert p10 * x0 + p11 * v0 == pytest.approx(v, rel=1e-9, abs=1e-9)


def test_inertia_spring_never_grows_over_the_declared_range():
    """The step's spectral radius is below 1 wherever there is damping (at 1 without): no stiffness and
    damping the schema allows can blow up, unlike the explicit step (non-finite near c = 120/s)."""
    spring, damping = dotgrid.SCHEMA.keys["spring"], dotgrid.SCHEMA.keys["spring_damping"]
    for k in np.linspace(spring.lo, spring.hi, 41):
        for c in np.linspace(damping.lo, damping.hi, 41):
            p = np.array(spring_step(float(k), float(c), STEP)).reshape(2, 2)
            radius = max(abs(np.linalg.eigvals(p)))
            assert radius <= 1 + 1e-9 and (c == 0 or k == 0 or radius < 1), (k, c, radius)   # k = 0: no spring
