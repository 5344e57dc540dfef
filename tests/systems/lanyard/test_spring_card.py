"""Spring card: the seed's release formulas exactly, and the held tilt that gives the release a bounce."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components import Points
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


CARD_ROPE = """[[layer]]
kind = "lanyard"

[[layer]]
kind = "ropes"
rail = false
[[layer.rope]]
anchor = 0.2
points = 30
[[layer.attach]]
from = 0
from_at = {at}
card = true
"""


def card_scene(tmp_path, at=1.0):
    """A lanyard and, above it, a rope whose point at ``at`` is pinned to the card."""
    from ropework.scene import Scene
    f = tmp_path / "card.toml"
    f.write_text(CARD_ROPE.format(at=at))
    return Scene.load(str(f), size=(800, 600), seed=1)


def clip_px(s):
    """The card's clip (its origin) on screen, px, through the lanyard's camera."""
    from ropework.components.lanyard import Camera, Card
    from ropework.systems.lanyard.camera import project
    (ent, card), = s.find(Card)
    px, _ = project(s.component(ent, Camera), 800, 600, card.pos)
    return px[0]


def test_a_rope_point_pinned_to_the_card_sits_on_its_clip_and_follows_a_drag(tmp_path):
    from ropework.components.lanyard import CardPins
    s = card_scene(tmp_path)
    (ent, cp), = s.find(CardPins)
    pts = s.component(ent, Points)
    assert pts.inv_mass[cp.index].tolist() == [0.0]          # pinned: the card is infinitely heavy to it
    anchor = pts.pos[0].copy()
    s.step(120)
    assert np.allclose(pts.pos[cp.index[0]], clip_px(s), atol=1e-3)
    x, y = clip_px(s) + [0.0, 60.0]                          # on the card, below its clip: a press takes it
    s.pointer_down(float(x), float(y))
    for k in range(1, 31):
        s.pointer_move(float(x) + 6 * k, float(y) + 2 * k)
        s.step()
    moved = clip_px(s)
    assert moved[0] > x + 60                                  # the card went with the hand ...
    assert np.allclose(pts.pos[cp.index[0]], moved, atol=1e-3)   # ... and the rope's tip with it
    assert np.array_equal(pts.pos[0], anchor)                 # the rope's own anchor stayed pinned


def test_a_ropes_anchor_pinned_to_the_card_leaves_the_rail(tmp_path):
    from ropework.components import Pins
    from ropework.components.lanyard import CardPins
    s = card_scene(tmp_path, at=0.0)
    (ent, cp), = s.find(CardPins)
    assert cp.index.tolist() == [0] and len(s.component(ent, Pins).index) == 0
    s.step(900)                                               # the first step's jump to the card swung it
    pts = s.component(ent, Points)
    assert np.allclose(pts.pos[0], clip_px(s), atol=1e-3)
    assert pts.pos[-1, 1] > pts.pos[0, 1] + 100               # the rope hangs from the card


def test_a_card_attachment_needs_a_lanyard_layer(tmp_path):
    import subprocess
    import sys
    f = tmp_path / "bad.toml"
    f.write_text(CARD_ROPE.split("\n", 3)[3].format(at=1.0))   # the ropes layer alone
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    line = (r.stdout + r.stderr).strip()
    assert r.returncode == 2 and "\n" not in line and "layer[0].attach[0].card" in line and "lanyard" in line, line
