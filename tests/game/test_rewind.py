"""Rewind returns exact states: every step the ring reaches, scrubbed to, is bit-identical (every
component field, the clock and the random generator) to that step of a straight run, on every
shipped level, through a drag; playing on from a scrubbed step with the same input gives the
straight run's bits; memory stays within the ring's budget; the window's ← drives it."""
from __future__ import annotations

import arcade
import pytest

from ropework import level, snapshot
from ropework.controller import Controller
from ropework.rewind import Ring
from ropework.scene import Scene

SIZE = (640, 360)
STEPS = 130


def _input(scene, s):
    """The pointer before step ``s``: a press on the upper middle at 30, an arc of drags, a release at 90."""
    if s == 25:
        scene.pointer_move(320, 60)
    if s == 30:
        scene.pointer_down(320, 60)
    if 30 < s < 90 and s % 3:
        scene.pointer_move(320 + 2.5 * (s - 30), 60 + 1.5 * (s - 30))
    if s == 90:
        scene.pointer_up(470, 150)


def _state(scene) -> str:
    return snapshot.combined(snapshot.digests(scene))


def _run(path, ring=None, upto=STEPS, start=None):
    """A straight run's state at every step, {step: combined digest}."""
    scene = start or Scene.load(path, size=SIZE, seed=5)
    if ring is not None:
        scene.tap = ring.tap
    out = {}
    while scene.frame.steps < upto:
        _input(scene, scene.frame.steps)
        scene.step(1, each=None if ring is None else ring.after_step)
        out[scene.frame.steps] = _state(scene)
    return scene, out


@pytest.mark.parametrize("path", level.shipped(), ids=lambda p: p.name)
def test_every_scrubbed_step_is_the_straight_runs_state(path):
    straight, want = _run(path)
    straight.close()
    ring = Ring(every=20)
    scene, got = _run(path, ring)
    assert got == want                               # keeping the ring changes nothing
    seen = []
    while scene.frame.steps > ring.oldest:
        step = ring.scrub(scene, 7)
        seen.append(step)
        assert _state(scene) == want[step], f"step {step}"
    assert seen[-1] == ring.oldest and len(seen) >= STEPS // 7
    scene.close()


def test_playing_on_from_a_scrubbed_step_is_the_straight_run():
    path = level.resolve("rope")
    _, want = _run(path, upto=160)
    ring = Ring(every=25)
    scene, _ = _run(path, ring, upto=150)
    assert ring.scrub(scene, 80) == 70                # back into the drag: re-simulated from step 50's state
    ring.resume(scene)
    assert ring.states[-1].steps <= 70 and all(e[0] < 70 for e in ring.events)
    _, again = _run(path, ring, upto=160, start=scene)   # the same hand from step 70 on
    assert again == {s: want[s] for s in range(71, 161)}
    assert ring.scrub(scene, 30) == 130 and _state(scene) == want[130]   # the new past is rewindable too


def test_the_ring_holds_at_most_its_budget_and_says_how_far_back():
    scene = Scene.load("cloth", size=SIZE, seed=1)
    per = snapshot.capture(scene).nbytes
    ring = Ring(budget=per * 5, seconds=10, every=30)   # room for 5 states: 2 s, not 10
    for _ in range(40):
        scene.step(30, each=ring.after_step)
    assert len(ring.states) == 5 and ring.nbytes <= ring.budget
    assert ring.seconds == pytest.approx(2.0)
    assert ring.oldest == ring.states[-1].steps - 4 * 30 and scene.frame.steps - ring.states[-1].steps < 30
    roomy = Ring(seconds=10, every=30)
    for _ in range(40):
        scene.step(30, each=roomy.after_step)
    assert roomy.seconds == pytest.approx(10.0) and len(roomy.states) == 21
    scene.close()


def test_backspace_held_rewinds_and_release_plays_on():
    ctl = Controller(Scene.load("rope", size=SIZE, seed=2), levels=[])
    hashes = {}
    for i in range(120):
        if i == 20:
            ctl.scene.pointer_down(320, 60)
        if 20 < i < 70:
            ctl.scene.pointer_move(320 + 3 * (i - 20), 60 + 2 * (i - 20))
        if i == 70:
            ctl.scene.pointer_up(470, 160)
        ctl.update(1 / 60)
        hashes[ctl.scene.frame.steps] = _state(ctl.scene)
    top = ctl.scene.frame.steps
    assert ctl.press(arcade.key.LEFT) and ctl.rewinding
    for _ in range(30):
        ctl.update(1 / 60)
        assert _state(ctl.scene) == hashes[ctl.scene.frame.steps]
    assert ctl.scene.frame.steps == top - 60 and "REWIND" in ctl.status
    assert ctl.alpha == 1.0                           # a scrubbed frame is drawn as it is
    ctl.release(arcade.key.LEFT)
    assert not ctl.rewinding and "playing on" in ctl.status
    ctl.update(1 / 60)
    assert ctl.scene.frame.steps == top - 59
    ctl.reset()                                       # another world: its past is not this one's
    ctl.update(1 / 60)
    ctl.press(arcade.key.LEFT)
    ctl.update(1 / 60)
    assert ctl.scene.frame.steps >= 0 and not any(s.steps > ctl.scene.frame.steps for s in ctl.ring.states)
    ctl.close()


def test_the_window_says_how_far_back_a_big_scene_reaches_and_refuses_one_too_big():
    ctl = Controller(Scene.load("cloth", size=SIZE, seed=1), levels=[])
    per = snapshot.capture(ctl.scene).nbytes
    ctl.ring = Ring(budget=per * 4)                  # room for 4 states: 3 × 30 steps or more apart
    ctl.scene.tap = ctl._tap
    for _ in range(200):
        ctl.update(1 / 60)
    ctl.do("rewind")
    ring = ctl.ring
    assert len(ring.states) == 4 and ring.nbytes <= ring.budget and ring.seconds == 3 * ring.every / 60 < 10
    assert ctl.rewinding and f"holds {ring.seconds:.1f} s" in ctl.status and "MiB a state, " in ctl.status
    ctl.stop_rewind()
    ctl.ring = Ring(budget=per // 2)                 # not even one state
    for _ in range(5):
        ctl.update(1 / 60)
    ctl.do("rewind")
    assert not ctl.rewinding and "no rewind: this scene's state" in ctl.status and not ctl.ring.states
    ctl.close()
