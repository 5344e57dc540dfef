"""Drag card: the held strap end closes 0.35 of its gap to the target each strap step, and only then."""
import esper
import numpy as np

from ropework.components import Points
from ropework.components.lanyard import Cadence, CardGrab
from ropework.systems.lanyard.drag_card import DragCard


def test_the_last_point_moves_a_fixed_fraction_of_the_gap_after_integrate():
    pts = Points.at(np.array([[0, 5.4, 0], [0.1, 5.3, 0], [0.5, 5.0, 0.2]], np.float32))
    grab = CardGrab(follow=0.35, tilt_while_held=False, tilt=np.zeros(3), tilt_max=np.zeros(3), tilt_ease=0.2,
                    held=True, target=np.array([1.5, 3.0, 0.2]))
    cad = Cadence(every=1)
    esper.create_entity(pts, grab, cad)
    before = pts.pos.copy()
    DragCard().process(None)
    want = before[2] + (np.float32([1.5, 3.0, 0.2]) - before[2]) * np.float32(0.35)
    assert np.array_equal(pts.pos[2], want) and np.array_equal(pts.pos[:2], before[:2])
    assert np.array_equal(pts.prev, before)           # the move is velocity: a release throws it
    cad.active = False
    DragCard().process(None)
    assert np.array_equal(pts.pos[2], want)           # not on the engine steps between strap steps
    cad.active, grab.held = True, False
    DragCard().process(None)
    assert np.array_equal(pts.pos[2], want)
