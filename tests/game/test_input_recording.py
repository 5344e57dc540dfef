"""Live input recording (I): the window's own pointer and key handlers drive the controller; the
script it writes, played headless by ``--record --from --input``, gives the same state step for
step (its hash log matches the window's digests) and the same last frame."""
from __future__ import annotations

import json

import arcade
import numpy as np
import pytest
from PIL import Image

from ropework import script, snapshot
from ropework.cli import main
from ropework.controller import Controller
from tests.game.handlers import Handlers

SIZE = (640, 360)
DT = 1 / 60


def _play(win, ctl, digests):
    """A person's minute: idle, press on a rope, drag in arcs (several events a frame, some frames
    none), release, leave; a snapshot of every step's state in ``digests``."""
    start = ctl.input.start

    def frame(n=1):
        for _ in range(n):
            ctl.update(DT)                      # the window's clock: 0, 1 or 2 steps a frame
            digests[ctl.scene.frame.steps - start] = snapshot.digests(ctl.scene)
    frame(10)
    win.on_mouse_motion(300, 300, 0, 0)
    frame(3)
    win.on_mouse_press(320, 300, arcade.MOUSE_BUTTON_LEFT, 0)
    for i in range(40):
        a = i / 7.0
        win.on_mouse_drag(320 + 150 * np.sin(a), 250 + 60 * np.cos(a) + 0.25, 1, 1, arcade.MOUSE_BUTTON_LEFT, 0)
        if i % 3 == 0:
            win.on_mouse_drag(330 + 150 * np.sin(a), 255 + 60 * np.cos(a), 1, 1, arcade.MOUSE_BUTTON_LEFT, 0)
        frame(1 + (i % 4 == 0))
    win.on_mouse_release(420, 240, arcade.MOUSE_BUTTON_LEFT, 0)
    frame(20)
    win.on_mouse_leave(0, 0)
    frame(15)


def test_a_window_recording_replays_headless_step_for_step(scenes, tmp_path, gl_window, capsys):
    s = scenes("rope.toml", size=SIZE, seed=4)
    s.step(33)                                       # recording starts mid-run: the snapshot takes it from there
    ctl = Controller(s, out_dir=tmp_path)
    win = Handlers(ctl, SIZE)
    win.on_key_press(arcade.key.I, 0)
    assert ctl.input is not None and ctl.status.startswith("● INPUT")
    digests: dict[int, dict] = {}            # steps since the recording began → the state then
    _play(win, ctl, digests)
    win.on_key_press(arcade.key.I, 0)
    assert ctl.input is None
    txt = next(tmp_path.glob("*-input.txt"))
    snap = next(tmp_path.glob("*-input.snap"))
    assert f"--from {snap}" in txt.read_text() and script.parse(txt).last > 0
    frames = max(digests)
    assert ctl.input_frames == frames and len(digests) > frames * 0.9

    out = tmp_path / "replay.png"
    assert main(["--record", str(out), "--from", str(snap), "--input", str(txt), "--frames", str(frames),
                 "--hash-every", "1"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "replay.hashes").read_text().splitlines()[1:]]
    assert len(rows) == frames
    for step, mine in digests.items():
        if step:
            assert rows[step - 1]["fields"] == mine, f"step {step} differs"

    from ropework.render import Offscreen  # and the last frame is the window's
    off = Offscreen(gl_window.ctx, SIZE)
    try:
        off.render(s)
        assert np.array_equal(np.asarray(Image.open(out).convert("RGB")), np.asarray(off.rgb()))
    finally:
        off.release()


def test_the_recording_stops_on_a_reset_and_says_where_it_went(scenes, tmp_path):
    s = scenes("rope.toml", size=SIZE)
    ctl = Controller(s, out_dir=tmp_path)
    ctl.do("input")
    s.pointer_move(10, 10)
    ctl.update(DT)
    ctl.do("reset")
    assert ctl.input is None
    assert "saved" in ctl.status and next(tmp_path.glob("*-input.txt")).read_text().count("move") == 1


@pytest.mark.parametrize("action", ["snapshot", "restore"])
def test_k_and_l_keep_the_scene_running_and_say_so(scenes, tmp_path, action):
    s = scenes("rope.toml", size=SIZE)
    ctl = Controller(s, out_dir=tmp_path)
    if action == "restore":
        ctl.do("restore")
        assert "no snapshot yet" in ctl.status
        bad = tmp_path / "bad.snap"
        bad.write_bytes(b"junk")
        ctl.restore_snapshot(bad)
        assert "not a ropework snapshot" in ctl.status and ctl.scene is s
        ctl.update(DT)
        return
    s.step(10)
    ctl.do("snapshot")
    saved = s.state_hash()
    assert ctl.last_snapshot.exists() and "L goes back" in ctl.status
    s.step(30)
    ctl.do("restore")
    assert s.state_hash() == saved
