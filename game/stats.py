"""What the statistics overlay (F) shows: elements per toy, draw calls, frame and step rates."""
from __future__ import annotations

from contextlib import contextmanager

from ropework.components import Points

RATE_WINDOW = 0.5   # s: FPS and ms per step are averaged over this much wall time, so the text is readable


def elements(scene) -> dict[str, int]:
    """{label: count} of every kind of element alive in the scene (labels with none are left out).

    Every body's points count as "points"; each kind adds what it declares in `Kind.counts`
    (the dot grid its dots, tendrils their live sparks).
    """
    rows = [("points", Points, lambda c: int(c.n))]
    for k in scene.kinds():
        rows += [row for row in k.counts if row not in rows]
    out: dict[str, int] = {}
    for label, cls, count in rows:
        n = sum(count(c) for _, c in scene.find(cls))
        if n:
            out[label] = out.get(label, 0) + n
    return out


@contextmanager
def count_draws():
    """Count draw calls made inside the block: ``with count_draws() as n: ...; n[0]``.

    A draw call is an arcade.gl ``Geometry.render``, or a canvas composited by read-back
    (`Canvas._blit`: the CPU blends the image over the pixels and writes or blits them in,
    one draw without a Geometry; the dense dot grid's frame is one)."""
    from arcade.gl import Geometry

    from ropework.systems.services.canvas import Canvas
    real, real_blit = Geometry.render, Canvas._blit
    calls = [0]

    def render(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)

    def blit(self, *args, **kwargs):
        calls[0] += 1
        return real_blit(self, *args, **kwargs)
    Geometry.render, Canvas._blit = render, blit
    try:
        yield calls
    finally:
        Geometry.render, Canvas._blit = real, real_blit


class Rates:
    """Frames per second and milliseconds per simulation step, averaged over RATE_WINDOW."""

    def __init__(self, window: float = RATE_WINDOW):
        self.window = window
        self.fps = 0.0
        self.step_ms = 0.0
        self._t = self._frames = self._steps = self._step_s = 0.0

    def frame(self, dt: float) -> bool:
        """One frame drawn, ``dt`` seconds after the previous; True when the averages were updated."""
        self._t += max(0.0, dt)
        self._frames += 1
        if self._t >= self.window:
            self.fps = self._frames / self._t
            if self._steps:
                self.step_ms = 1000.0 * self._step_s / self._steps
            self._t = self._frames = self._steps = self._step_s = 0.0
            return True
        return False

    def steps(self, n: int, seconds: float) -> None:
        """``n`` steps took ``seconds`` of wall time."""
        self._steps += n
        self._step_s += seconds
