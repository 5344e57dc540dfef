"""A scripted hand for long runs: grabs, drags, throws, clicks, swipes, focus loss and idle spells.

The same script drives every shipped level (determinism hashes, the soak), so its
positions are fractions of the window: a press at (0.5 w, 0.3 h) lands on the middle
rope and on the cloth, (0.5 w, 0.45 h) on the lanyard's card, (0.18 w, 0.35 h) on the
left rope; tendrils follow the pointer and electrify while it is held; dots are pushed,
swiped and rippled. It repeats every `PERIOD` steps, shifted a little each time so the
runs do not settle into one cycle, and ends each cycle idle long enough for autopilots.

    hand = Hand(800, 600)
    for step in range(n):
        hand.apply(scene, step)   # this step's events, then
        scene.step()
"""
from __future__ import annotations

import math

PERIOD = 600          # steps per cycle (10 s): about a third of it idle, so autopilots take over
SHIFTS = 5            # cycles before the shift pattern repeats


class Hand:
    def __init__(self, width: float, height: float):
        self.w, self.h = float(width), float(height)

    def events(self, step: int) -> list[tuple[str, float, float]]:
        """The pointer events before ``step``: (kind, x, y) in scene pixels."""
        cycle, t = divmod(step, PERIOD)
        w, h = self.w, self.h
        dx = 0.04 * w * ((cycle % SHIFTS) - SHIFTS // 2)    # each cycle a little to one side
        r = 0.2 * min(w, h)
        cx, cy = 0.5 * w + dx, 0.45 * h
        if t < 60:                                          # come in from the left
            return [("move", 0.05 * w + (0.45 * w + dx) * t / 59, 0.3 * h)]
        if t == 60:                                         # grab the middle of the scene
            return [("down", 0.5 * w + dx, 0.3 * h)]
        if t < 180:                                         # two slow circles
            a = (t - 60) / 120 * 4 * math.pi
            return [("move", cx + r * math.sin(a), cy - r * math.cos(a) + (0.3 * h - cy + r) * 0)]
        if t == 180:
            return [("up", cx, cy - r)]
        if t == 200:                                        # grab the left rope ...
            return [("down", 0.18 * w + dx, 0.35 * h)]
        if 200 < t <= 230:                                  # ... and throw it right and down
            u = (t - 200) / 30
            return [("move", (0.18 + 0.52 * u) * w + dx, (0.35 + 0.25 * u) * h)]
        if t == 231:
            return [("up", 0.7 * w + dx, 0.6 * h)]
        if 240 <= t < 300:                                  # fast swipes across the window
            u = (t - 240) % 6 / 5
            return [("move", (0.1 + 0.8 * u) * w, (0.2 + 0.6 * ((t - 240) // 6) / 10) * h)]
        if t == 300:                                        # a click (down and up in one step)
            return [("down", 0.3 * w + dx, 0.7 * h), ("up", 0.3 * w + dx, 0.7 * h)]
        if t == 320:                                        # press on the card and hold ...
            return [("down", cx, cy)]
        if 320 < t < 380:                                   # ... dragging it down and back
            return [("move", cx + 0.1 * w * math.sin((t - 320) / 60 * 2 * math.pi), cy + 0.15 * h * (t - 320) / 60)]
        if t == 380:                                        # focus lost mid-drag
            return [("leave", 0.0, 0.0)]
        return []                                           # idle to the end of the cycle

    def apply(self, scene, step: int) -> None:
        for kind, x, y in self.events(step):
            if kind == "leave":
                scene.pointer_leave()
            else:
                getattr(scene, f"pointer_{kind}")(x, y)


def run(scene, steps: int, start: int = 0, hand: Hand | None = None) -> None:
    """Step ``scene`` ``steps`` times from script step ``start``, the hand's events before each step."""
    hand = hand or Hand(scene.width, scene.height)
    for i in range(start, start + steps):
        hand.apply(scene, i)
        scene.step(1)
