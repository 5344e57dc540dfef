"""Sparks: thrown only by tips faster than the threshold, into a fixed ring buffer."""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Frame, Points, Ropes
from ropework.components.tendrils import Sparks
from ropework.systems.tendrils.emit_sparks import EmitSparks
from ropework.systems.tendrils.fly_sparks import FlySparks

DT = 1 / 60


def bundle(n_ropes: int, tip_speed: float, pool: int = 900):
    """n_ropes two-point ropes whose tips move right at tip_speed px/s."""
    ropes = Ropes.of_counts([2] * n_ropes)
    pos = np.zeros((2 * n_ropes, 2), np.float32)
    pos[:, 1] = np.arange(2 * n_ropes)
    pts = Points.at(pos)
    sp = Sparks.pool(pool)
    esper.create_entity(pts, ropes, sp)
    return pts, ropes, sp


def moving(pts, ropes, speed):
    """Give every tip the velocity (speed, 0) px/s for the coming step."""
    pts.prev[ropes.tips] = pts.pos[ropes.tips]
    pts.prev[ropes.tips, 0] -= np.float32(speed * DT)


def frame(seed=0, reduced=False):
    return Frame(dt=DT, t=0.0, width=800, height=600, rng=np.random.default_rng(seed), reduced_motion=reduced)


def test_no_spark_below_threshold():
    pts, ropes, sp = bundle(50, 880.0)
    f, emit = frame(), EmitSparks()
    for _ in range(200):
        moving(pts, ropes, 880.0)
        emit.process(f)
    assert sp.live == 0 and sp.head == 0


def test_sparks_above_threshold_at_the_seed_rate_and_velocity():
    pts, ropes, sp = bundle(50, 950.0, pool=100_000)
    f, emit = frame(), EmitSparks()
    steps = 40
    for _ in range(steps):
        moving(pts, ropes, 950.0)
        emit.process(f)
    thrown = sp.live
    assert 0.5 < thrown / (50 * steps) < 0.7            # probability 0.6 per fast tip per step
    v = sp.vel[sp.life > 0]
    assert np.all(np.abs(v[:, 0] - 0.35 * 950.0) <= 100.0 + 1e-3)   # 35% of the tip velocity ± 100 px/s
    assert np.all(np.abs(v[:, 1]) <= 100.0 + 1e-3)
    life = sp.life[sp.life > 0]
    assert life.min() >= 0.5 and life.max() <= 1.1


def test_ring_buffer_never_exceeds_its_slots_and_never_reallocates():
    pts, ropes, sp = bundle(100, 3000.0)
    arrays = (sp.pos, sp.vel, sp.life, sp.rope)
    f, emit, fly = frame(), EmitSparks(), FlySparks()
    for _ in range(40):                                   # ≈ 2,400 sparks thrown into 900 slots
        moving(pts, ropes, 3000.0)
        emit.process(f)
        fly.process(f)
        assert sp.size == 900 and sp.live <= 900
    assert sp.live > 600
    assert all(a is b for a, b in zip(arrays, (sp.pos, sp.vel, sp.life, sp.rope)))


def test_reduced_motion_throws_no_sparks():
    pts, ropes, sp = bundle(20, 5000.0)
    f, emit = frame(reduced=True), EmitSparks()
    for _ in range(20):
        moving(pts, ropes, 5000.0)
        emit.process(f)
    assert sp.live == 0


def test_sparks_fall_slow_and_burn_out():
    sp = Sparks.pool(4)
    esper.create_entity(sp)
    sp.life[:] = [1.0, 0.0, 0.5, -1.0]
    sp.vel[:] = [[100.0, 0.0], [100.0, 0.0], [0.0, 0.0], [5.0, 5.0]]
    FlySparks().process(frame())
    # live: life − dt, vy + 600·dt, then × 0.98, then pos + v·dt; dead slots untouched
    assert np.isclose(sp.life[0], 1.0 - DT)
    assert np.allclose(sp.vel[0], [98.0, 600 * DT * 0.98])
    assert np.allclose(sp.pos[0], np.array([98.0, 600 * DT * 0.98]) * DT)
    assert np.all(sp.vel[1] == [100.0, 0.0]) and np.all(sp.pos[1] == 0) and sp.life[3] == -1.0
