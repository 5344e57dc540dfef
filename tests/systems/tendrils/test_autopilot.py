"""Autopilot: after 2.5 s with no input the pointer drifts on a slow path; any input takes over."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Frame, Pointer
from ropework.components.tendrils import Autopilot
from ropework.systems.input import PointerInput
from ropework.systems.tendrils.autopilot import Steer, path

DT = 1 / 60


class World:
    """Autopilot then input, as the pipeline orders them."""

    def __init__(self, reduced=False):
        self.ptr = Pointer()
        self.pilot = Autopilot(home=(400.0, 180.0))
        esper.create_entity(self.ptr)
        esper.create_entity(self.pilot)
        self.frame = Frame(dt=DT, t=0.0, width=800, height=600, rng=np.random.default_rng(0),
                           reduced_motion=reduced)
        self.systems = (Steer(), PointerInput())

    def step(self, n=1):
        for _ in range(n):
            for s in self.systems:
                s.process(self.frame)
            self.frame.steps += 1
            self.frame.t = self.frame.steps * DT


def test_starts_after_two_and_a_half_idle_seconds_and_stops_on_input():
    w = World()
    w.ptr.events.append(("move", 300.0, 200.0))
    w.step(150)                                  # the move at t = 0, then idle up to t = 2.483 s
    assert (w.ptr.x, w.ptr.y) == (300.0, 200.0) and not w.pilot.active
    w.step(1)                                    # the step at t = 2.5 s
    assert w.pilot.active and (w.ptr.x, w.ptr.y) != (300.0, 200.0)
    w.step(120)
    moved = (w.ptr.x, w.ptr.y)
    assert w.pilot.active and math.dist(moved, (300.0, 200.0)) > 20
    w.ptr.events.append(("move", 123.0, 456.0))  # a real event takes over at once
    w.step(1)
    assert not w.pilot.active and (w.ptr.x, w.ptr.y) == (123.0, 456.0)
    w.step(149)
    assert not w.pilot.active and (w.ptr.x, w.ptr.y) == (123.0, 456.0)
    w.step(1)
    assert w.pilot.active


def test_path_is_slow_and_smooth_and_the_pointer_follows_it():
    w = World()
    w.step(150 + 600)                            # 10 s of autopilot from the home point
    trail = []
    for _ in range(600):
        w.step(1)
        trail.append((w.ptr.x, w.ptr.y))
    trail = np.array(trail)
    speed = np.hypot(*np.diff(trail, axis=0).T) / DT
    assert speed.max() < 200.0                   # px/s: a slow drift, not a whip
    assert np.abs(np.diff(speed)).max() < 2.0     # no jumps
    assert trail[:, 0].min() >= 0 and trail[:, 0].max() <= 800
    assert trail[:, 1].min() >= 0 and trail[:, 1].max() <= 600
    tx, ty = path(w.pilot, w.frame.t - DT, 800, 600)
    assert math.dist((tx, ty), trail[-1]) < 0.6 * 200.0 * 1.0   # within one ease lag of the path


def test_takeover_from_never_inside_starts_at_home():
    w = World()
    w.step(149)
    assert not w.pilot.active and not w.ptr.inside
    w.step(1)                                    # the step at t = 2.483 s: 2.5 s idle once it ends
    assert w.pilot.active and w.ptr.inside
    assert math.dist((w.ptr.x, w.ptr.y), w.pilot.home) < 10.0   # one step of the 0.6 s ease from home


def test_takeover_from_far_away_is_never_faster_than_max_speed():
    w = World()
    w.ptr.events.append(("move", 5.0, 595.0))   # a corner, far from the path
    w.step(151)
    assert w.pilot.active
    last, steps = (w.ptr.x, w.ptr.y), []
    for _ in range(240):
        w.step(1)
        steps.append(math.dist(last, (w.ptr.x, w.ptr.y)))
        last = (w.ptr.x, w.ptr.y)
    assert max(steps) <= w.pilot.max_speed * DT + 1e-9 and max(steps) > 0.9 * w.pilot.max_speed * DT


def test_not_while_the_button_is_held_nor_with_reduced_motion():
    w = World()
    w.ptr.events.append(("down", 300.0, 200.0))
    w.step(400)
    assert not w.pilot.active and (w.ptr.x, w.ptr.y) == (300.0, 200.0)
    r = World(reduced=True)
    r.ptr.events.append(("move", 300.0, 200.0))
    r.step(400)
    assert not r.pilot.active and (r.ptr.x, r.ptr.y) == (300.0, 200.0)
