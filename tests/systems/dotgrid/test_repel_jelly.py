"""Repel's jelly model: the exact spring, neighbour coupling, travelling rings, sleep."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components.dotgrid import DotSleep, Jelly, TravellingRings
from ropework.components.frame import STEP
from ropework.systems.dotgrid.repel import spring_constants, spring_step
from tests.dots import dot_level, grid, rings, unit

SIZE = (800, 600)


def sleep(scene) -> DotSleep:
    return scene.find(DotSleep)[0][1]


def index(g, x, y) -> int:
    return int(np.flatnonzero((g.origin[:, 0] == x) & (g.origin[:, 1] == y))[0])


# ── the spring, integrated exactly ──────────────────────────────────────────

@pytest.mark.parametrize("k, c", [(150.0, 8.0), (100.0, 20.0), (100.0, 60.0), (0.0, 3.0), (0.0, 0.0)])
def test_spring_step_is_the_exact_solution(k, c):
    """Against 20,000 RK4 substeps of x'' = −k·x − c·x' over one step."""
    m = spring_step(k, c, STEP)
    for start in ((1.0, 0.0), (0.0, 1.0)):
        x, v = start
        h = STEP / 20_000

        def f(x, v):
            return v, -k * x - c * v
        for _ in range(20_000):
            k1 = f(x, v)
            k2 = f(x + h / 2 * k1[0], v + h / 2 * k1[1])
            k3 = f(x + h / 2 * k2[0], v + h / 2 * k2[1])
            k4 = f(x + h * k3[0], v + h * k3[1])
            x += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
            v += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        np.testing.assert_allclose(m @ start, (x, v), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("bounce, duration", [(0.0, 1e-3), (1.0, 1e-3), (1.0, 60.0), (0.5, 0.01), (0.99, 1e-3)])
def test_the_spring_is_stable_at_any_bounce_and_duration(bounce, duration):
    """The step map never grows a state: its spectral radius is e^{−ζω·dt} ≤ 1."""
    k, c = spring_constants(bounce, duration)
    m = spring_step(k, c, STEP)
    assert np.isfinite(m).all()
    assert max(abs(np.linalg.eigvals(m))) <= 1.0 + 1e-9
    state = np.array([100.0, 0.0])
    for _ in range(1000):
        state = m @ state
    assert np.isfinite(state).all() and abs(state[0]) <= 100.0 * (1 + 1e-6)


def test_spring_constants_are_the_period_and_damping_ratio():
    k, c = spring_constants(0.3, 0.5)
    assert math.sqrt(k) == pytest.approx(2 * math.pi / 0.5)
    assert c / (2 * math.sqrt(k)) == pytest.approx(0.7)


def released(scenes, tmp_path, **keys):
    """A jelly grid with one dot held 5 px off by the pointer, then the pointer gone."""
    scene = scenes(dot_level(tmp_path, gap=50, proximity=20, max_push=5, **keys), size=SIZE)
    scene.pointer_move(225, 225)   # 0 px from the dot at (225, 225): pushed +x by the full 5 px
    scene.step(600)                # long enough to sit on its target
    scene.pointer_leave()
    return scene


@pytest.mark.parametrize("bounce", [0.0, 0.3, 0.8])
def test_the_release_follows_the_damped_spring_of_bounce_and_return_duration(scenes, tmp_path, bounce):
    scene = released(scenes, tmp_path, return_duration=0.8, bounce=bounce)
    g = grid(scene)
    i = index(g, 225, 225)
    assert g.offset[i, 0] == pytest.approx(5.0, abs=1e-4)
    w = 2 * math.pi / 0.8
    z = 1 - bounce
    xs = []
    for _ in range(120):
        scene.step(1)
        xs.append(float(grid(scene).offset[i, 0]))
    t = np.arange(1, 121) * STEP
    if z < 1:                      # the closed form of x'' = −ω²x − 2ζωx' from x = 5, v = 0
        wd = w * math.sqrt(1 - z * z)
        want = 5 * np.exp(-z * w * t) * (np.cos(wd * t) + z * w / wd * np.sin(wd * t))
    else:
        want = 5 * np.exp(-w * t) * (1 + w * t)
    np.testing.assert_allclose(xs, want, atol=2e-3)   # float32 offsets; and the rest snap at 1e-3 px
    overshoot = -min(xs)
    if bounce == 0.0:
        assert overshoot <= 0.0
    else:
        assert overshoot == pytest.approx(5 * math.exp(-z * math.pi / math.sqrt(1 - z * z)), rel=0.05)


def test_a_jelly_grid_stays_finite_at_extreme_springs(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=20, return_duration=0.001, bounce=1.0, tension=1.0), size=SIZE)
    for k in range(60):
        scene.pointer_move(100 + 10 * k, 300)
        scene.step(1)
    g = grid(scene)
    assert np.isfinite(g.offset).all() and np.isfinite(g.velocity).all()
    assert np.abs(g.offset).max() < 100.0


# ── tension: a push travels ──────────────────────────────────────────────────

@pytest.mark.parametrize("tension", [0.0, 0.3])
def test_tension_spreads_a_push_one_neighbour_per_step(scenes, tmp_path, tension):
    """Only the dot under the pointer is pushed (proximity 20 px on a 50 px grid); with
    tension the dot k cells to its right moves on step k and not before; without, none ever does."""
    scene = scenes(dot_level(tmp_path, gap=50, proximity=20, max_push=5, tension=tension, return_duration=0.8),
                   size=SIZE)
    g = grid(scene)
    centre = index(g, 225, 275)
    right = [index(g, 225 + 50 * k, 275) for k in range(1, 6)]
    scene.pointer_move(225, 275)
    for step in range(1, 6):
        scene.step(1)
        g = grid(scene)
        assert g.offset[centre, 0] > 0
        for k, j in enumerate(right, start=1):
            assert (g.offset[j, 0] > 0) == (tension > 0 and k <= step), (step, k)
    scene.step(20)
    g = grid(scene)
    if tension:
        assert g.offset[right[0], 0] > g.offset[right[2], 0] > 0.01   # weaker as it travels, yet seen
    else:
        assert not g.offset[right].any()


def test_coupling_is_the_mean_of_the_four_neighbours(scenes, tmp_path):
    """One step, transcribed: spring map toward the target, then Jacobi pull toward the neighbours' mean."""
    scene = scenes(dot_level(tmp_path, gap=50, tension=0.25, return_duration=0.7, bounce=0.4), size=SIZE)
    g = grid(scene)
    rng = np.random.default_rng(3)
    g.offset[:] = rng.normal(0, 2, g.offset.shape)
    g.velocity[:] = rng.normal(0, 20, g.velocity.shape)
    o, v = g.offset.astype(np.float64), g.velocity.astype(np.float64)
    m = scene.find(Jelly)[0][1].step
    o2 = m[0, 0] * o + m[0, 1] * v            # pointer outside, no rings: every target is 0
    v2 = m[1, 0] * o + m[1, 1] * v
    s = np.stack([o2, v2], axis=-1).reshape(g.rows, g.cols, 4)
    acc = np.zeros_like(s)
    cnt = np.zeros((g.rows, g.cols, 1))
    acc[:, 1:] += s[:, :-1]
    cnt[:, 1:] += 1
    acc[:, :-1] += s[:, 1:]
    cnt[:, :-1] += 1
    acc[1:] += s[:-1]
    cnt[1:] += 1
    acc[:-1] += s[1:]
    cnt[:-1] += 1
    want = (s + 0.25 * (acc / cnt - s)).reshape(-1, 2, 2)
    scene.step(1)
    np.testing.assert_allclose(grid(scene).offset, want[:, :, 0], atol=1e-4)
    np.testing.assert_allclose(grid(scene).velocity, want[:, :, 1], atol=1e-3)


# ── travelling rings ────────────────────────────────────────────────────────

def test_a_travelling_ring_pushes_its_front_with_a_strength_that_fades_toward_its_radius(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=20, rings="travel", ring_speed=600, ring_width=90, ring_radius=300,
                             ring_strength=14), size=SIZE)
    scene.pointer_down(400, 300)
    scene.pointer_up(400, 300)
    scene.pointer_leave()
    scene.step(1)                    # the ring pushes in its click's own step, at age 0 (as the seed's)
    for steps, seen in ((6, 6), (12, 18)):
        scene.step(steps)
        age = seen * STEP            # the last step's repel saw the ring this old
        front = 600 * age
        g = grid(scene)
        target = scene.find(Jelly)[0][1].scratch[:, :2].astype(np.float64)
        d = np.hypot(g.origin[:, 0] - 400, g.origin[:, 1] - 300)
        u = (d - front) / 45
        f = np.where(np.abs(u) < 1, (1 - front / 300) * 0.5 * (1 + np.cos(np.pi * u)), 0.0)
        want = unit(g.origin, 400, 300) * (14 * f)[:, None]
        np.testing.assert_allclose(target, want, atol=1e-4)
        assert (f > 0).sum() > 20


def test_travelling_rings_end_at_their_radius_and_play_several_at_once(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, rings="travel", ring_speed=600, ring_radius=300), size=SIZE)
    assert rings(scene).duration == pytest.approx(0.5)
    for x in (200, 600):
        scene.pointer_down(x, 300)
        scene.pointer_up(x, 300)
        scene.step(5)
    assert rings(scene).live == 2
    scene.step(int(0.5 / STEP) - 4)          # 35 steps after the first click, 30 after the second: exactly 0.5 s
    assert rings(scene).live == 1
    scene.step(1)
    assert rings(scene).live == 0


def test_seed_levels_keep_the_seed_model(scenes):
    for name in ("dotgrid.toml", "moeru.toml"):
        scene = scenes(name)
        assert not scene.find(Jelly) and not scene.find(TravellingRings)
        assert grid(scene).velocity.shape == (0, 2)


# ── sleep ───────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("keys", [{}, {"tension": 0.3, "return_duration": 0.6, "rings": "travel"}])
def test_a_calm_grid_sleeps_and_runs_no_kernel(scenes, tmp_path, keys):
    scene = scenes(dot_level(tmp_path, gap=40, **keys), size=SIZE)
    scene.pointer_move(300, 300)
    scene.step(5)
    scene.pointer_leave()
    scene.step(1200)                  # everything returns to rest, colours settle
    s = sleep(scene)
    assert s.asleep
    runs = s.runs
    scene.step(100)
    assert sleep(scene).runs == runs            # asleep: the kernel is not called
    scene.pointer_move(300, 300)
    scene.step(1)
    assert sleep(scene).runs == runs + 1 and not sleep(scene).asleep   # the pointer wakes it
    assert grid(scene).offset.any()


def test_a_click_wakes_a_sleeping_grid(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=40), size=SIZE)
    scene.step(3)
    assert sleep(scene).asleep
    scene.pointer_down(400, 300)
    scene.pointer_up(400, 300)
    scene.pointer_leave()
    scene.step(10)
    assert grid(scene).offset.any() and not sleep(scene).asleep


@pytest.mark.parametrize("keys", [{}, {"tension": 0.2, "return_duration": 0.5, "rings": "travel"}])
def test_sleep_changes_nothing(scenes, tmp_path, keys):
    """A script of moves, still spells, clicks and idle spells: the same state, bit for bit,
    whether the grid sleeps or is forced to run its kernel every step."""
    a = scenes(dot_level(tmp_path, gap=30, **keys), size=SIZE)
    b = scenes(dot_level(tmp_path, gap=30, **keys), size=SIZE)
    for scene, insomniac in ((a, False), (b, True)):
        for k in range(900):
            phase = (k // 150) % 3
            if phase == 0:
                scene.pointer_move(200 + k % 150 * 3, 300)
            elif phase == 1 and k % 150 == 10:
                scene.pointer_down(400, 200)
                scene.pointer_up(400, 200)
            elif phase == 2 and k % 150 == 0:
                scene.pointer_leave()
            if insomniac:
                sleep(scene).asleep = False
            scene.step(1)
    assert sleep(a).runs < sleep(b).runs       # the script has calm spells in which a slept
    assert a.state_hash() == b.state_hash()


def test_reduced_motion_turns_the_jelly_and_its_travelling_rings_off(scenes, tmp_path):
    """The kind's motion note: no overshoot, no ring across the page, so no jelly model either."""
    scene = scenes(dot_level(tmp_path, tension=0.3, return_duration=0.8, rings="travel", intro=1.0), size=SIZE,
                   reduced_motion=True)
    assert not scene.find(Jelly) and not scene.find(TravellingRings)
    assert rings(scene).speed == 0.0 and grid(scene).velocity.shape == (0, 2)
