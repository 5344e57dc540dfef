"""File names a user may give or have: every path ropework opens, creates or prints.

A name whose bytes are not UTF-8 (Linux allows any bytes but / and NUL; Python holds the
ones it cannot decode as lone surrogates) is a real file: it loads, runs, records,
snapshots, reloads and saves, and is shown with U+FFFD in its place. A name with a
component over the system's 255 bytes cannot exist: it is refused in one line, exit 2,
naming it. Names the program makes from a user's (a capture named after the level, a
temporary file beside a target) fit the 255 bytes whenever the user's own name does.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from ropework import level
from ropework.components.frame import STEP
from ropework.controller import Controller
from ropework.reload import LevelWatcher
from ropework.scene import Scene
from ropework.schema import LevelError
from ropework.studio import Studio
from ropework.systems.services import kernels
from tests.conftest import LEVELS, ROOT

BAD = os.fsdecode(b"bad\xffname")         # a name that is not UTF-8, as Python holds it
LONG = "n" * 300                          # a component the system refuses (its limit is 255 bytes)
NAME_MAX = 255


def run(*args):
    env = dict(os.environ, ARCADE_HEADLESS="1")
    return subprocess.run([sys.executable, "-m", "ropework", *args], capture_output=True, cwd=ROOT, timeout=300,
                          env=env)


def one_line(r, naming: str) -> str:
    err = r.stderr.decode("utf-8", "strict").strip()      # what is printed is UTF-8 whatever the names
    assert r.returncode == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert naming in err, err
    return err


def shown(text: str) -> bool:
    """The text encodes as UTF-8 (no lone surrogate reached it) and shows the replaced byte."""
    text.encode("utf-8")
    return "\ufffd" in text


@pytest.fixture
def bad_level(tmp_path) -> Path:
    path = tmp_path / f"{BAD}.toml"
    shutil.copy(LEVELS / "rope.toml", path)
    return path


# ── the command line ─────────────────────────────────────────────────────────
def test_a_level_whose_name_is_not_utf8_runs_through_every_command(bad_level, tmp_path):
    out, log = tmp_path / f"{BAD}-out.png", tmp_path / f"{BAD}.hashes"
    r = run("validate", str(bad_level))
    assert r.returncode == 0 and r.stdout.decode("utf-8").strip() == f"{tmp_path}/bad\ufffdname.toml: OK"
    r = run(str(bad_level), "--record", str(out), "--frames", "3", "--hash-every", "1", "--hash-log", str(log))
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")
    assert shown(r.stdout.decode("utf-8")) and Image.open(out).size == (1280, 720) and log.stat().st_size > 0
    r = run("replay", "-", str(bad_level), "--against", str(log))
    assert r.returncode == 0, r.stdout.decode("utf-8", "replace")
    r = run("frame", str(bad_level))
    assert r.returncode == 0 and "relax" in r.stdout.decode("utf-8")
    snap = tmp_path / f"{BAD}.snap"
    scene = Scene.load(bad_level, size=(320, 180))
    try:
        scene.step(5)
        scene.snapshot(snap)
    finally:
        scene.close()
    r = run("--from", str(snap), "--record", str(tmp_path / "from.png"), "--frames", "2")
    assert r.returncode == 0, r.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("what", ["validate", "frame", "LEVEL", "--record", "--hash-log", "--input", "--from"])
def test_a_name_too_long_for_the_system_is_one_line(tmp_path, what):
    long = str(tmp_path / f"{LONG}.x")
    ok_out = str(tmp_path / "out.png")
    args = {"validate": ["validate", long], "frame": ["frame", long],
            "LEVEL": [long, "--record", ok_out],
            "--record": ["rope", "--record", long + ".png"],
            "--hash-log": ["rope", "--record", ok_out, "--hash-every", "1", "--hash-log", long],
            "--input": ["rope", "--record", ok_out, "--input", long],
            "--from": ["rope", "--record", ok_out, "--from", long]}[what]
    r = run(*args)
    if what == "validate":          # validate says it on stdout, one line a file, and exits 2
        assert r.returncode == 2 and r.stdout.decode().count("\n") == 1 and LONG in r.stdout.decode()
        assert "File name too long" in r.stdout.decode() and not r.stderr
    else:
        assert "File name too long" in one_line(r, LONG)
    assert not Path(ok_out).exists()                       # refused before any work


def test_a_hash_log_that_cannot_be_written_is_named_before_the_run(tmp_path):
    (tmp_path / "file").write_text("x")
    out = tmp_path / "out.png"
    r = run("rope", "--record", str(out), "--frames", "2", "--hash-every", "1", "--hash-log", str(tmp_path / "file" / "h"))
    one_line(r, f"{tmp_path}/file/h: cannot write here")
    assert not out.exists()


# ── the library: loading, the kernel cache, snapshots ────────────────────────
def test_resolve_and_load_refuse_a_name_too_long_as_a_level_error(tmp_path):
    path = level.resolve(str(tmp_path / f"{LONG}.toml"))
    with pytest.raises(LevelError, match="File name too long"):
        level.load(path)


def test_the_title_and_the_kernel_key_of_a_name_that_is_not_utf8(bad_level, tmp_path, monkeypatch):
    untitled = tmp_path / f"{BAD}-untitled.toml"
    untitled.write_text('[[layer]]\nkind = "dotgrid"\n')
    assert level.load(untitled).title == "bad\ufffdname-untitled"   # the window's caption and banner show this
    lv = level.load(bad_level)
    from ropework.compile.warming import kernel_key
    key, mods = kernel_key(lv, imported=False)
    assert BAD in key
    monkeypatch.setattr(kernels, "_where", [str(tmp_path / "cache")])
    assert kernels.stamped(key) is None
    kernels.remember(key, mods, {}, ["a.b"])
    assert kernels.stamped(key)[0] == "a.b"
    assert kernels.cold(key, mods) == []


@pytest.mark.parametrize("stem", [BAD, "s" * 250])
def test_a_snapshot_saves_and_restores_under_any_name_the_system_takes(bad_level, tmp_path, stem):
    scene = Scene.load(bad_level, size=(320, 180))
    try:
        scene.step(3)
        snap = scene.snapshot(tmp_path / f"{stem}.snap")
        scene.step(3)
        scene.restore(snap)
        assert scene.frame.steps == 3
    finally:
        scene.close()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# ── the window: K and S, hot reload, the studio's save ───────────────────────
@pytest.mark.parametrize("stem", [BAD, "l" * 250, BAD + "é" * 60])
def test_k_and_s_save_beside_a_level_of_any_name(tmp_path, stem):
    path = tmp_path / "levels" / f"{stem}.toml"
    path.parent.mkdir()
    shutil.copy(LEVELS / "rope.toml", path)
    out = tmp_path / "out"
    out.mkdir()
    ctl = Controller(Scene.load(path, size=(320, 180)), out_dir=out)
    try:
        ctl.do("snapshot")
        assert ctl.status.startswith("snapshot ropework-") and ctl.status.encode("utf-8")
        ctl.do("screenshot")
        ctl.update(STEP)
        ctl.frame(STEP, lambda: Image.new("RGB", (64, 48)))
        assert ctl.status.startswith("saved ") and ctl.status.encode("utf-8")
        names = sorted(os.listdir(os.fsencode(out)))
        assert [n[-4:] for n in names] == [b".png", b"snap"] and all(len(n) <= NAME_MAX for n in names)
        ctl.do("restore")
        assert ctl.status.startswith("back to ropework-")
        assert ctl.banner.encode("utf-8") is not None
    finally:
        ctl.finish()


def test_hot_reload_of_a_level_whose_name_is_not_utf8(bad_level):
    scene = Scene.load(bad_level, size=(320, 180))
    new = None
    try:
        w = LevelWatcher(bad_level, interval=0.0)
        bad_level.write_text("[[layer]]\nkind = 'nope'\n")
        os.utime(bad_level, ns=(1, 1))
        assert w.poll(scene) is None and shown(w.error)
        shutil.copy(LEVELS / "rope.toml", bad_level)
        os.utime(bad_level, ns=(2, 2))
        new = w.poll(scene)
        assert new is not None and w.error is None
    finally:
        scene.close()
        if new is not None:
            new.close()


def test_the_studio_saves_under_a_name_that_is_not_utf8_and_refuses_one_too_long(bad_level, tmp_path):
    st = Studio(Scene.load(bad_level, size=(320, 180)))
    try:
        saved = st.save(tmp_path / f"{BAD}-2.toml")
        assert saved.name == f"{BAD}-2.toml" and level.load(saved).layers
        long_ok = st.save(tmp_path / ("t" * 250 + ".toml"))          # its temporary file fits beside it
        assert long_ok.exists()
        with pytest.raises(LevelError) as e:
            st.save(tmp_path / f"{LONG}.toml")
        assert "File name too long" in str(e.value) and len(str(e.value).splitlines()) == 1
    finally:
        st.scene.close()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
