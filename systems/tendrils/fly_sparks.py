"""Fly sparks: live sparks fall, slow down and burn out.

Reads: Sparks, Frame.dt. Writes: Sparks (pos, vel, life).

Each live slot (life > 0) loses dt of life, gains ``gravity``·dt of downward
velocity, keeps ``drag`` of its velocity per step, and moves by velocity·dt —
semi-implicit Euler in px/s, as the seed. Dead slots cost one comparison.
"""
from __future__ import annotations

import esper

from ropework.components.tendrils import Sparks
from ropework.systems.services.kernels import kernel


@kernel()
def fly(pos, vel, life, dt, gravity, drag):
    """Advance every live spark one step, in place."""
    for i in range(life.shape[0]):
        if life[i] <= 0.0:
            continue
        life[i] -= dt
        vel[i, 1] += gravity * dt
        vel[i, 0] *= drag
        vel[i, 1] *= drag
        pos[i, 0] += vel[i, 0] * dt
        pos[i, 1] += vel[i, 1] * dt


class FlySparks(esper.Processor):
    def process(self, frame):
        for _, sp in esper.get_component(Sparks):
            fly(sp.pos, sp.vel, sp.life, frame.dt, sp.gravity, sp.drag)
