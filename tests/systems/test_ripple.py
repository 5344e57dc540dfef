"""Ripple and the shockwave push: rings start on unclaimed presses, push only their band, end at 0.85 s."""
from __future__ import annotations

import esper
import numpy as np
import pytest

from ropework.components import Frame, Layer, Pointer
from ropework.components.dots import Shockwaves
from ropework.systems.ripple import Ripple
from tests.dots import dot_level, grid, rings, unit

SIZE = (800, 600)


def ring_push(origin, x, y, age, speed=250.0, band=75.0, strength=45.0):
    """The seed's force 3 for every dot, float64[n, 2]."""
    d = np.hypot(origin[:, 0] - x, origin[:, 1] - y)
    radius = speed * age
    inside = (d < radius + band) & (d > max(0.0, radius - band))
    f = np.where(inside, (1 - age) * (1 - np.abs(d - radius) / band), 0.0)
    return unit(origin, x, y) * (strength * f)[:, None], inside


@pytest.fixture
def dense(scenes, tmp_path):
    return scenes(dot_level(tmp_path, gap=10), size=SIZE)


def put_ring(scene, slot, x, y, age):
    r = rings(scene)
    r.x[slot], r.y[slot], r.age[slot], r.alive[slot] = x, y, age, True


@pytest.mark.parametrize("age", [0.0, 0.1, 0.4, 0.85])
def test_a_ring_pushes_only_the_dots_in_its_band(dense, age):
    put_ring(dense, 0, 390, 310, age)     # the pointer never entered: only the ring acts
    dense.step(1)
    g = grid(dense)
    expected, inside = ring_push(g.origin, 390, 310, age)
    np.testing.assert_allclose(g.offset, expected, atol=1e-4)
    assert inside.sum() > 50
    assert not g.offset[~inside].any()


def test_rings_at_once_add_up(dense):
    put_ring(dense, 0, 300, 300, 0.3)
    put_ring(dense, 5, 500, 250, 0.6)
    put_ring(dense, 9, 420, 280, 0.05)
    dense.step(1)
    g = grid(dense)
    expected = sum(ring_push(g.origin, x, y, a)[0] for x, y, a in [(300, 300, 0.3), (500, 250, 0.6), (420, 280, 0.05)])
    np.testing.assert_allclose(g.offset, expected, atol=1e-4)


def test_a_click_makes_a_ring_that_ends_after_its_duration(dense):
    dense.pointer_down(400, 300)
    dense.pointer_leave()                 # a click, then the pointer leaves: the ring plays out
    dense.step(1)
    r = rings(dense)
    assert r.live == 1
    slot = int(np.argmax(r.alive))
    assert (r.x[slot], r.y[slot], r.age[slot]) == (400.0, 300.0, 0.0)
    pushed_at = []
    for k in range(80):
        age = r.age[slot] if r.alive[slot] else None
        dense.step(1)
        if age is not None:
            expected, _ = ring_push(grid(dense).origin, 400, 300, age)
            np.testing.assert_allclose(grid(dense).offset, expected, atol=1e-4)
        if grid(dense).offset.any():
            pushed_at.append(age)
    assert r.live == 0
    assert max(pushed_at) == pytest.approx(0.85)
    assert len(pushed_at) == 52           # ages 0, 1/60 … 51/60 = 0.85 s; after that nothing moves
    assert not grid(dense).offset.any()


def test_a_press_claimed_above_makes_no_ring():
    frame = Frame(dt=1 / 60, t=0.0, width=800, height=600, rng=np.random.default_rng(0))
    ptr = Pointer(x=100, y=100, inside=True, down=True, pressed=True)
    esper.create_entity(ptr)
    grid_ent = esper.create_entity(Shockwaves.pool(8, 250, 75, 45, 0.85), Layer("dots", "dotgrid", 0))
    card = esper.create_entity(Layer("card", "lanyard", 5))
    ropes = esper.create_entity(Layer("ropes", "ropes", -3))
    pool = esper.component_for_entity(grid_ent, Shockwaves)
    ripple = Ripple()
    for taker, rings_after in [(card, 0), (-1, 1), (ropes, 2)]:
        ptr.claimed_by = taker
        ripple.process(frame)
        assert pool.live == rings_after


def test_the_pool_is_fixed_and_the_oldest_ring_gives_way(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, max_rings=4), size=SIZE)
    r = rings(scene)
    arrays = (r.x, r.y, r.age, r.alive)
    for i in range(6):
        scene.pointer_down(100 + 100 * i, 300)
        scene.step(1)
        scene.pointer_up(100 + 100 * i, 300)
        scene.step(1)
    assert r.live == 4
    assert all(a is b for a, b in zip(arrays, (r.x, r.y, r.age, r.alive)))   # no reallocation
    assert sorted(r.x[r.alive]) == [300, 400, 500, 600]                      # the two oldest gave way
