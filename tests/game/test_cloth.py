"""Cloth from level entries alone: pins hold, links near rest at rest, stiff as sequential GS, determinism."""
import numpy as np

from ropework.components import Constraints, Pins, Points
from ropework.kinds.cloth import grid_constraints
from tests.conftest import LEVELS


def body(scene):
    (_, pts), = scene.find(Points)
    (_, con), = scene.find(Constraints)
    (_, pins), = scene.find(Pins)
    return pts, con, pins


def stretch(pts, con):
    d = np.linalg.norm(pts.pos[con.b].astype(float) - pts.pos[con.a], axis=1)
    return np.abs(d - con.rest) / con.rest


def test_grid_links_every_neighbour_once():
    a, b = grid_constraints(4, 3, shear=False)
    assert len(a) == 3 * 3 + 2 * 4
    pairs = set(zip(a.tolist(), b.tolist()))
    assert (0, 1) in pairs and (0, 4) in pairs and (10, 11) in pairs and len(pairs) == len(a)
    a2, _ = grid_constraints(4, 3, shear=True)
    assert len(a2) == len(a) + 2 * 3 * 2


def test_cloth_hangs_with_pins_fixed_and_links_near_rest(scenes):
    scene = scenes(LEVELS / "cloth.toml", size=(900, 600))
    pts, con, pins = body(scene)
    anchors = pts.pos[pins.index].copy()
    scene.step(300)
    assert np.array_equal(pts.pos[pins.index], anchors)
    s = stretch(pts, con)
    # 14 sequential passes over a 32-deep column: the top links carry the whole column's weight, and
    # the link under a pin gets the rope seed's half share of its error (seed 001's relax): ≈23 %
    # long at rest, where the whole-correction rule held it to ≈12 %
    assert s.mean() < 0.02 and s.max() < 0.3


def test_grab_pins_the_point_to_the_cursor_and_release_throws(scenes):
    scene = scenes(LEVELS / "cloth.toml", size=(900, 600))
    pts, con, pins = body(scene)
    scene.step(30)
    scene.pointer_down(450, 300)
    for k in range(10):
        scene.pointer_move(450 + 10 * k, 300)
        scene.step(1)
    (_, grab), = scene.find(__import__("components").Grab)
    held = grab.held
    assert held >= 0 and pts.pos[held].tolist() == [540.0, 300.0]
    scene.pointer_up(540, 300)
    scene.step(1)
    assert pts.inv_mass[held] == 1.0                        # free again after the release
    assert (pts.pos - pts.prev)[pts.inv_mass > 0, 0].mean() > 0.2   # and the cloth swings on to the right


def test_cloth_is_deterministic(scenes):
    hashes = []
    for _ in range(2):
        s = scenes(LEVELS / "cloth.toml", size=(900, 600), seed=3)
        s.pointer_down(450, 250)
        for k in range(40):
            s.pointer_move(450 + 9 * k, 250 + 5 * k)
            s.step(1)
        s.pointer_up(800, 450)
        s.step(50)
        hashes.append(s.state_hash())
    assert hashes[0] == hashes[1]
