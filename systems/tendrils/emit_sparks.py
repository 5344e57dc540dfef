"""Emit sparks: fast rope tips throw sparks into the bundle's ring buffer.

Reads: Points (pos, prev), Ropes, Sparks (parameters, head), Frame (dt, rng,
reduced_motion). Writes: Sparks (pos, vel, life, rope, head).

A tip's speed is |pos − prev| / dt in px/s, so the threshold means the same at
any step length. Above it, with probability ``chance`` per step, the tip throws
a spark with ``keep`` of its velocity plus ±``jitter`` px/s per axis, in its
rope's colour. The spark goes into the slot after the last one, wrapping: the
newest overwrites the oldest and the pool never grows. Reduced motion: none.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Points, Ropes
from ropework.components.tendrils import Sparks


class EmitSparks(esper.Processor):
    def process(self, frame):
        if frame.reduced_motion:
            return
        rng = frame.rng
        for _, (pts, ropes, sp) in esper.get_components(Points, Ropes, Sparks):
            size = sp.size
            if size == 0:
                continue
            tips = ropes.tips
            vel = (pts.pos[tips, :2] - pts.prev[tips, :2]) / np.float32(frame.dt)   # px/s
            fast = np.flatnonzero(np.einsum("ij,ij->i", vel, vel) > np.float32(sp.threshold) ** 2)
            if fast.size == 0:
                continue
            fast = fast[rng.random(fast.size) < sp.chance][-size:]
            m = fast.size
            if m == 0:
                continue
            slots = (sp.head + np.arange(m)) % size
            sp.pos[slots] = pts.pos[tips[fast], :2]
            sp.vel[slots] = vel[fast] * np.float32(sp.keep) + (rng.random((m, 2), np.float32) - 0.5) * np.float32(2 * sp.jitter)
            sp.life[slots] = sp.life_min + rng.random(m, np.float32) * np.float32(sp.life_spread)
            sp.rope[slots] = fast
            sp.head = int((sp.head + m) % size)
