"""The three things the benchmark times on each workload, behind one small interface.

Each contender is built from a `Workload` (optionally only some of its ropes), advances
one fixed step with `step()`, reports the ropes' point positions with `ropes_xy()`
(for the stretch), and is released with `close()`.

- `Engine`: ropework itself — one esper world holding every rope as ONE body entity
  (`Points`, `Pins`, `Constraints` in chain order, `Forces`), the declared pipeline
  installed, stepped through `esper.process(frame)`: the real per-step path.
- `Pymunk`: pymunk chains of the same size — a dynamic body per free point, a
  `PinJoint` per segment, `space.iterations = K`, point 0 a static body.
- `Reference`: the plain pure-Python port of the seeds' loop in game/testing/reference.py.
"""
from __future__ import annotations

import dataclasses
import itertools

import esper
import numpy as np
import pymunk

from bench.workloads import DAMPING, DT, GRAVITY, Workload
from ropework.components import Constraints, Forces, Frame, Pins, Points, Ropes
from ropework.systems import pipeline
from ropework.testing.reference import RefRope
from ropework.testing.reference import step as ref_step

WHOLE = 1.0             # WORKLOADS.md's rule: a pinned end gives its neighbour the whole correction
VIEW = (1280.0, 720.0)  # px: the engine's frame size; no system reads it for a bare rope body
_worlds = itertools.count(1)


class Engine:
    label = "engine"

    def __init__(self, w: Workload, ropes: list[int] | None = None):
        xy = w.layout(ropes)
        counts = [len(x) for x, _ in xy]
        self.world = f"bench-{w.id}-{next(_worlds)}"
        esper.switch_world(self.world)
        self.points = Points.at(np.concatenate([np.stack([x, y], axis=1) for x, y in xy]))
        self.ropes = Ropes.of_counts(counts)
        pins = Pins(index=self.ropes.start.copy(), anchor=self.points.pos[self.ropes.start].copy())
        pins.apply(self.points)
        a, b = self.ropes.chain_constraints()
        self.constraints = Constraints(a=a, b=b, rest=np.full(len(a), w.rest, np.float32), passes=w.passes,
                                       share=WHOLE)
        self.forces = Forces(gravity=np.array(GRAVITY, np.float32), damping=DAMPING)
        self.body = esper.create_entity(self.points, pins, self.constraints, self.forces)
        self.processors, _ = pipeline.install(pipeline.order(["input", "integrate", "relax"]))   # a rope scene's
        self.frame = Frame(dt=DT, t=0.0, width=VIEW[0], height=VIEW[1], rng=np.random.default_rng(0))

    def step(self) -> None:
        esper.process(self.frame)
        self.frame.steps += 1
        self.frame.t = self.frame.steps * self.frame.dt

    def ropes_xy(self):
        p = self.points.pos
        return [(p[s:s + c, 0], p[s:s + c, 1]) for s, c in zip(self.ropes.start, self.ropes.count)]

    def state_bytes(self) -> int:
        """Bytes of every numpy array held by the body entity's components, the relax
        schedule cached on `Constraints` (built by the first step) included."""
        total = 0
        for comp in esper.components_for_entity(self.body):
            for f in dataclasses.fields(comp):
                v = getattr(comp, f.name)
                arr = v if isinstance(v, np.ndarray) else getattr(v, "plan", None)
                if isinstance(arr, np.ndarray):
                    total += arr.nbytes
        return total

    def close(self) -> None:
        esper.switch_world("default")
        esper.delete_world(self.world)


class Pymunk:
    label = "pymunk"

    def __init__(self, w: Workload, ropes: list[int] | None = None):
        self.space = space = pymunk.Space()
        space.gravity = GRAVITY
        space.damping = DAMPING ** (1 / DT)   # pymunk's damping is per second: this keeps 0.995 per step
        space.iterations = w.passes
        self.chains = []
        for x, y in w.layout(ropes):
            anchor = pymunk.Body(body_type=pymunk.Body.STATIC)
            anchor.position = (float(x[0]), float(y[0]))
            chain = [anchor]
            space.add(anchor)
            for j in range(1, len(x)):
                body = pymunk.Body(1.0, float("inf"))   # a point mass: it never needs to rotate
                body.position = (float(x[j]), float(y[j]))
                space.add(body, pymunk.PinJoint(chain[-1], body))
                chain.append(body)
            self.chains.append(chain)

    def step(self) -> None:
        self.space.step(DT)

    def ropes_xy(self):
        out = []
        for chain in self.chains:
            p = np.array([tuple(b.position) for b in chain])
            out.append((p[:, 0], p[:, 1]))
        return out

    def close(self) -> None:
        self.space = self.chains = None


class Reference:
    label = "pure Python"

    def __init__(self, w: Workload, ropes: list[int] | None = None):
        self.w = w
        self.ropes = [RefRope(x.tolist(), y.tolist(), [True] + [False] * (len(x) - 1))
                      for x, y in w.layout(ropes)]

    def step(self) -> None:
        ref_step(self.ropes, self.w.rest, self.w.passes, GRAVITY[0], GRAVITY[1], DAMPING, DT)

    def ropes_xy(self):
        return [(np.array(r.x), np.array(r.y)) for r in self.ropes]

    def close(self) -> None:
        self.ropes = None


CONTENDERS = (Engine, Pymunk, Reference)
