"""The blob keeps its area (its own constraint type, solved in every pass) as it lands and is squeezed."""
from __future__ import annotations

import esper
import numpy as np

from ropework.kinds.composites.blob import Area, shoelace
from ropework.systems.services import solver
from tests.game.composites import body, scene_of

TOLERANCE = 0.03   # of its rest area: what a 32-point blob may lose or gain at any step, landing or squeezed


def test_area_is_a_declared_constraint_type():
    assert solver.TYPES["area"].component is Area


def test_it_keeps_its_area_while_it_lands(tmp_path):
    scene = scene_of(tmp_path, '[[layer]]\nkind = "blob"\nat = [0.5, 0.3]\n')
    try:
        pts, _, _ = body(scene)
        with scene.active():
            (_, area), = esper.get_component(Area)
        rest = float(area.rest[0])
        worst, lowest = 0.0, 0.0
        for _ in range(240):
            scene.step(1)
            worst = max(worst, abs(shoelace(pts.pos) / rest - 1))
            lowest = max(lowest, float(pts.pos[:, 1].max()))
        assert lowest > 700                      # it reached the floor (720 px, less the margin)
        assert worst < TOLERANCE, worst
    finally:
        scene.close()


def test_squeezed_by_a_collider_it_bulges_and_keeps_its_area(tmp_path):
    """A kinematic box dragged down onto the resting blob flattens it (71 px tall to 62): wider, same
    area. (Much flatter, an unstretchable ring cannot hold the area: a stadium of its perimeter
    that flat encloses less.)"""
    level = ('[[layer]]\nkind = "blob"\nat = [0.5, 0.9]\n[[layer.collider]]\nshape = "box"\nat = [0.5, 0.8]\n'
             'size = [400, 40]\nkinematic = true\n')
    scene = scene_of(tmp_path, level)
    try:
        pts, _, _ = body(scene)
        scene.step(120)                                   # settle on the floor
        rest = shoelace(pts.pos)
        width0 = np.ptp(pts.pos[:, 0])
        worst = 0.0
        scene.pointer_down(640, 576)                      # the box's centre: 0.8 × 720
        for k in range(60):                               # press it down 1 px a step: its underside from
            scene.pointer_move(640, 576 + k + 1)              # 596 px to 656, 10 px into the resting blob
            scene.step(1)
            worst = max(worst, abs(shoelace(pts.pos) / rest - 1))
        assert np.ptp(pts.pos[:, 1]) < 64 and np.ptp(pts.pos[:, 0]) > width0 + 8
        assert worst < TOLERANCE, worst
    finally:
        scene.close()


def test_a_blob_with_no_firmness_is_a_loop_of_string(tmp_path):
    """firmness = 0 turns the area constraint off: landing, it loses far more area."""
    scene = scene_of(tmp_path, '[[layer]]\nkind = "blob"\nat = [0.5, 0.3]\nfirmness = 0\n')
    try:
        pts, _, _ = body(scene)
        rest = 0.9 * shoelace(pts.pos)
        scene.step(240)
        assert shoelace(pts.pos) / rest < 1 - 3 * TOLERANCE
    finally:
        scene.close()
