"""The window's overlap (Controller.launch / settle): a large scene's steps and its next CPU paint run
on a worker thread while the frame is presented. The same steps see the same events (the same bits),
the picture is the one drawn without it one frame later, a change between the paint and the draw is
painted again, an exception on the worker becomes the window's one line, and a small scene never
starts the worker."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from ropework import controller
from ropework.components import Points
from ropework.controller import Controller
from ropework.render import Offscreen
from ropework.systems.services import gfx, stroke_raster
from tests import drive
from tests.systems.services.test_stroke_raster import curtain, strokes

SIZE = (480, 270)
FRAMES = 75            # past the hand's first grab (step 60): ropes dragged, not only falling


@pytest.fixture
def painted(monkeypatch):
    """Every stroke body painted on the CPU, and overlap from the smallest scene up, so a small curtain
    stands in for the 100,000-point scene; the thread each `stroke_raster.prepare` ran on, recorded."""
    monkeypatch.setattr(gfx, "STROKES", "cpu")
    monkeypatch.setattr(controller, "OVERLAP_POINTS", 1)
    threads = []
    real = stroke_raster.prepare

    def prepare(*a, **k):
        threads.append(threading.current_thread().name)
        return real(*a, **k)
    monkeypatch.setattr(stroke_raster, "prepare", prepare)
    return threads


def play(ctl, ctx, frames=FRAMES, before=None):
    """What the window does each frame, its swap aside: the hand's events (dispatched between frames),
    update, the scene drawn, launch, (the present,) settle. The pictures drawn and the state after each."""
    hand = drive.Hand(*SIZE)
    off = Offscreen(ctx, SIZE)
    pictures, hashes = [], []
    for f in range(frames):
        hand.apply(ctl.scene, f)
        ctl.update(1 / 60)
        off.render(ctl.scene)
        pictures.append(off.pixels())
        ctl.launch()
        ctl.settle()
        hashes.append(ctl.scene.state_hash())
    off.release()
    return pictures, hashes


def test_overlap_steps_the_same_bits_and_shows_each_picture_one_frame_later(gl_window, scenes, tmp_path, painted):
    lvl = curtain(tmp_path, 60, 40, 1.2)
    plain = Controller(scenes(lvl, size=SIZE, seed=1))
    ahead = Controller(scenes(lvl, size=SIZE, seed=1), overlap=True)
    try:
        pics0, hashes0 = play(plain, gl_window.ctx)
        assert "ropework-ahead" not in " ".join(painted) and plain._worker is None
        painted.clear()
        pics1, hashes1 = play(ahead, gl_window.ctx)
    finally:
        plain.close()
        ahead.close()
    assert hashes1 == hashes0                                  # every step the same, with the same input
    assert len(set(hashes0)) > FRAMES - 5                      # and the ropes did move
    for f in range(1, FRAMES):                                 # the frame shows the state before its steps
        assert np.array_equal(pics1[f], pics0[f - 1]), f
    # Only the first frame was painted on the window's thread; every later one (and the one after the
    # last) was painted ahead, on the worker.
    assert painted[0] == threading.main_thread().name
    assert set(painted[1:]) == {"ropework-ahead_0"} and len(painted) == FRAMES + 1


def test_a_change_after_the_paint_ahead_is_painted_again(gl_window, scenes, tmp_path, painted):
    ctl = Controller(scenes(curtain(tmp_path, 60, 40, 1.2), size=SIZE, seed=1), overlap=True)
    off = Offscreen(gl_window.ctx, SIZE)
    try:
        play(ctl, gl_window.ctx, frames=3)
        (_, pts), = ctl.scene.find(Points)
        pts.pos[:, 0] += 17.0                                  # moved after the worker painted them
        painted.clear()
        off.render(ctl.scene)
        moved = off.pixels()
        assert painted == [threading.main_thread().name]      # painted again, here
        for s in strokes(ctl.scene):
            s._ahead = None
        off.render(ctl.scene)
        assert np.array_equal(moved, off.pixels())             # as a draw with nothing painted ahead
    finally:
        off.release()
        ctl.close()


def test_an_exception_on_the_worker_becomes_the_windows_line(gl_window, scenes, tmp_path, painted, capsys):
    ctl = Controller(scenes(curtain(tmp_path, 60, 40, 1.2), size=SIZE, seed=1), overlap=True)
    try:
        play(ctl, gl_window.ctx, frames=2)

        def broken_paint():
            raise ValueError("no paint")
        ctl.scene.paint_ahead = broken_paint
        play(ctl, gl_window.ctx, frames=1)
        assert ctl.status == "draw failed: ValueError: no paint" and not ctl.paused

        def broken_step(n=1):
            raise RuntimeError("boom")
        ctl.scene.step = broken_step
        play(ctl, gl_window.ctx, frames=1)                     # raised on the worker, reported on this thread
        assert ctl.status == "step failed: RuntimeError: boom (paused: Space resumes, R resets)"
        assert ctl.paused and ctl._job is None
        assert not ctl.overlaps()                              # paused: no worker until Space
        assert "ropework: step failed: RuntimeError: boom" in capsys.readouterr().err
    finally:
        ctl.close()


def test_a_small_scene_starts_no_worker(gl_window, scenes):
    """Below OVERLAP_POINTS (every shipped level) the window steps and draws in turn: no thread."""
    ctl = Controller(scenes("rope.toml", size=SIZE, seed=1), overlap=True)
    before = threading.active_count()
    try:
        play(ctl, gl_window.ctx, frames=5)
        assert not ctl.overlaps() and ctl._worker is None
        assert threading.active_count() == before
    finally:
        ctl.close()
