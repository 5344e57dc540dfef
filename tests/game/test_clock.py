"""The fixed-step clock: accumulate, clamp, cap, pause without a jump."""
from ropework.clock import MAX_STEPS, STEP, STEP_BUDGET, Clock


def test_accumulates_whole_steps():
    c = Clock()
    assert c.advance(STEP * 0.5) == 0
    assert c.advance(STEP * 0.6) == 1
    assert sum(c.advance(STEP) for _ in range(60)) in (60, 61)


def test_long_frames_are_clamped_and_capped():
    c = Clock()
    assert c.advance(10.0) == 3        # 0.05 s at most: three 1/60 s steps
    c = Clock(max_dt=1.0)
    assert c.advance(1.0) == MAX_STEPS


def test_pause_accumulates_nothing_and_resume_does_not_jump():
    c = Clock()
    c.pause()
    assert c.advance(0.04) == 0
    c.resume()
    assert c.advance(0.05) == 0        # the first frame after a resume is dropped
    assert c.advance(STEP) == 1


def test_bad_dt_is_ignored():
    c = Clock()
    for dt in (0.0, -1.0, float("nan")):
        assert c.advance(dt) == 0


def test_dear_steps_are_capped_by_their_measured_cost():
    c = Clock()
    assert c.advance(0.05, step_cost=0.001) == 3                  # cheap steps: every step that is due
    assert c.advance(0.05, step_cost=STEP_BUDGET / 2) == 2        # two fit in the budget
    assert c.advance(0.05, step_cost=0.02) == 1                   # dearer than the budget: one a frame
    assert c.acc == 0.0                                           # the rest is dropped: no backlog builds up
    assert c.advance(STEP * 0.5, step_cost=0.02) == 0             # the cap never adds a step that is not due
    assert c.advance(0.05, step_cost=0.0) == 3                    # not measured yet: uncapped
