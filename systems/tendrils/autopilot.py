"""Autopilot: when nobody has touched the pointer for a while, move it on a slow path.

Reads: Autopilot, Pointer (events, idle, down), Frame. Writes: Pointer.x/y/inside,
Autopilot.active.

After ``Autopilot.after`` seconds with no pointer event the pointer chases a
slow Lissajous figure across the window (see `components.tendrils.Autopilot`) with a
first-order lag, so the ropes keep moving and the scene never freezes. Any real
event takes over at once: this system runs before input, sees the queued event
and stands aside, and the input system resets ``Pointer.idle``. It never runs
while the button is held (a still hand holding the button is still input) nor
with reduced motion. The first Autopilot in the world drives the one pointer.
"""
from __future__ import annotations

import math

import esper

from ropework.components import Pointer
from ropework.components.tendrils import Autopilot

NEVER_INSIDE = -9000.0   # px: a pointer coordinate below this has never been over the window
EPS = 1e-9               # s: idle time is a sum of float steps; 150 × 1/60 may fall short of 2.5


def path(pilot: Autopilot, t: float, width: float, height: float) -> tuple[float, float]:
    """Where the autopilot's path is at scene time ``t``, px."""
    return (width * (0.5 + pilot.ax * math.sin(pilot.fx * t)),
            height * (pilot.cy + pilot.ay * math.sin(pilot.fy * t + pilot.phase)))


class Steer(esper.Processor):
    def process(self, frame):
        pilots = esper.get_component(Autopilot)
        if not pilots:
            return
        pilot = pilots[0][1]
        pilot.active = False
        for _, ptr in esper.get_component(Pointer):
            # idle is counted by the input system, which runs after this one and adds this step's dt
            if (frame.reduced_motion or ptr.events or ptr.down
                    or ptr.idle + frame.dt + EPS < pilot.after):
                continue
            if ptr.x < NEVER_INSIDE or ptr.y < NEVER_INSIDE:
                ptr.x, ptr.y = pilot.home
            tx, ty = path(pilot, frame.t, frame.width, frame.height)
            k = 1.0 - math.exp(-frame.dt / pilot.ease)
            dx, dy = (tx - ptr.x) * k, (ty - ptr.y) * k
            step = math.hypot(dx, dy)
            if step > pilot.max_speed * frame.dt:
                dx, dy = dx * pilot.max_speed * frame.dt / step, dy * pilot.max_speed * frame.dt / step
            ptr.x += dx
            ptr.y += dy
            ptr.inside = True
            pilot.active = True
