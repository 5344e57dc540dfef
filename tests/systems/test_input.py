"""Grab: nearest free point within 46 px, nothing beyond; throw; release paths."""
import numpy as np

from ropework.components import Grab, Points, Ropes
from ropework.systems.services.hitquery import PointIndex


def body(scene):
    (_, pts), = scene.find(Points)
    (_, grab), = scene.find(Grab)
    (_, ropes), = scene.find(Ropes)
    return pts, grab, ropes


def test_grab_picks_the_nearest_free_point_within_46px(scenes):
    scene = scenes("rope.toml")
    pts, grab, ropes = body(scene)
    target = ropes.start[1] + 10
    x, y = pts.pos[target]
    scene.pointer_down(x + 30, y + 2)
    scene.step(1)
    assert grab.held == target


def test_nothing_beyond_46px_and_pinned_points_are_never_picked(scenes):
    scene = scenes("rope.toml")
    pts, grab, ropes = body(scene)
    x, y = pts.pos[ropes.start[1] + 10]
    scene.pointer_down(x + 46.5, y)
    scene.step(1)
    assert grab.held == -1
    scene.pointer_up(x, y)
    ax, ay = pts.pos[ropes.start[0]]
    scene.pointer_down(ax, ay - 5)   # nearer the pinned anchor than to point 1
    scene.step(1)
    assert grab.held == ropes.start[0] + 1


def test_index_finds_a_point_that_moved_since_it_was_built():
    pos = np.array([[0.0, 0.0], [100.0, 100.0]], np.float32)
    index = PointIndex(np.array([0, 1]))
    assert index.nearest(pos, 1, 1, 46) == 0
    pos[1] = (500, 500)
    pos[0] = (900, 900)
    assert index.nearest(pos, 505, 505, 46) == 1
    assert index.nearest(pos, 1, 1, 46) == -1


def test_a_thrown_rope_keeps_moving_after_release(scenes):
    scene = scenes("rope.toml")
    pts, grab, ropes = body(scene)
    tip = ropes.tips[1]
    x, y = pts.pos[tip]
    scene.pointer_down(x, y)
    for k in range(9):              # a swing to the right that stays within the rope's reach
        scene.pointer_move(x + 15 * k, y - 10 * k)
        scene.step(1)
    scene.pointer_up(x + 120, y - 80)
    scene.step(1)
    assert grab.held == -1
    rope = slice(ropes.start[1] + 1, tip + 1)
    v = (pts.pos[rope] - pts.prev[rope]).mean(axis=0)
    assert v[0] > 1 and v[1] < -1   # the rope flies on up and right, with the hand's velocity
    before = pts.pos[tip].copy()
    scene.step(5)
    assert pts.pos[tip, 0] > before[0] + 10 and pts.pos[tip, 1] < before[1] - 10


def test_leave_ends_the_grab_and_so_does_a_release(scenes):
    scene = scenes("rope.toml")
    pts, grab, ropes = body(scene)
    x, y = pts.pos[ropes.tips[2]]
    scene.pointer_down(x, y)
    scene.step(1)
    assert grab.held >= 0
    scene.pointer_leave()
    scene.step(1)
    assert grab.held == -1
    scene.pointer_down(x, y)
    scene.step(1)
    scene.pointer_up(x, y)
    scene.step(1)
    assert grab.held == -1


def test_held_point_tracks_the_cursor_with_its_velocity(scenes):
    scene = scenes("rope.toml")
    pts, grab, ropes = body(scene)
    x, y = pts.pos[ropes.tips[0]]
    scene.pointer_down(x, y)
    scene.step(1)
    scene.pointer_move(x + 4, y)
    scene.step(1)
    # the seed: the held point is put on the cursor, previous position where it was, then stepped
    assert abs(pts.pos[grab.held, 0] - (x + 4)) < 8


def test_presses_are_taken_by_z_unclaimed_or_from_a_lower_layer():
    import esper

    from ropework.components import Layer, Pointer
    from ropework.systems.input import claimed_above, release
    pts = Points.at(np.zeros((5, 2)))
    low = esper.create_entity(Layer("ropes", "ropes", 0), Grab(radius=10, held=3, pin=True), pts)
    pts.inv_mass[3] = 0.0          # held with a pin
    high = esper.create_entity(Layer("top", "ropes", 5))
    ptr = Pointer()
    assert not claimed_above(ptr, 2)
    ptr.claimed_by = low
    assert not claimed_above(ptr, 2) and claimed_above(ptr, 0)
    ptr.claimed_by = high
    assert claimed_above(ptr, 2)
    release(low)                    # a layer above takes the press from the lower one
    assert esper.component_for_entity(low, Grab).held == -1 and pts.inv_mass[3] == 1.0


def test_in_a_dense_sheet_the_nearest_free_point_is_picked_among_thousands():
    """Thousands of points inside the grab square (a million-point curtain under the cursor): the pick
    is still the exact nearest free one (brute force over every point), never a pinned one."""
    from ropework.systems.services.hitquery import MAX_CANDIDATES
    rng = np.random.default_rng(7)
    pos = rng.uniform(0, 200, (40_000, 2)).astype(np.float32)   # ≈ 8,500 inside a 46 px square
    free = np.flatnonzero(rng.random(len(pos)) > 0.3)
    index = PointIndex(free)
    for x, y in rng.uniform(20, 180, (25, 2)):
        d2 = ((pos[free].astype(np.float64) - (x, y)) ** 2).sum(axis=1)
        inside = (np.abs(pos[free, 0] - x) < 46) & (np.abs(pos[free, 1] - y) < 46)
        assert inside.sum() > 10 * MAX_CANDIDATES
        assert index.nearest(pos, x, y, 46) == free[np.argmin(d2)]
    pos[free] = 1000.0                                          # only pinned points left near the cursor
    assert index.nearest(pos, 100, 100, 46) == -1
