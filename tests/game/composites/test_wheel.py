"""The wheel rolls: on a slope with friction it runs downhill turning as it goes, its rim round."""
from __future__ import annotations

import math

import numpy as np

from tests.game.composites import body, scene_of, stretch

SLOPE = 20.0      # degrees, clockwise on screen: downhill to the right
RADIUS = 40.0     # px: the wheel's default radius
LEVEL = """[[layer]]
kind = "wheel"
at = [0.2, 0.2246]
spin = {spin}
[[layer.collider]]
shape = "box"
at = [0.5, 0.5]
size = [1100, 20]
angle = 20
friction = 0.9
"""   # the wheel starts just above the slope's upper part (a 1100 × 20 px box through the scene's middle)


def roll(tmp_path, steps=120, spin=0.0):
    """(hub travel, px [dx, dy], the rim's turn, radians clockwise, the worst link stretch)."""
    scene = scene_of(tmp_path, LEVEL.format(spin=spin))
    try:
        pts, con, _ = body(scene)
        start, turned = pts.pos[0].copy(), 0.0
        last = math.atan2(*(pts.pos[1] - pts.pos[0])[::-1])
        for _ in range(steps):
            scene.step(1)
            now = math.atan2(*(pts.pos[1] - pts.pos[0])[::-1])
            turned += (now - last + math.pi) % (2 * math.pi) - math.pi
            last = now
        return pts.pos[0] - start, turned, np.abs(stretch(pts, con)).max()
    finally:
        scene.close()


def test_it_rolls_down_a_slope_without_sliding(tmp_path):
    move, turned, worst = roll(tmp_path)
    dist = float(np.hypot(*move))
    assert move[0] > 80 and move[1] > 0                                      # downhill, to the right
    assert abs(math.degrees(math.atan2(move[1], move[0])) - SLOPE) < 6      # along the slope
    assert turned > 0 and abs(turned * RADIUS - dist) < 0.1 * dist           # rolled: arc = distance
    assert worst < 0.05                                                      # and stayed round


def test_a_frictionless_slope_lets_it_slide_without_turning(tmp_path):
    scene_text = LEVEL.replace("friction = 0.9", "friction = 0.0")
    scene = scene_of(tmp_path, scene_text.format(spin=0.0))
    try:
        pts, _, _ = body(scene)
        start, first = pts.pos[0].copy(), pts.pos[1] - pts.pos[0]
        scene.step(120)
        d = pts.pos[1] - pts.pos[0]
        turn = math.atan2(first[0] * d[1] - first[1] * d[0], first @ d)
        assert np.hypot(*(pts.pos[0] - start)) > 80 and abs(turn) < 0.2
    finally:
        scene.close()
