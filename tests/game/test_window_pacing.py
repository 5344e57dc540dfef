"""The window's frame pacing (ropework.window.next_due): frames on a fixed grid, so the rate a
player sees is the period's, however late each wake-up is; an overrun never turns into a burst."""
from __future__ import annotations

import random

from ropework.window import FRAME_PERIOD, display_period, next_due


def play(lateness, work, frames=600):
    """Start times of ``frames`` frames: each starts when due (or when the last one ended, if
    later) plus a wake-up ``lateness()``, and takes ``work()`` seconds."""
    due, free, starts = 0.0, 0.0, []
    for _ in range(frames):
        now = max(due, free) + lateness()
        starts.append(now)
        due = next_due(due, now)
        free = now + work()
    return starts


def test_late_wake_ups_do_not_lower_the_rate():
    rng = random.Random(1)
    starts = play(lambda: rng.uniform(0.0, 0.002), lambda: 0.008)   # up to 2 ms late every frame
    rate = (len(starts) - 1) / (starts[-1] - starts[0])
    assert abs(rate - 1 / FRAME_PERIOD) < 0.05      # 60.0, not 1 / (period + mean lateness) ≈ 58.3


def test_an_overrun_frame_is_followed_at_once_and_a_long_stall_re_anchors():
    assert next_due(1.0, 1.0 + 0.5 * FRAME_PERIOD) == 1.0 + FRAME_PERIOD            # late by half: stays on the grid
    assert next_due(1.0, 1.0 + 3 * FRAME_PERIOD) == 1.0 + 4 * FRAME_PERIOD          # a stall: one period after now
    slow = play(lambda: 0.0, lambda: 0.025, frames=100)                              # every frame overruns
    gaps = [b - a for a, b in zip(slow, slow[1:])]
    assert min(gaps) >= 0.025 - 1e-12                                                # no catch-up burst


class _Screen:
    def __init__(self, rate):
        self.rate = rate

    def get_mode(self):
        if self.rate is None:
            raise RuntimeError("no video mode extension")
        return self


class _Win:
    def __init__(self, rate):
        self.screen = _Screen(rate)


def test_frames_come_at_the_displays_refresh_rate_or_the_one_asked_for():
    assert display_period(_Win(144)) == 1 / 144
    assert display_period(_Win(75.0)) == 1 / 75
    assert display_period(_Win(144), hz=50) == 1 / 50           # --display-hz wins
    for unknown in (None, 0, 1000):                             # no mode, or one not believed: 60
        assert display_period(_Win(unknown)) == FRAME_PERIOD
