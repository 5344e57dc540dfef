"""Ripple and the shockwave push: rings start on unclaimed presses, push only their band, end at 0.85 s.

The seed stamps a click with performance.now() and pushes, from its very next frame on,
at age = now − stamp while age ≤ 0.85 s; in fixed 1/60 s steps that is the click's own
step at age 1/60 s, then one step older each step, 51 steps in all."""
from __future__ import annotations

import esper
import numpy as np
import pytest

from ropework.components import Frame, Layer, Pointer
from ropework.components.dotgrid import Shockwaves
from ropework.systems.dotgrid.ripple import Ripple
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
    """A live ring that pushes at ``age`` (a whole number of steps) in the next step."""
    r = rings(scene)
    r.x[slot], r.y[slot], r.steps[slot], r.alive[slot] = x, y, round(age * 60) - 1, True


@pytest.mark.parametrize("age", [1 / 60, 0.1, 0.4, 0.85])
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


def seed_shocks(clicks, frames, dt=1 / 60):
    """The seed's shock list, on a fixed-step clock: ``clicks`` maps a step to the (x, y)
    clicked just before it. A click is stamped with the clock at its step's start (the
    seed's performance.now() in the click handler); each step's frame is drawn at the
    clock at its end, and a shock older than 0.85 s there is dropped, else it pushes at
    its age. Returns, per step, the (x, y, age) of the rings that push. The clock counts
    steps, so an age is (steps) · dt."""
    shocks, out = [], []
    for f in range(frames):
        if f in clicks:
            shocks.append((*clicks[f], f))          # shocks.push({x, y, time: now})
        now = f + 1
        shocks = [s for s in shocks if not (now - s[2]) * dt > 0.85]   # if (age > 0.85) splice
        out.append([(x, y, (now - t) * dt) for x, y, t in shocks])
    return out


def test_a_click_pushes_in_its_own_step_and_rings_live_the_seeds_0_85_s(dense):
    clicks = {0: (400, 300), 20: (250, 200)}
    want = seed_shocks(clicks, 100)
    pushed = 0
    for f in range(100):
        if f in clicks:
            dense.pointer_down(*clicks[f])
            dense.pointer_leave()           # a click, then the pointer leaves: only the rings act
        dense.step(1)
        g = grid(dense)
        expected = sum((ring_push(g.origin, x, y, age)[0] for x, y, age in want[f]), np.zeros_like(g.offset, float))
        np.testing.assert_allclose(g.offset, expected, atol=1e-4, err_msg=f"frame {f}")
        assert rings(dense).live == len(want[f])
        pushed += bool(g.offset.any())
    assert [len(w) for w in want[:3]] == [1, 1, 1] and want[0][0][2] == 1 / 60   # the click's own step pushes
    assert sum(1 for w in want if any(x == 400 for x, _, _ in w)) == 51          # 1/60 … 51/60 = 0.85 s
    assert pushed == 20 + 51 and not grid(dense).offset.any()


def test_a_rings_last_push_is_at_exactly_its_duration(dense):
    dense.pointer_down(400, 300)
    dense.pointer_leave()
    r = rings(dense)
    ages = []
    for _ in range(60):
        dense.step(1)
        if r.alive.any():
            ages.append(float(r.steps[r.alive][0] * (1 / 60)))
    assert len(ages) == 51 and ages[0] == 1 / 60 and ages[-1] == 0.85   # not a running sum: no slack needed


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
    arrays = (r.x, r.y, r.steps, r.alive)
    for i in range(6):
        scene.pointer_down(100 + 100 * i, 300)
        scene.step(1)
        scene.pointer_up(100 + 100 * i, 300)
        scene.step(1)
    assert r.live == 4
    assert all(a is b for a, b in zip(arrays, (r.x, r.y, r.steps, r.alive)))   # no reallocation
    assert sorted(r.x[r.alive]) == [300, 400, 500, 600]                      # the two oldest gave way
