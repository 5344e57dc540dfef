"""Cloth from level entries alone: pins hold, links near rest at rest, stiff as sequential GS, determinism."""
import numpy as np
import pytest

from ropework.components import Constraints, Pins, Points
from ropework.kinds.cloth import grid_constraints, pinned_every
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


@pytest.mark.parametrize("cols, every, want", [(48, 4, [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 47]),
                                               (9, 4, [0, 4, 8]), (10, 3, [0, 3, 6, 9]), (5, 1, [0, 1, 2, 3, 4]),
                                               (6, 100, [0, 5]), (2, 7, [0, 1])])
def test_pin_every_always_holds_both_top_corners(cols, every, want):
    assert pinned_every(cols, every).tolist() == want


def test_the_shipped_cloth_hangs_even_not_in_a_spike_at_the_right(scenes):
    """48 columns pinned every 4 stopped at column 44: the three right-hand columns dangled and stuck out
    in a spike at the bottom right (37.8 px from its mirror image at rest). Both corners pinned, the cloth
    at rest is its own mirror image but for the row-major sweep's bias and the last pin gap being 3
    columns, not 4 (6.0 px with the whole correction at pins; 10.7 px with the seeds' half share)."""
    scene = scenes(LEVELS / "cloth.toml", size=(1280, 720))
    pts, _, pins = body(scene)
    assert {0, 47} <= set(pins.index.tolist())
    scene.step(600)
    pos = pts.pos.reshape(32, 48, 2).astype(float)
    mirror = pos[:, ::-1].copy()
    mirror[..., 0] = scene.width - mirror[..., 0]
    assert np.abs(mirror - pos).max() < 15.0
