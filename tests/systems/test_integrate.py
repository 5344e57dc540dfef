"""Verlet integration: the seed's formula, pins, and velocity kept in the history."""
import numpy as np

from systems.integrate import integrate

NONE = np.zeros((0, 2), np.float32)


def test_free_point_follows_the_seed_formula():
    pos = np.array([[10.0, 20.0]], np.float32)
    prev = np.array([[9.0, 18.0]], np.float32)
    integrate(pos, prev, np.ones(1, np.float32), np.array([0.0, 900.0], np.float32), NONE, 0.995, 1 / 60)
    assert prev.tolist() == [[10.0, 20.0]]
    expect = np.array([10 + 1 * 0.995, 20 + 2 * 0.995 + 900 / 3600], np.float32)
    np.testing.assert_allclose(pos[0], expect, rtol=0, atol=1e-5)


def test_pinned_points_never_move():
    pos = np.array([[1.0, 1.0], [5.0, 5.0]], np.float32)
    prev = pos - 3
    inv = np.array([0.0, 1.0], np.float32)
    for _ in range(100):
        integrate(pos, prev, inv, np.array([0.0, 900.0], np.float32), NONE, 0.995, 1 / 60)
    assert pos[0].tolist() == [1.0, 1.0]


def test_without_forces_velocity_is_constant():
    rng = np.random.default_rng(3)
    pos = rng.uniform(0, 100, (50, 3)).astype(np.float32)
    vel = rng.uniform(-2, 2, (50, 3)).astype(np.float32)
    prev = pos - vel
    for _ in range(30):
        integrate(pos, prev, np.ones(50, np.float32), np.zeros(3, np.float32), np.zeros((0, 3), np.float32), 1.0, 1 / 60)
        np.testing.assert_allclose(pos - prev, vel, atol=2e-4)


def test_extra_acceleration_is_added_per_point():
    pos = np.zeros((2, 2), np.float32)
    prev = pos.copy()
    extra = np.array([[3600.0, 0.0], [0.0, -3600.0]], np.float32)
    integrate(pos, prev, np.ones(2, np.float32), np.zeros(2, np.float32), extra, 1.0, 1 / 60)
    np.testing.assert_allclose(pos, [[1.0, 0.0], [0.0, -1.0]], atol=1e-6)
