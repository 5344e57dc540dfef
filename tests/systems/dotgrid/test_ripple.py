"""Ripple and the shockwave push: rings start on unclaimed presses, push only their band, end at 0.85 s.

The seed stamps a click with performance.now() and draws that same frame with the same
clock, pushing at age = now − stamp while age ≤ 0.85 s; in fixed 1/60 s steps that is the
click's own step at age 0 (radius 0, full strength), then one step older each step, 52
steps in all. `test_the_grid_is_the_seeds_loop_step_for_step` steps the seed's own loop
(`ropework.testing.reference.Dots000`) beside the engine."""
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
    """A live ring that pushes at ``age`` (a whole number of steps, at least one) in the next step."""
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
    clicked in it. A click is stamped with the clock (the seed's performance.now() in the
    click handler) and the frame it comes in is drawn at that same clock; a shock older than
    0.85 s there is dropped, else it pushes at its age. Returns, per step, the (x, y, age) of
    the rings that push. The clock counts steps, so an age is (steps) · dt."""
    shocks, out = [], []
    for f in range(frames):
        if f in clicks:
            shocks.append((*clicks[f], f))          # shocks.push({x, y, time: now})
        now = f
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
    assert [len(w) for w in want[:3]] == [1, 1, 1] and want[0][0][2] == 0.0    # the click's own step, at age 0
    assert sum(1 for w in want if any(x == 400 for x, _, _ in w)) == 52          # 0/60 … 51/60 = 0.85 s
    assert pushed == 20 + 52 and not grid(dense).offset.any()


def test_a_fresh_ring_pushes_at_age_0_with_full_strength(dense):
    """In its click's step a ring has radius 0: the dots within the band of the click are
    pushed by strength·(1 − d/band), the seed's force at age 0 — not a step older."""
    dense.pointer_down(395, 305)
    dense.pointer_leave()
    dense.step(1)
    g = grid(dense)
    expected, inside = ring_push(g.origin, 395, 305, 0.0)
    np.testing.assert_allclose(g.offset, expected, atol=1e-4)
    d = np.hypot(g.origin[:, 0] - 395, g.origin[:, 1] - 305)
    near = int(np.argmin(np.where(inside, np.abs(d - 35), np.inf)))
    assert abs(np.hypot(*g.offset[near]) - 45 * (1 - d[near] / 75)) < 1e-4


def test_a_rings_last_push_is_at_exactly_its_duration(dense):
    dense.pointer_down(400, 300)
    dense.pointer_leave()
    r = rings(dense)
    ages = []
    for _ in range(60):
        dense.step(1)
        if r.alive.any():
            ages.append(float(r.steps[r.alive][0] * (1 / 60)))
    assert len(ages) == 52 and ages[0] == 0.0 and ages[-1] == 0.85   # not a running sum: no slack needed


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


# ── the seed's loop, stepped beside the engine ────────────────────────────────
# Each scenario: the window size, the level's keys (the ring's speed, band, strength and
# life are the seed's radius, waveWidth, strength and 0.85), and per step what the pointer
# does before it: ("click", x, y) presses and releases there, ("move", x, y), ("leave",).
SEED_SCENARIOS = {
    "clicks at the centre, overlapping, then the pointer leaves": (
        (800, 600), {"gap": 20},
        {0: ("click", 400, 300), 7: ("click", 430, 280), 30: ("click", 200, 150), 40: ("leave",),
         52: ("click", 600, 450), 53: ("click", 610, 460), 90: ("click", 400, 300)}),
    "a click on a dot, in a corner and on the edge": (
        (800, 600), {"gap": 50},
        {3: ("click", 25, 25), 4: ("click", 5, 5), 10: ("click", 799, 300), 11: ("leave",), 60: ("click", 0, 599)}),
    "a small window, a fine grid, clicks with the pointer kept inside": (
        (320, 180), {"gap": 10},
        {0: ("move", 100, 90), 2: ("click", 100, 90), 5: ("move", 130, 90), 6: ("click", 250, 40),
         20: ("move", 252, 40), 51: ("click", 160, 90)}),
    "another ring's speed, band, strength and life": (
        (1280, 720), {"gap": 30, "shock_speed": 600.0, "shock_band": 30.0, "shock_strength": 80.0,
                      "shock_duration": 0.5},
        {1: ("click", 640, 360), 2: ("leave",), 20: ("click", 100, 600), 31: ("click", 1200, 80), 32: ("leave",)}),
}


@pytest.mark.parametrize("scenario", sorted(SEED_SCENARIOS))
def test_the_grid_is_the_seeds_loop_step_for_step(scenes, tmp_path, scenario):
    """Offsets and colours equal the seed's frame at every step, from each click on (its own step
    at age 0), rings overlapping, ending, and one clicked as another ends; the one thing the
    engine does not copy is the seed's ``forEach`` skipping, for a single dot, the shock after
    one it splices out (`Dots000.skipped`): those dots are left out of that step's comparison."""
    from ropework.testing.reference import Dots000
    size, keys, events = SEED_SCENARIOS[scenario]
    scene = scenes(dot_level(tmp_path, **keys), size=size)
    g = grid(scene)
    ref = Dots000(g.origin.tolist(), radius=keys.get("shock_speed", 250.0), strength=keys.get("shock_strength", 45.0),
                  duration=keys.get("shock_duration", 0.85), band=keys.get("shock_band", 75.0))
    mouse = prev = None
    for f in range(120):
        ev = events.get(f)
        if ev is not None and ev[0] == "click":
            scene.pointer_down(ev[1], ev[2])
            scene.pointer_up(ev[1], ev[2])
            mouse = (ev[1], ev[2])
            ref.click(ev[1], ev[2], f)
        elif ev is not None and ev[0] == "move":
            scene.pointer_move(ev[1], ev[2])
            mouse = (ev[1], ev[2])
        elif ev is not None:
            scene.pointer_leave()
            mouse = None
        scene.step(1)
        ref.frame(f, mouse, prev)
        prev = mouse
        keep = np.ones(g.n, bool)
        keep[sorted(ref.skipped)] = False
        np.testing.assert_allclose(g.offset[keep], np.array(ref.offset)[keep], atol=2e-4, err_msg=f"step {f}")
        np.testing.assert_allclose(g.colour[keep], np.array(ref.color)[keep] / 255.0, atol=2e-5, err_msg=f"step {f}")
