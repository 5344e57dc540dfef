"""Spring card: the seed's release formulas exactly, and the held tilt that gives the release a bounce."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components.lanyard import Card, CardGrab, CardSpring
from ropework.systems.lanyard.spring_card import spring_back, tilt

SEED = dict(dt=1 / 60, ease_z=0.3, lift_gain=0.4, lift_max=0.3, omega_x2=45.0, omega_y2=20.0,
            drag=0.015, drag_base=0.01, keep_min=0.85)


def card(rot, spin):
    c = Card(size=np.array([1.6, 2.25, 0.04]), drop=0.16, hang=np.zeros(3), proxy_margin=0.08)
    c.rot, c.spin = np.array(rot, float), np.array(spin, float)
    return c


def seed_step(rx, ry, rz, wx, wy, vy, dt=1 / 60):
    """The seed's JavaScript, transcribed line by line."""
    rz += (0 - rz) * 0.3
    target = min(max(-vy * 0.4, -0.3), 0.3)
    wx += -45.0 * math.sin(rx - target) * dt
    wy += -20.0 * math.sin(ry) * dt
    wx *= max(0.85, 1 - (0.015 * abs(wx) + 0.01))
    wy *= max(0.85, 1 - (0.015 * abs(wy) + 0.01))
    return rx + wx * dt, ry + wy * dt, rz, wx, wy


@pytest.mark.parametrize("rot, spin, vy", [
    ((0.2, -0.5, 0.4), (1.0, -3.0, 2.0), 0.0),
    ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), -0.5),        # falling fast: target X clamps at +0.3
    ((-0.1, 1.2, -0.3), (15.0, 12.0, 0.0), 0.05),    # fast spin: the 0.85 floor holds
])
def test_release_step_is_the_seeds_formula(rot, spin, vy):
    c = card(rot, spin)
    spring_back(c, CardSpring(**SEED), vy)
    rx, ry, rz, wx, wy = seed_step(*rot, *spin[:2], vy)
    assert c.rot.tolist() == pytest.approx([rx, ry, rz], abs=1e-15)
    assert c.spin.tolist() == pytest.approx([wx, wy, 0.0], abs=1e-15)


def test_released_rotation_rings_down_below_a_hundredth_of_a_radian():
    c = card((0.4, -0.6, 0.3), (2.0, 0.0, 1.0))
    s = CardSpring(**SEED)
    trace = []
    for _ in range(900):
        spring_back(c, s, 0.0)
        trace.append(c.rot.copy())
    trace = np.array(trace)
    for q in (0, 1):
        flips = np.flatnonzero(np.diff(np.sign(trace[:, q])) != 0)
        assert len(flips) >= 4
        peaks = [np.abs(trace[a:b + 1, q]).max() for a, b in zip(flips[:-1], flips[1:])]
        assert all(b < a for a, b in zip(peaks, peaks[1:]))
    assert np.abs(trace[-1]).max() < 0.01


def test_held_card_eases_toward_its_velocity_tilt_and_keeps_the_rate_as_spin():
    g = CardGrab(follow=0.35, tilt_while_held=True, tilt=np.array([3.0, 3.0, 4.0]), tilt_max=np.array([0.5, 0.7, 0.6]),
                 tilt_ease=0.2)
    c = card((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    v = np.array([0.1, 0.05, 0.0])                   # moving right and up, units per step
    tilt(c, g, v, 1 / 60)
    want = np.clip([-3.0 * 0.05, 3.0 * 0.1, -4.0 * 0.1], -g.tilt_max, g.tilt_max) * 0.2
    assert c.rot == pytest.approx(want) and c.spin == pytest.approx(want * 60)
    for _ in range(200):
        tilt(c, g, np.array([1.0, 0.0, 0.0]), 1 / 60)
    assert c.rot == pytest.approx([0.0, 0.7, -0.6])  # clamped
