"""Output files that cannot be written: one line, exit 2, checked before any work, never a
partial file; in the window, a message and the scene plays on.

Through the command line (a subprocess, as a user runs it) and through the window's
Controller (S and G), for every way a target can fail: an existing folder, a parent that
is a file, a folder nobody may write (/proc and /sys refuse even root), a name too long,
a FIFO, a loop of links, an empty name, a disk that fills mid-write (RLIMIT_FSIZE makes
the child's writes fail with EFBIG, as a full disk fails with ENOSPC).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest
from PIL import Image

from ropework import record as rec
from ropework.controller import Controller
from ropework.record import OutputError
from tests.conftest import ROOT


def run(*args, cwd=ROOT, env=None, preexec_fn=None):
    e = dict(os.environ, ARCADE_HEADLESS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "ropework", *args], capture_output=True, cwd=cwd, timeout=300,
                          env=e, preexec_fn=preexec_fn)


def one_line(r) -> str:
    err = r.stderr.decode("utf-8", "replace").strip()
    assert r.returncode == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


def targets(tmp_path) -> dict[str, str]:
    """Name → a --record target that cannot be written."""
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo.png")
    os.symlink(tmp_path / "loop-b.png", tmp_path / "loop-a.png")
    os.symlink(tmp_path / "loop-a.png", tmp_path / "loop-b.png")
    return {
        "an existing folder": str(tmp_path / "folder.png"),
        "a parent that is a file": str(tmp_path / "file" / "out.png"),
        "an unwritable folder (/proc)": "/proc/self/out.png",
        "a read-only file system (/sys)": "/sys/out.gif",
        "a name too long": str(tmp_path / ("n" * 300 + ".png")),
        "a FIFO": str(tmp_path / "fifo.png"),
        "a loop of links": str(tmp_path / "loop-a.png"),
    }


EXPECT = {
    "an existing folder": "expected a file to write, found a folder",
    "a parent that is a file": "Not a directory",
    "an unwritable folder (/proc)": "cannot write here",
    "a read-only file system (/sys)": "cannot write here",
    "a name too long": "File name too long",
    "a FIFO": "found not a regular file",
    "a loop of links": "Too many levels of symbolic links",
}


def test_every_unwritable_target_is_one_line_and_exit_2(tmp_path):
    for what, target in targets(tmp_path).items():
        err = one_line(run("rope", "--record", target, "--frames", "2", "--size", "64x64"))
        assert err.startswith("ropework: error: ") and EXPECT[what] in err, (what, err)


def test_the_target_is_checked_before_the_level_is_even_read(tmp_path):
    """record() refuses the target first: the level named does not exist, yet the error is the target's."""
    with pytest.raises(OutputError, match="found a folder"):
        rec.record(tmp_path / "no-such-level.toml", targets(tmp_path)["an existing folder"], 100_000)


def test_empty_names_are_refused(tmp_path):
    assert "--record: expected a file name, found an empty one" in one_line(run("rope", "--record", ""))
    assert "LEVEL: expected a file name" in one_line(run("", "--record", str(tmp_path / "x.png")))
    assert "--input: expected a file name" in one_line(run("rope", "--record", str(tmp_path / "x.png"),
                                                          "--input", ""))
    assert not (tmp_path / "x.png").exists()
    r = run("validate", "")
    assert r.returncode == 2 and len(r.stdout.decode().strip().splitlines()) == 1


def _fill_at(limit: int):
    def preexec():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))   # writes past `limit` bytes fail (EFBIG)
    return preexec


@pytest.mark.parametrize("suffix", [".png", ".gif"])
def test_a_disk_that_fills_mid_write_leaves_the_old_file_and_no_partial_one(tmp_path, suffix):
    out = tmp_path / f"out{suffix}"
    out.write_bytes(b"the previous recording")
    err = one_line(run("dotgrid", "--record", str(out), "--frames", "3", "--size", "640x360",
                       preexec_fn=_fill_at(512)))
    assert str(out) in err and "could not write" in err and "File too large" in err
    assert out.read_bytes() == b"the previous recording"          # atomic: the old file is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]   # and no temporary file is left


def test_a_good_recording_replaces_the_old_file_and_leaves_nothing_else(tmp_path):
    out = tmp_path / "new" / "folder" / "out.png"                    # missing folders are made
    assert run("rope", "--record", str(out), "--frames", "2", "--size", "64x48").returncode == 0
    assert Image.open(out).size == (64, 48)
    assert (out.stat().st_mode & 0o777) == 0o666 & ~_umask()          # as a file written directly
    assert [p.name for p in out.parent.iterdir()] == ["out.png"]


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


@pytest.mark.parametrize("fps,frames,want_ms", [(25, 1, 40), (5, 11, 200), (5, 12, 200)])
def test_fewer_steps_than_one_gif_frame_still_make_a_gif(tmp_path, fps, frames, want_ms):
    """--fps 25 --frames 1 and --fps 5 --frames 11 raised IndexError: the last step is the one frame."""
    out = tmp_path / "short.gif"
    r = run("rope", "--record", str(out), "--fps", str(fps), "--frames", str(frames), "--size", "64x48")
    assert r.returncode == 0, r.stderr
    im = Image.open(out)
    assert im.n_frames == 1 and im.info["duration"] == want_ms


def test_non_utf8_names_print_on_a_strict_ascii_terminal(tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9-\xff.png"                  # not UTF-8, not ASCII
    env = {"PYTHONIOENCODING": "ascii:strict"}
    r = subprocess.run([sys.executable, "-m", "ropework", "rope", "--record", name, "--frames", "1",
                        "--size", "32x32"], capture_output=True, cwd=ROOT, timeout=300,
                       env=dict(os.environ, ARCADE_HEADLESS="1", **env))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"wrote ") and b"Traceback" not in r.stderr
    assert os.path.exists(name)
    bad = os.fsencode(tmp_path) + b"/\xff.toml"
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", bad], capture_output=True, cwd=ROOT,
                       timeout=300, env=dict(os.environ, **env))
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 1 and b"no such level file" in r.stdout


# ── the window: S and G through the Controller ──────────────────────────────
UNWRITABLE = ["/proc/self", "file-as-folder"]


@pytest.fixture(params=UNWRITABLE)
def bad_dir(request, tmp_path):
    if request.param == "file-as-folder":
        (tmp_path / "f").write_text("x")
        return tmp_path / "f"
    return request.param


def frames(ctl, n=3):
    from ropework.components.frame import STEP
    for _ in range(n):
        ctl.update(STEP)
        ctl.frame(STEP, lambda: Image.new("RGB", (64, 48), (10, 20, 30)))


def test_s_into_an_unwritable_folder_shows_a_message_and_plays_on(scenes, bad_dir, capsys):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=bad_dir)
    try:
        t0 = ctl.scene.t
        ctl.do("screenshot")
        frames(ctl)
        assert ctl.status.startswith("could not save the screenshot: ") and str(bad_dir) in ctl.status
        assert len(ctl.status.splitlines()) == 1
        assert "could not save the screenshot" in capsys.readouterr().err
        frames(ctl, 10)
        assert ctl.scene.t > t0 and not ctl.paused                 # still playing
    finally:
        ctl.finish()


def test_g_into_an_unwritable_folder_shows_a_message(scenes, bad_dir):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=bad_dir)
    try:
        ctl.do("record")
        frames(ctl, 5)
        ctl.do("record")                                         # stop: saved in the background
        ctl.finish()
        assert ctl.status.startswith("could not save the recording: ") and str(bad_dir) in ctl.status
    finally:
        ctl.finish()


def test_s_into_a_good_folder_still_saves(scenes, tmp_path):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=tmp_path)
    try:
        ctl.do("screenshot")
        frames(ctl, 1)
        (shot,) = tmp_path.glob("ropework-rope-*.png")
        assert Image.open(shot).size == (64, 48) and ctl.status == f"saved {shot}"
    finally:
        ctl.finish()


def test_no_file_is_left_half_written_when_the_window_save_fails(scenes, tmp_path):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=tmp_path)
    try:
        ctl.do("screenshot")

        def broken_grab():
            raise OSError(28, "No space left on device")          # what a full disk makes a write raise
        ctl.frame(1 / 60, broken_grab)
        assert "No space left on device" in ctl.status
        assert list(tmp_path.iterdir()) == []
    finally:
        ctl.finish()


