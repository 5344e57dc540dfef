"""Pace: a body with a cadence of k engine steps is held exactly still in between."""
import esper
import numpy as np

from ropework.components import Frame, Pins, Points
from ropework.components.lanyard import Cadence
from ropework.systems.lanyard.pace import Pace


def test_weights_are_zero_between_own_steps_and_restored_from_the_pins():
    pts = Points.at(np.zeros((4, 3), np.float32))
    pins = Pins(index=np.array([0], np.int32), anchor=np.zeros((1, 3), np.float32))
    pins.apply(pts)
    cad = Cadence(every=3)
    esper.create_entity(pts, pins, cad)
    frame = Frame(dt=1 / 60, t=0.0, width=10, height=10, rng=np.random.default_rng(0))
    seen = []
    for step in range(7):
        frame.steps = step
        Pace().process(frame)
        seen.append((cad.active, pts.inv_mass.tolist()))
    for step, (active, w) in enumerate(seen):
        assert active == (step % 3 == 0)
        assert w == ([0.0, 1.0, 1.0, 1.0] if active else [0.0] * 4)


def test_a_cadence_of_one_writes_nothing():
    pts = Points.at(np.zeros((3, 3), np.float32))
    pts.inv_mass[:] = [0.0, 0.5, 1.0]
    esper.create_entity(pts, Cadence(every=1))
    frame = Frame(dt=1 / 60, t=0.0, width=10, height=10, rng=np.random.default_rng(0), steps=5)
    Pace().process(frame)
    assert pts.inv_mass.tolist() == [0.0, 0.5, 1.0]
