"""The strain overlay (B): the mapping from a link's stretch to its colour, at known inputs, and the
pixels a headless render paints with it on and off."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.components import Constraints, Points
from ropework.render import Offscreen
from ropework.systems.draw_strain import RAMP, UNBREAKABLE, break_ratio, strain, strain_colour

LEVEL = """\
title = "strain"
[[layer]]
kind = "ropes"
gravity = 0
break_at = 2.0
tip_radius = 0
anchor_radius = 0
[[layer.rope]]
anchor = 0.25
points = 12
colour = "#00d4ff"
[[layer.rope]]
anchor = 0.75
points = 12
colour = "#00d4ff"
"""


def test_strain_is_zero_at_rest_and_one_at_the_break_ratio():
    pos = np.array([[0, 0], [10, 0], [25, 0], [45, 0], [53, 0]], np.float32)
    a, b = np.arange(4), np.arange(1, 5)
    rest = np.full(4, 10.0, np.float32)
    ratio = np.array([2.0, 2.0, 2.0, 0.0], np.float32)
    s = strain(pos, a, b, rest, ratio)
    # 10/10 -> 0; 15/10 -> half way to 2.0; 20/10 -> at the ratio; 8/10 (shorter) -> 0 (ratio 0 reads 1.5)
    assert s.tolist() == [0.0, 0.5, 1.0, 0.0]
    s = strain(np.array([[0, 0], [12.5, 0]], np.float32), np.array([0]), np.array([1]), np.array([10.0], np.float32),
               np.zeros(1, np.float32))
    assert s[0] == pytest.approx((1.25 - 1) / (UNBREAKABLE - 1))
    assert strain(np.array([[0, 0], [99, 0]], np.float32), np.array([0]), np.array([1]),
                  np.array([10.0], np.float32), np.array([2.0], np.float32))[0] == 1.0   # past it: clipped


def test_the_ramp_runs_grey_amber_red():
    c = strain_colour(np.array([0.0, 0.25, 0.5, 0.75, 1.0], np.float32))
    assert np.allclose(c[0], RAMP[0]) and np.allclose(c[2], RAMP[1]) and np.allclose(c[4], RAMP[2])
    assert np.allclose(c[1], (RAMP[0] + RAMP[1]) / 2) and np.allclose(c[3], (RAMP[1] + RAMP[2]) / 2)


def test_a_body_without_breaking_has_no_ratio():
    con = Constraints(a=np.arange(3), b=np.arange(1, 4), rest=np.ones(3, np.float32), passes=1, share=0.5)
    assert break_ratio(con, None).tolist() == [0.0, 0.0, 0.0]


def test_the_overlay_paints_a_stretched_rope_red_and_a_resting_one_grey(scenes, gl_window, tmp_path):
    path = tmp_path / "strain.toml"
    path.write_text(LEVEL)
    scene = scenes(path, size=(400, 300))
    (_, pts), = scene.find(Points)
    # the right rope stretched to 1.9 × its rest length (strain 0.9): every point further down
    j = np.arange(12)
    pts.pos[12:, 1] = pts.pos[12, 1] + j * 11.0 * 1.9
    off = Offscreen(gl_window.ctx, (400, 300))
    off.render(scene)
    plain = off.pixels().astype(int)
    scene.frame.strain = True
    off.render(scene)
    img = off.pixels().astype(int)
    left = img[int(pts.pos[5, 1]), int(round(pts.pos[5, 0])), :3]
    right = img[int(pts.pos[17, 1]), int(round(pts.pos[17, 0])), :3]
    grey = np.round(RAMP[0, :3] * 255)
    red = np.round(strain_colour(np.array([0.9], np.float32))[0, :3] * 255)
    assert np.abs(left - grey).max() < 40, left            # at rest: grey over the rope
    assert np.abs(right - red).max() < 40, right           # stretched: near red
    assert right[0] > 200 and right[1] < 90
    off_rope = plain[int(pts.pos[17, 1]), int(round(pts.pos[17, 0])), :3]
    assert np.abs(off_rope - right).max() > 60              # off, the rope's own colour


def test_b_toggles_the_overlay_and_it_outlives_a_reset_and_a_new_level(scenes, tmp_path):
    import arcade

    from ropework.controller import Controller
    from tests.conftest import LEVELS
    ctl = Controller(scenes("rope.toml"), out_dir=tmp_path)
    assert not ctl.scene.frame.strain
    ctl.press(arcade.key.B)
    assert ctl.scene.frame.strain and "strain shown" in ctl.status
    ctl.reset()
    assert ctl.scene.frame.strain                       # a rebuilt frame keeps it
    assert ctl.open(LEVELS / "cloth.toml")
    assert ctl.scene.frame.strain                       # the player's, not the level's
    ctl.press(arcade.key.B)
    assert not ctl.scene.frame.strain
    ctl.scene.close()
