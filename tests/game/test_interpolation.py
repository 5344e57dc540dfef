"""Smooth frames: at 50, 75, 120 and 144 Hz the window's clock leaves a fraction of a step, and each
frame draws every smoothed field at lerp(the step before, the last step, that fraction), while the
physics runs the same fixed steps, bit for bit, as a run that draws no frame between steps."""
from __future__ import annotations

import arcade
import numpy as np
import pytest

from ropework import snapshot
from ropework.controller import Controller
from ropework.scene import Scene

SIZE = (640, 360)


class _Ctx:
    viewport = (0, 0, *SIZE)


class _Probe:
    """A draw system that keeps what each smoothed field held while it drew."""

    def __init__(self, scene):
        self.scene, self.seen = scene, {}

    def draw(self, frame, layer_name, ctx):
        self.seen = {(e, type(c).__name__, n): np.array(getattr(c, n)) for e, c, n in self.scene.smoothed()}


def _fields(scene):
    return {(e, type(c).__name__, n): np.array(getattr(c, n)) for e, c, n in scene.smoothed()}


def _hand(scene, frame_no):
    """A drag across the rope while the frames run (events land between whichever steps they fall)."""
    if frame_no == 10:
        scene.pointer_down(320, 40)
    elif 10 < frame_no < 60:
        scene.pointer_move(320 + 4 * (frame_no - 10), 40 + 3 * (frame_no - 10))
    elif frame_no == 60:
        scene.pointer_up(520, 190)


@pytest.mark.parametrize("level", ["rope", "lanyard"])
@pytest.mark.parametrize("hz", [50, 75, 120, 144])
def test_each_frame_draws_the_lerp_of_the_last_two_steps(level, hz):
    ctl = Controller(Scene.load(level, size=SIZE, seed=4), levels=[])
    sc = ctl.scene
    taps, tap = [], sc.tap
    sc.tap = lambda *a: (taps.append(a), tap(*a))
    probe = _Probe(sc)
    sc.draws = [probe]
    frames = []
    for k in range(1, int(hz * 1.5) + 1):
        _hand(sc, k)
        ctl.update(1 / hz)
        sc.draw(_Ctx(), ctl.alpha)
        pending = bool(sc.pointer.events)           # a frame with no step holds its events for the next
        frames.append((k, sc.frame.steps, ctl.alpha, probe.seen,
                       None if pending else snapshot.combined(snapshot.digests(sc))))
        assert all(np.array_equal(v, _fields(sc)[key]) for key, v in _fields(sc).items())   # put back after
    ctl.close()

    ref = Scene.load(level, size=SIZE, seed=4)     # the same input at the same steps, nothing drawn
    ref.interpolate = False
    at, state = {0: _fields(ref)}, {0: snapshot.combined(snapshot.digests(ref))}
    for s in range(frames[-1][1]):
        for _, kind, x, y in (t for t in taps if t[0] == s):
            ref.pointer.events.append((kind, x, y))
        ref.step(1)
        at[s + 1], state[s + 1] = _fields(ref), snapshot.combined(snapshot.digests(ref))
    ref.close()

    # every step the time holds, none dropped: (a frame on a step's boundary may hold it as 0.99999… of one)
    assert frames[-1][1] + frames[-1][2] == pytest.approx(len(frames) * 60 / hz, abs=1e-9)
    for k, steps, alpha, drawn, digest in frames:
        assert digest in (None, state[steps]), f"frame {k}: the physics differs from the undrawn run"
        assert alpha == pytest.approx(k * 60 / hz - steps, abs=1e-9)   # the time left past the last step
        if steps == 0:
            continue
        assert drawn.keys() == at[steps].keys() and drawn
        for key, got in drawn.items():
            prev, cur = at[steps - 1][key], at[steps][key]
            want = prev + (cur - prev) * cur.dtype.type(alpha)
            assert np.array_equal(got, want), f"frame {k} {key}"
    assert len({round(f[2], 6) for f in frames}) > 1     # the frames did fall between steps
    assert sum(f[4] is not None for f in frames) > len(frames) / 2


def test_interpolation_off_by_key_or_level_draws_the_last_step(tmp_path):
    ctl = Controller(Scene.load("rope", size=SIZE, seed=4), levels=[])
    sc = ctl.scene
    probe = _Probe(sc)
    sc.draws = [probe]
    sc.pointer_down(320, 40)
    for k in range(12):
        sc.pointer_move(330 + 9 * k, 50 + 5 * k)
        ctl.update(1 / 144)
    assert 0.0 < ctl.alpha < 1.0
    assert ctl.press(arcade.key.V) and not sc.interpolate and ctl.alpha == 1.0
    ctl.update(1 / 144)
    sc.draw(_Ctx(), ctl.alpha)
    assert all(np.array_equal(v, _fields(sc)[key]) for key, v in probe.seen.items())
    ctl.close()
    lv = tmp_path / "still.toml"
    lv.write_text('interpolate = false\n[[layer]]\nkind = "cloth"\n')
    assert Scene.load(lv, size=SIZE).interpolate is False


def test_tendrils_draw_their_step_a_persistent_light_takes_once_a_step():
    sc = Scene.load("tendrils", size=SIZE, seed=1)
    assert sc.smoothed() == []                      # the light is added to at each step's ropes, as the seed
    sc.close()
