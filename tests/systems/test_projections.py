"""The relax stage's projections against plain transcriptions of the anchors' loops."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.systems.services import projections as pj


# verlet-js (lib/constraint.js, lib/vec2.js), transcribed as written: AngleConstraint.relax
def _angle(v, w):
    return math.atan2(v[0] * w[1] - v[1] * w[0], v[0] * w[0] + v[1] * w[1])


def _angle2(me, left, right):
    return _angle((left[0] - me[0], left[1] - me[1]), (right[0] - me[0], right[1] - me[1]))


def _rotate(p, origin, theta):
    x, y = p[0] - origin[0], p[1] - origin[1]
    return (x * math.cos(theta) - y * math.sin(theta) + origin[0], x * math.sin(theta) + y * math.cos(theta) + origin[1])


def verlet_js_angle_relax(pos, a, b, c, angle, stiffness, step_coef):
    diff = _angle2(pos[b], pos[a], pos[c]) - angle
    if diff <= -math.pi:
        diff += 2 * math.pi
    elif diff >= math.pi:
        diff -= 2 * math.pi
    diff *= step_coef * stiffness
    pos[a] = _rotate(pos[a], pos[b], diff)
    pos[c] = _rotate(pos[c], pos[b], -diff)
    pos[b] = _rotate(pos[b], pos[a], diff)
    pos[b] = _rotate(pos[b], pos[c], -diff)


# Ten Minute Physics (14-cloth.html / 10-softBodies.html): solveEdges, as written
def tmp_solve_edges(pos, inv_mass, edges, rest, compliance, dt):
    alpha = compliance / dt / dt
    for i, (id0, id1) in enumerate(edges):
        w0, w1 = inv_mass[id0], inv_mass[id1]
        w = w0 + w1
        if w == 0.0:
            continue
        g = [pos[id0][0] - pos[id1][0], pos[id0][1] - pos[id1][1]]
        ln = math.sqrt(g[0] * g[0] + g[1] * g[1])
        if ln == 0.0:
            continue
        g = [g[0] / ln, g[1] / ln]
        s = -(ln - rest[i]) / (w + alpha)
        pos[id0] = [pos[id0][0] + g[0] * s * w0, pos[id0][1] + g[1] * s * w0]
        pos[id1] = [pos[id1][0] - g[0] * s * w1, pos[id1][1] - g[1] * s * w1]


def test_bend_is_verlet_js_angle_constraint():
    rng = np.random.default_rng(3)
    n = 12
    pos = (rng.random((n, 2)) * 200).astype(np.float32)
    inv = np.ones(n, np.float32)
    tri = np.array([np.arange(0, n - 2), np.arange(1, n - 1), np.arange(2, n)], np.int32)
    angle = rng.uniform(-math.pi, math.pi, n - 2).astype(np.float32)
    stiff = rng.uniform(0, 1, n - 2).astype(np.float32)
    for _sweep in range(10):
        ref = [tuple(map(float, p)) for p in pos]
        for t in range(n - 2):
            verlet_js_angle_relax(ref, *tri[:, t], float(angle[t]), float(stiff[t]), 1 / 7)
        pj.bend(pos, inv, tri, angle, stiff, 1 / 7)
        np.testing.assert_allclose(pos, np.array(ref), atol=2e-3)


def test_bend_leaves_pinned_points_and_a_straight_rope():
    pos = np.array([[0, 0], [10, 0], [20, 0], [30, 0]], np.float32)
    inv = np.array([0, 1, 1, 1], np.float32)
    tri = np.array([[0, 1], [1, 2], [2, 3]], np.int32)
    angle = np.full(2, math.pi, np.float32)
    before = pos.copy()
    pj.bend(pos, inv, tri, angle, np.ones(2, np.float32), 1.0)
    np.testing.assert_allclose(pos, before, atol=1e-4)        # at rest angle: nothing moves
    pos[3] = [30, 8]
    pj.bend(pos, inv, tri, angle, np.ones(2, np.float32), 0.5)
    assert (pos[0] == 0).all()                         # pinned: never moved
    assert abs(pos[3, 1]) < 8                          # the bent end is turned back toward straight


def test_xpbd_distance_is_ten_minute_physics_solve_edges():
    rng = np.random.default_rng(5)
    n = 30
    pos = (rng.random((n, 2)) * 100).astype(np.float32)
    inv = np.where(rng.random(n) < 0.2, 0, 1).astype(np.float32)
    a = rng.integers(0, n, 60).astype(np.int32)
    b = ((a + 1 + rng.integers(0, n - 1, 60)) % n).astype(np.int32)
    rest = rng.uniform(5, 20, 60).astype(np.float32)
    comp = rng.choice([0.0, 1e-4, 1e-2], 60).astype(np.float32)
    h = 1 / 600
    for _sweep in range(5):
        ref = [list(map(float, p)) for p in pos]
        for t in range(60):   # one compliance per edge: the anchor's loop, one edge at a time
            tmp_solve_edges(ref, inv, [(a[t], b[t])], [float(rest[t])], float(comp[t]), h)
        pj.xpbd_distance(pos, inv, a, b, rest, comp, h)
        np.testing.assert_allclose(pos, np.array(ref), atol=1e-3)


def test_attach_splits_by_inverse_mass():
    pos = np.array([[0, 0], [10, 0], [10, 20]], np.float32)   # point 0 onto the middle of 1 → 2
    inv = np.array([1.0, 0.01, 0.01], np.float32)              # a light point, a heavy segment
    at = np.array([[0], [1], [2]], np.int32)
    pull = np.zeros(1, np.float32)
    pj.attach(pos, inv, at, np.array([0.5], np.float32), pull)
    target = 0.5 * (pos[1] + pos[2])
    np.testing.assert_allclose(pos[0], target, atol=1e-4)     # met exactly
    assert pull[0] == pytest.approx(math.hypot(10, 10), rel=1e-5)
    moved_heavy = np.abs(pos[1:] - [[10, 0], [10, 20]]).max()
    assert moved_heavy < 0.02 * math.hypot(10, 10)             # the heavy side barely moves (mass ratio 1:100)


def test_near_pairs_finds_every_close_pair_of_a_brute_force_search():
    rng = np.random.default_rng(9)
    n = 400
    pos = (rng.random((n, 2)) * 300).astype(np.float32)
    rest = (np.arange(n)[:, None] * [7.0, 0.0]).astype(np.float32)   # a rope laid out straight
    reach, apart = 12.0, 15.0
    pairs = np.zeros((2, 10_000), np.int32)
    m = pj.near_pairs(pos, rest, reach, apart, np.zeros(2 * n + 1, np.int32), np.zeros(n, np.int32),
                      np.zeros(n, np.int32), np.zeros((4, n), np.float32), pairs)
    got = {tuple(p) for p in pairs[:, :m].T}
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    r = np.linalg.norm(rest[:, None] - rest[None], axis=2)
    i, j = np.nonzero((d < reach) & (r >= apart))
    want = {(p, q) for p, q in zip(i, j) if p < q}
    assert m == len(got) and got == want and m > 0


def _near(pos, rest, reach, apart, cells):
    n = len(pos)
    pairs = np.zeros((2, 8 * max(n, 1)), np.int32)
    m = pj.near_pairs(pos.astype(np.float32), rest.astype(np.float32), np.float32(reach), np.float32(apart),
                      np.zeros(cells + 1, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32),
                      np.zeros((4, n), np.float32), pairs)
    return {tuple(p) for p in pairs[:, :m].T}


def test_near_pairs_grid_widens_its_cells_for_a_box_larger_than_its_scratch():
    """Two clusters a million px apart on a grid of at most 50 cells: each cluster's pairs, none between
    them, as the brute force finds."""
    rng = np.random.default_rng(3)
    pos = np.concatenate([rng.random((30, 2)) * 20, 1e6 + rng.random((30, 2)) * 20])
    rest = np.arange(60)[:, None] * [100.0, 0.0]
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    i, j = np.nonzero(np.triu(d < 5.0, 1))
    want = set(zip(i.tolist(), j.tolist()))
    assert _near(pos, rest, 5.0, 1.0, 50) == want and len(want) > 10


def test_near_pairs_takes_a_point_gone_to_infinity_or_nan_without_losing_the_others():
    pos = np.array([[0, 0], [3, 0], [np.inf, 0], [np.nan, np.nan], [50, 50], [52, 50]], float)
    rest = np.arange(6)[:, None] * [100.0, 0.0]
    assert _near(pos, rest, 5.0, 1.0, 13) == {(0, 1), (4, 5)}
    assert _near(pos[:0], rest[:0], 5.0, 1.0, 1) == set()


@pytest.mark.parametrize("m", [1, 7, 8, 9, 23])
def test_collide_pairs_takes_every_pair_of_the_list_whatever_its_length(m):
    """The pairs are taken run by run (`COLLIDE_WAYS` runs): every one of them, and none past m."""
    pos = np.zeros((2 * m + 2, 2), np.float32)
    pos[:, 0] = np.repeat(np.arange(m + 1) * 100.0, 2)
    pos[1::2, 0] += 1.0                                   # pair k: points 2k, 2k + 1, 1 px apart
    inv = np.ones(len(pos), np.float32)
    pairs = np.arange(2 * m + 2, dtype=np.int32).reshape(-1, 2).T.copy()
    pj.collide_pairs(pos, inv, pairs, m, 8.0)
    gaps = pos[1::2, 0] - pos[0::2, 0]
    np.testing.assert_allclose(gaps[:m], 8.0, atol=1e-4)
    assert gaps[m] == 1.0                                 # the pair past m is left


def test_collide_pairs_separates_to_two_radii():
    pos = np.array([[0, 0], [3, 0]], np.float32)
    inv = np.ones(2, np.float32)
    pj.collide_pairs(pos, inv, np.array([[0], [1]], np.int32), 1, 8.0)
    assert np.linalg.norm(pos[1] - pos[0]) == pytest.approx(8.0, abs=1e-5)
    assert pos[:, 0].mean() == pytest.approx(1.5)             # equal masses: the middle stays
