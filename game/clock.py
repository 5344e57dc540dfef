"""Fixed-step clock: turns variable frame times into whole simulation steps."""
from __future__ import annotations

from ropework.components.frame import STEP

MAX_FRAME_DT = 0.05   # s: a longer frame (a stall, a debugger) counts as this long, as the seed loop does
MAX_STEPS = 4         # steps per frame at most, so a slow machine slows down instead of spiralling
DISPLAY_HZ = (24, 480)  # frames a second a window may draw (a display mode reporting 0 or 1000 Hz is not believed)
STEP_BUDGET = 1 / 60  # s of measured stepping a frame at most (at least one step): a scene whose steps are
                      # dear (a million points) slows down instead of spending its frames on catch-up steps


class Clock:
    """Accumulates frame time and says how many fixed steps to run.

    While paused (window hidden or minimised) nothing accumulates; on resume the
    first frame's dt is dropped, so the simulation continues without a jump.
    """

    def __init__(self, step: float = STEP, max_dt: float = MAX_FRAME_DT, max_steps: int = MAX_STEPS,
                 budget: float = STEP_BUDGET):
        self.step, self.max_dt, self.max_steps, self.budget = step, max_dt, max_steps, budget
        self.acc = 0.0
        self.paused = False
        self._skip_next = False

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            self._skip_next = True

    def advance(self, dt: float, step_cost: float = 0.0) -> int:
        """Add a frame of ``dt`` seconds; return the number of fixed steps to run now.

        ``step_cost``: the measured seconds a step takes (0: not known yet). No more steps
        are run than fit in `budget` seconds, one at least; the time they leave is dropped,
        so a heavy scene runs slower than real time rather than at a frame rate its
        catch-up steps eat (at 20 ms a step: one step a frame, not three)."""
        if self.paused or self._skip_next or not dt > 0:   # also rejects NaN
            self._skip_next = False
            return 0
        self.acc += min(dt, self.max_dt)
        n = int(self.acc / self.step)
        self.acc -= n * self.step
        if n > self.max_steps:
            n, self.acc = self.max_steps, 0.0
        fit = max(1, int(self.budget / step_cost)) if step_cost > 0.0 else n
        if n > fit:
            n, self.acc = fit, 0.0
        return n
