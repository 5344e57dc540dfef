"""Rewind: a ring of in-memory states of the running scene and the input since each, so any step
of the last seconds can be brought back exactly.

    ring = Ring()
    scene.step(n, each=ring.after_step)     # a state every EVERY steps (the controller does this)
    scene.tap = ring.tap                    # and every pointer event, with the step it came before
    ring.scrub(scene, 2)                    # two steps back: the nearest earlier state, re-simulated
    ring.resume(scene)                      # play on from here: what lay ahead is dropped

A state is `snapshot.capture`'s (every component field a snapshot file saves, the clock and the
random generator); a scrubbed step is the state at or before it, stepped on with the pointer
events recorded since, so it is bit-identical to that step of the run (tests/game/test_rewind.py).
Memory is bounded: at most `RING_BYTES` of states, so a scene whose state is larger holds fewer
seconds than `SECONDS` (`seconds` says how many; the window says it while rewinding).
"""
from __future__ import annotations

import bisect
import math
import time
from collections import deque

from ropework import snapshot
from ropework.components.frame import STEP

RING_BYTES = 64 << 20   # bytes of held states at most: 64 MiB (a 100,000-point rope scene's state is 3.1 MiB:
                        # 10 s of it fits; a scene of about 1.5 million points or more holds fewer seconds)
SECONDS = 10.0          # s of the past the ring reaches back at most
EVERY = 30              # steps between held states at least (0.5 s): a scrubbed step re-simulates fewer than `every`
MAX_EVERY = 600         # steps between held states at most (10 s): the ring always holds two states or more
SHARE = 0.02            # of step time the held states aim to cost: a scene of cheap steps (a capture of a
                        # few dozen fields costs ~60 µs, a rope level's step ~10 µs) holds them further apart


class Ring:
    """The last `seconds` of a scene: states every `every` steps, and the pointer events since the oldest."""

    def __init__(self, budget: int = RING_BYTES, seconds: float = SECONDS, every: int = EVERY):
        self.budget, self.want, self.every = int(budget), float(seconds), int(every)
        self.least = self.every     # `every` grows from this for cheap steps (see `step_cost`)
        self.step_cost = 0.0        # s a step takes, as its runner measures it (0: not known; `every` stays)
        self.capture_cost = 0.0     # s a capture took, smoothed
        self.state_bytes = 0        # bytes of the last state taken
        self.states: deque[snapshot.State] = deque()
        self.events: list[tuple[int, str, float, float]] = []   # (step it came before, kind, x, y), in order
        self.limit = 0              # states held at most (set by the first state's size)
        self.key: tuple | None = None   # what the held states are states of (`Controller` compares it)

    def clear(self) -> None:
        self.states.clear()
        self.events.clear()
        self.limit = self.state_bytes = 0
        self.every = self.least

    # ── keeping ──────────────────────────────────────────────────────────────
    def tap(self, steps: int, kind: str, x: float, y: float) -> None:
        """A pointer event the scene took before step ``steps`` ran (`Scene.tap`)."""
        if self.states:              # events before the first state are in no state's future
            self.events.append((steps, kind, x, y))

    def after_step(self, scene) -> None:
        """A step ran: hold a state if `every` steps have passed since the last one."""
        steps = scene.frame.steps
        if self.states and steps - self.states[-1].steps < self.every:
            return
        if self.state_bytes > self.budget and steps % MAX_EVERY:
            return                   # too big to hold: asked again now and then (a studio edit may shrink it)
        t0 = time.perf_counter()
        st = snapshot.capture(scene)
        cost = time.perf_counter() - t0
        self.capture_cost = cost if not self.capture_cost else (self.capture_cost + cost) / 2
        if self.step_cost > 0:       # a state every `every` steps costs capture / (every × step) of stepping
            self.every = min(MAX_EVERY, max(self.least, math.ceil(self.capture_cost / (SHARE * self.step_cost))))
        self.state_bytes = st.nbytes
        self.limit = min(math.ceil(self.want / (self.every * STEP)) + 1, self.budget // max(1, st.nbytes))
        if not self.limit:           # one state is more than the budget: no rewind for this scene
            self.states.clear()
            self.events.clear()
            return
        self.states.append(st)
        while len(self.states) > self.limit:
            self.states.popleft()
        first = self.states[0].steps
        if self.events and self.events[0][0] < first:
            del self.events[:bisect.bisect_left(self.events, (first,))]

    @property
    def nbytes(self) -> int:
        return sum(s.nbytes for s in self.states)

    @property
    def seconds(self) -> float:
        """How far back the ring reaches when full (fewer than `SECONDS` for a large scene)."""
        return min(self.want, max(0, self.limit - 1) * self.every * STEP)

    @property
    def oldest(self) -> int | None:
        return self.states[0].steps if self.states else None

    # ── going back ───────────────────────────────────────────────────────────
    def scrub(self, scene, back: int, budget_steps: int | None = None) -> int:
        """Bring ``scene`` ``back`` steps back (not past the oldest state); return its step now.

        ``budget_steps``: steps of re-simulation a call may spend at most (a heavy scene's frame);
        a step further from its state than that is shown as the state itself, exact still."""
        if not self.states:
            return scene.frame.steps
        target = max(self.states[0].steps, scene.frame.steps - max(0, int(back)))
        i = bisect.bisect_right([s.steps for s in self.states], target) - 1
        st = self.states[i]
        if budget_steps is not None and target - st.steps > budget_steps:
            target = st.steps
        self.replay(scene, st, target)
        return target

    def replay(self, scene, st: snapshot.State, target: int) -> None:
        """Put ``st`` back and step on to ``target`` with the pointer events recorded for those steps."""
        snapshot.put(scene, st)
        lo = bisect.bisect_left(self.events, (st.steps,))
        ptr = scene.pointer
        for s in range(st.steps, target):
            while lo < len(self.events) and self.events[lo][0] == s:
                _, kind, x, y = self.events[lo]
                ptr.events.append((kind, x, y))
                lo += 1
            scene.step(1)
        scene.forget_before()

    def resume(self, scene) -> None:
        """Play on from the scene's step: the states and events after it belong to a past that is gone."""
        now = scene.frame.steps
        while self.states and self.states[-1].steps > now:
            self.states.pop()
        del self.events[bisect.bisect_left(self.events, (now,)):]
