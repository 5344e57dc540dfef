"""Input: apply the pointer's queued events, then drag what it holds.

Reads: Pointer, Points, Grab, Colliders, Layer, Frame. Writes: Pointer, Grab.held, Colliders.centre/held
(a dragged kinematic or dynamic collider; a dynamic one's prev and, while held, inv_mass),
Points.pos/prev of held points and of PointerPins.

Pointer-down picks the nearest free point within the grab radius, topmost layer
first (one pick per press). While held, the point is moved to the cursor each
step with its previous position set to where it was, so its implied velocity
tracks the hand and the release throws the rope. As in the seed's code the held
point stays free (the solver still pulls on it); with ``Grab.pin`` it is pinned
to the cursor while held instead, so a hard drag can stretch (or tear) a cloth. Up, leave (pointer outside the
window, focus lost) end the grab. Pointer-pinned points sit at the pointer plus
their offset, their previous position too: an anchor has no velocity of its own.

A press on a kinematic or dynamic collider drags it instead. A dynamic one is held as the
pinned grab holds a point: its inverse mass is 0 while held (the hand is infinitely heavy) and
given back on release, and its previous centre follows the hand, so a release throws it.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Grab, Layer, Pointer, PointerPins, Points
from ropework.components.collider import PLANE, Colliders
from ropework.systems.services.contact import outline
from ropework.systems.services.hitquery import PointIndex, shape_at

MAX_COORD = 1e7   # px: far past any screen; near 1.8e19 the float32 square of a distance overflows to inf


def claimed_above(ptr: Pointer, z: int) -> bool:
    """Whether this step's press was taken by a layer at or above ``z``.

    The one routing rule for every layer: a press is offered topmost first; a
    layer may take it when nobody has, or when only a layer below it has (then it
    calls `release` on that taker). An entity with no Layer counts as on top.
    """
    if ptr.claimed_by == -1 or not esper.entity_exists(ptr.claimed_by):
        return False
    taker = esper.try_component(ptr.claimed_by, Layer)
    return taker is None or taker.z >= z


def release(ent: int) -> None:
    """End any grab ``ent`` holds (a pinned grab's point becomes free again)."""
    if ent == -1 or not esper.entity_exists(ent):
        return
    pts, grab = esper.try_component(ent, Points), esper.try_component(ent, Grab)
    if grab is None:
        return
    if grab.held >= 0 and grab.pin and pts is not None:
        pts.inv_mass[grab.held] = grab.held_weight   # free again, flying on with the hand's last motion
    grab.held = -1


class PointerInput(esper.Processor):
    def __init__(self):
        self._index: dict[int, tuple[int, PointIndex]] = {}   # entity -> (topology key, index)

    def _pick(self, ent: int, pts: Points, grab: Grab, x: float, y: float) -> int:
        free = np.flatnonzero(pts.inv_mass > 0)
        key = hash(free.tobytes())
        cached = self._index.get(ent)
        if cached is None or cached[0] != key:
            cached = (key, PointIndex(free))
            self._index[ent] = cached
        return cached[1].nearest(pts.pos, x, y, grab.radius)

    def process(self, frame):
        for _, ptr in esper.get_component(Pointer):
            ptr.pressed = ptr.released = False
            ptr.idle += frame.dt
            for kind, x, y in ptr.events:
                if not (abs(x) <= MAX_COORD and abs(y) <= MAX_COORD):   # NaN, ±inf, 1e30: dropped, never stored
                    continue
                ptr.idle = 0.0
                if kind == "leave":
                    ptr.inside = ptr.down = False
                    ptr.claimed_by = -1
                    ptr.released = True
                    self._release()
                    continue
                ptr.x, ptr.y, ptr.inside = float(x), float(y), True
                if kind == "down":
                    ptr.down = ptr.pressed = True
                    ptr.claimed_by = self._press(ptr.x, ptr.y)
                elif kind == "up":
                    ptr.down = False
                    ptr.claimed_by = -1
                    ptr.released = True
                    self._release()
            ptr.events.clear()
            self._drag(ptr)

    def _press(self, x, y) -> int:
        """Offer the press to kinematic colliders, then to grabbable bodies, topmost layer first;
        return the taker or -1."""
        self._release()
        for ent, col in esper.get_component(Colliders):
            moving = np.flatnonzero((col.kinematic | col.dynamic) & (col.shape != PLANE))
            if len(moving):
                hit = shape_at([outline(col, int(i), 0.0, 0.0) for i in moving], x, y)
                if hit >= 0:
                    col.held = int(moving[hit])
                    col.grip = (float(col.centre[col.held, 0]) - x, float(col.centre[col.held, 1]) - y)
                    if col.inv_mass is not None:
                        col.held_weight = float(col.inv_mass[col.held])
                        col.inv_mass[col.held] = 0.0
                    return ent
        for ent in [e for e in self._index if not esper.entity_exists(e)]:   # bodies deleted since (a rebuilt layer)
            del self._index[ent]
        grabbable = esper.get_components(Points, Grab)
        layers = {e: esper.try_component(e, Layer) for e, _ in grabbable}
        for ent, (pts, grab) in sorted(grabbable, key=lambda eg: -(layers[eg[0]].z if layers[eg[0]] else 0)):
            hit = self._pick(ent, pts, grab, x, y)
            if hit >= 0:
                grab.held = hit
                if grab.pin:
                    grab.held_weight = float(pts.inv_mass[hit])
                    pts.inv_mass[hit] = 0.0
                return ent
        return -1

    def _release(self):
        for ent, _ in esper.get_component(Grab):
            release(ent)
        for _, col in esper.get_component(Colliders):
            if col.held >= 0 and col.inv_mass is not None:
                col.inv_mass[col.held] = col.held_weight   # a dynamic one flies on with the hand's last motion,
                if col.held_weight == 0.0:                 # a kinematic one stops where it was let go
                    col.prev[col.held] = col.centre[col.held]
            col.held = -1

    def _drag(self, ptr: Pointer):
        for _, col in esper.get_component(Colliders):
            if col.held >= 0 and ptr.inside:
                if col.prev is not None:
                    col.prev[col.held] = col.centre[col.held]
                col.centre[col.held] = (ptr.x + col.grip[0], ptr.y + col.grip[1])
        for _, (pts, grab) in esper.get_components(Points, Grab):
            if grab.held < 0:
                continue
            if not ptr.inside:
                self._release()
                continue
            i = grab.held
            pts.prev[i] = pts.pos[i]
            pts.pos[i, 0] = ptr.x
            pts.pos[i, 1] = ptr.y
        for _, (pts, pins) in esper.get_components(Points, PointerPins):
            if not ptr.inside:
                continue
            target = pins.offset.copy()
            target[:, 0] += ptr.x
            target[:, 1] += ptr.y
            pts.pos[pins.index] = target
            pts.prev[pins.index] = target
