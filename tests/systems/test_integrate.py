"""Verlet integration: the seed's formula, pins, and velocity kept in the history."""
import platform

import numpy as np
import pytest

from ropework.systems.integrate import integrate

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


def test_same_bits_as_the_plain_point_by_point_loop():
    """The kernel runs branch-free over flat coordinates (to vectorise); the obvious loop,
    pinned points skipped, must agree to the bit — signed zeros and NaN history included."""
    import numba

    @numba.njit
    def plain(pos, prev, inv_mass, gravity, extra, damping, dt):
        for i in range(pos.shape[0]):
            if inv_mass[i] == 0.0:
                continue
            for q in range(pos.shape[1]):
                x = pos[i, q]
                a = gravity[q]
                if extra.shape[0] == pos.shape[0]:
                    a += extra[i, q]
                v = (x - prev[i, q]) * damping
                prev[i, q] = x
                pos[i, q] = x + v + a * (dt * dt)

    rng = np.random.default_rng(5)
    for d in (1, 2, 3):
        n = int(rng.integers(1, 300))
        pos = rng.normal(100, 30, (n, d)).astype(np.float32)
        prev = (pos + rng.normal(0, 2, (n, d))).astype(np.float32)
        pos[::7, 0] = -0.0
        prev[::11, -1] = np.nan
        inv = (rng.random(n) > 0.2).astype(np.float32)
        gravity = rng.normal(0, 500, d).astype(np.float32)
        for extra in (np.zeros((0, d), np.float32), rng.normal(0, 50, (n, d)).astype(np.float32)):
            want, want_prev, got, got_prev = pos.copy(), prev.copy(), pos.copy(), prev.copy()
            for _ in range(3):
                plain(want, want_prev, inv, gravity, extra, 0.995, 1 / 60)
                integrate(got, got_prev, inv, gravity, extra, 0.995, 1 / 60)
            assert np.array_equal(want.view(np.uint32), got.view(np.uint32))
            assert np.array_equal(want_prev.view(np.uint32), got_prev.view(np.uint32))


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="reads x86 assembly")
def test_the_2d_loop_compiles_to_packed_arithmetic():
    """The 2-D kernel's speed is SIMD (W5's million points: 0.6-0.77x of the scalar loop): a
    change that brings back a branch per point (an ``x if free else y``, a loop over d) must not
    pass silently. Packed float32 → float64 conversions only appear in the vectorised loop."""
    import re

    import numba

    from ropework.systems import integrate as integrate_mod
    for extra in (False, True):
        kernel = numba.njit(integrate_mod._INTEGRATE[True, extra].py_func)   # uncached: asm is readable
        n = 64
        pos = np.zeros((n, 2), np.float32)
        kernel(pos, pos.copy(), np.ones(n, np.float32), np.zeros(2, np.float32),
               np.zeros((n if extra else 0, 2), np.float32), 0.995, 1 / 60)
        asm = "\n".join(kernel.inspect_asm().values())
        assert re.search(r"\bv?cvtps2pd\s+%[xy]mm", asm), extra
