"""Settle: a still body sleeps, and a touch wakes it (the ropes' and cloth's `sleep` key).

Reads: Points, Grab, Colliders (held), Extras.sleep. Writes: Sleep, Points.prev.

Not a system of its own in the frame: integrate asks `wake_if_touched` before it steps a body
and relax (`project`) calls `settle` after, so a scene without sleep runs the same systems as
ever. After `Sleep.calm_steps` steps in which no point moved `Sleep.still` px, the body sleeps:
its last velocity is dropped (already below a pixel a second) and integrate and relax pass it
by, so it costs no solve time, until a press takes one of its points. The lanyard's `sleep`
does the same for its strap and card (`doze`), with the same rule: calm for a while, then frozen
exactly where it is until the hand takes it.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Grab
from ropework.components.collider import Colliders
from ropework.components.solve import Extras


def wake_if_touched(ent: int, pts, ex: Extras) -> bool:
    """Whether body ``ent`` is awake, waking it first if asleep and touched: a press holds one of
    its points or of its colliders. Called by integrate (which runs first in a step) and relax."""
    z = ex.sleep
    if z is None or not z.asleep:
        return True
    grab = esper.try_component(ent, Grab)
    col = esper.try_component(ent, Colliders)
    if (grab is not None and grab.held >= 0) or (col is not None and col.held >= 0):
        z.asleep, z.calm = False, 0
        return True
    return False


def settle(pts, ex: Extras, moved: float = 0.0) -> None:
    """Count a still step (every point moved less than ``still``, and its dynamic colliders:
    ``moved`` px at most) and put the body to sleep after ``calm_steps`` of them in a row, its
    last velocity dropped (already below a pixel a second)."""
    z = ex.sleep
    if z is None:
        return
    still = moved < z.still and (len(pts.pos) == 0 or float(np.abs(pts.pos - pts.prev).max()) < z.still)
    z.calm = z.calm + 1 if still else 0
    if z.calm >= z.calm_steps:
        z.asleep = True
        pts.prev[:] = pts.pos
