"""Snapshots restore a scene exactly: stepping on from a restored snapshot gives the same bits
as never having stopped, on every shipped level, mid-drag; bad snapshot files are refused in
one line, and the scene they were offered to runs on as it was."""
from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest

from ropework import level, snapshot
from ropework.cli import main
from ropework.components import Grab, Points
from ropework.scene import Scene
from ropework.snapshot import MAGIC, SnapshotError

SIZE = (640, 360)


def _drag(scene, steps=12):
    """A press near the top middle, a drag and a hold: a grab is on when this returns."""
    scene.pointer_move(320, 60)
    scene.step(4)
    scene.pointer_down(320, 60)
    scene.step(steps)
    scene.pointer_move(420, 160)
    scene.step(6)


def _on(scene):
    scene.pointer_move(480, 220)
    scene.step(25)
    scene.pointer_up(480, 220)
    scene.step(25)


@pytest.mark.parametrize("path", level.shipped(), ids=lambda p: p.name)
def test_restoring_mid_drag_and_stepping_on_gives_the_same_bits(path, tmp_path):
    a = Scene.load(path, size=SIZE, seed=3)
    b = Scene.load(path, size=SIZE, seed=11)      # another seed and history: all of it must be replaced
    try:
        b.step(7)
        _drag(a)
        a.snapshot(tmp_path / "x.snap")
        b.restore(tmp_path / "x.snap")
        assert snapshot.digests(b) == snapshot.digests(a)
        assert b.entities() == a.entities() and b.t == a.t and b.frame.steps == a.frame.steps
        _on(a)
        _on(b)
        assert b.state_hash() == a.state_hash()
        assert snapshot.digests(b) == snapshot.digests(a)
    finally:
        a.close()
        b.close()


def test_the_grab_and_the_random_generator_are_restored(tmp_path):
    a = Scene.load("tendrils", size=SIZE, seed=3)
    try:
        a.step(30)
        a.snapshot(tmp_path / "t.snap")
        draws = a.frame.rng.random(4)
        a.restore(tmp_path / "t.snap")
        assert np.array_equal(a.frame.rng.random(4), draws)
    finally:
        a.close()
    r = Scene.load("rope", size=SIZE)
    try:
        _drag(r)
        held = [(e, g.held) for e, g in r.find(Grab) if g.held >= 0]
        assert held, "the drag holds a point"
        r.snapshot(tmp_path / "r.snap")
        r.pointer_up(0, 0)
        r.step(3)
        r.restore(tmp_path / "r.snap")
        assert [(e, g.held) for e, g in r.find(Grab) if g.held >= 0] == held
        assert r.pointer.down
    finally:
        r.close()


def test_every_component_field_is_saved_or_declared_derived():
    """A new component is covered with no change: each field of each component on every
    shipped level is plain data a snapshot saves, or a cache declared compare=False."""
    for path in level.shipped():
        s = Scene.load(path, size=SIZE)
        try:
            s.step(2)
            for ent in s.entities():
                with s.active():
                    import esper
                    comps = [c for c in esper.components_for_entity(ent) if dataclasses.is_dataclass(c)]
                for c in comps:
                    flagged = {f.name for f in dataclasses.fields(c) if not f.compare}
                    left = set(snapshot.derived(c)) - flagged
                    assert not left, f"{path.name}: {type(c).__name__}.{sorted(left)} is neither plain data nor compare=False"
        finally:
            s.close()


def test_a_studio_structural_edit_is_in_the_snapshot_and_entity_order_kept(tmp_path):
    from ropework.studio import Studio
    a = Scene.load("rope", size=SIZE, seed=2)
    b = Scene.load("rope", size=SIZE, seed=2)
    try:
        a.step(20)
        studio = Studio(a)
        assert studio.add_rope(0, 0.3)            # rebuilds layer 0: its entities get new, higher ids
        a.step(5)
        _drag(a)
        a.snapshot(tmp_path / "e.snap")
        b.restore(tmp_path / "e.snap")
        assert b.entities() == a.entities() and b.document == a.document is not None
        assert len(b.level.layers[0]["rope"]) == len(a.level.layers[0]["rope"])
        _on(a)
        _on(b)
        assert b.state_hash() == a.state_hash()
    finally:
        a.close()
        b.close()


def test_the_file_is_a_header_and_raw_arrays_never_pickle(tmp_path):
    s = Scene.load("rope", size=SIZE)
    try:
        s.step(3)
        p = s.snapshot(tmp_path / "f.snap")
    finally:
        s.close()
    raw = p.read_bytes()
    assert raw.startswith(MAGIC) and b"pickle" not in raw and b"\x80\x04" not in raw[:len(MAGIC) + 8]
    header, arrays = snapshot.read(p)
    assert header["version"] == snapshot.VERSION and header["level"]["file"] == "rope.toml"
    assert header["level"]["sha256"] == snapshot.file_hash(level.resolve("rope"))
    pts = [c for e in header["entities"] for c in e["components"] if c["class"] == "Points"]
    assert pts and all(a.dtype.str in snapshot.DTYPES for a in arrays)


def _saved(tmp_path, name="rope"):
    s = Scene.load(name, size=SIZE)
    s.step(3)
    p = s.snapshot(tmp_path / "good.snap")
    s.close()
    return p


def _variants(tmp_path):
    good = _saved(tmp_path)
    raw = good.read_bytes()
    n = int.from_bytes(raw[len(MAGIC):len(MAGIC) + 8], "little")
    head = json.loads(raw[len(MAGIC) + 8:len(MAGIC) + 8 + n])

    def with_header(h):
        body = json.dumps(h).encode()
        pad = b"\0" * (-(len(MAGIC) + 8 + n) % snapshot.ALIGN)
        return MAGIC + len(body).to_bytes(8, "little") + body + b"\0" * (-(len(MAGIC) + 8 + len(body)) % snapshot.ALIGN) \
            + raw[len(MAGIC) + 8 + n + len(pad):]
    other_version = dict(head, version=99)
    other_level = json.loads(json.dumps(head))
    other_level["level"]["file"] = "cloth.toml"
    bad_shape = json.loads(json.dumps(head))
    bad_shape["arrays"][0]["shape"] = [10**9, 2]
    return {
        "truncated": (raw[: len(raw) // 2], "truncated"),
        "foreign": (b"GIF89a" + raw[6:], "not a ropework snapshot"),
        "corrupt header": (raw[:len(MAGIC) + 8] + b"[" + raw[len(MAGIC) + 9:], "not JSON"),
        "flipped bit": (raw[:-9] + bytes([raw[-9] ^ 1]) + raw[-8:], "checksum"),
        "another version": (with_header(other_version), "version 1, found 99"),
        "another level": (with_header(other_level), "not of 'rope.toml'"),
        "huge array": (with_header(bad_shape), "runs past the file's end"),
        "empty": (b"", "not a ropework snapshot"),
    }


@pytest.mark.parametrize("case", ["truncated", "foreign", "corrupt header", "flipped bit", "another version",
                                  "another level", "huge array", "empty"])
def test_a_bad_snapshot_is_one_line_and_the_scene_runs_on(case, tmp_path):
    data, words = _variants(tmp_path)[case]
    bad = tmp_path / "bad.snap"
    bad.write_bytes(data)
    s = Scene.load("rope", size=SIZE, seed=5)
    try:
        s.step(9)
        before = s.state_hash()
        with pytest.raises(SnapshotError) as e:
            s.restore(bad)
        assert words in str(e.value) and str(bad) in str(e.value) and "\n" not in str(e.value)
        assert s.state_hash() == before
        s.step(1)
    finally:
        s.close()


def test_a_snapshot_of_a_level_file_changed_since_is_refused(tmp_path):
    src = tmp_path / "mine.toml"
    shutil.copy(level.resolve("rope"), src)
    s = Scene.load(src, size=SIZE)
    try:
        s.step(2)
        s.snapshot(tmp_path / "m.snap")
        src.write_text(src.read_text() + "\n# an edit\n")
        with pytest.raises(SnapshotError, match="has changed since the snapshot"):
            s.restore(tmp_path / "m.snap")
    finally:
        s.close()


def test_from_snapshot_starts_a_recording_where_the_snapshot_left_off(tmp_path, capsys):
    s = Scene.load("rope", size=(320, 180))
    try:
        _drag(s)
        s.snapshot(tmp_path / "c.snap")
    finally:
        s.close()
    assert main(["--record", str(tmp_path / "o.png"), "--frames", "3", "--from", str(tmp_path / "c.snap")]) == 0
    assert (tmp_path / "o.png").exists()
    (tmp_path / "bad.snap").write_bytes(b"nonsense")
    capsys.readouterr()
    assert main(["rope", "--record", str(tmp_path / "p.png"), "--frames", "3", "--from", str(tmp_path / "bad.snap")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.snap" in err and "not a ropework snapshot" in err
    assert main(["cloth", "--record", str(tmp_path / "p.png"), "--frames", "3", "--from", str(tmp_path / "c.snap")]) == 2
    assert "not of 'cloth.toml'" in capsys.readouterr().err


def test_restored_arrays_are_writable_copies(tmp_path):
    p = _saved(tmp_path)
    s = Scene.load("rope", size=SIZE)
    try:
        s.restore(p)
        for _, pts in s.find(Points):
            assert pts.pos.flags.writeable and pts.prev.flags.writeable
        s.step(2)
    finally:
        s.close()


@pytest.mark.parametrize("path", level.shipped(), ids=lambda p: p.name)
def test_restoring_into_the_running_scene_writes_in_place_and_gives_the_same_bits(path, tmp_path):
    """L in the window: the scene that saved the snapshot, run on and taken back to it, with no rebuild."""
    a = Scene.load(path, size=SIZE, seed=3)
    try:
        _drag(a)
        a.snapshot(tmp_path / "x.snap")
        at_save = snapshot.digests(a)
        _on(a)
        after = snapshot.digests(a)
        held = a.pointer
        a.restore(tmp_path / "x.snap")
        assert a.pointer is held, "the running scene's own components took the state"
        assert snapshot.digests(a) == at_save
        _on(a)
        assert snapshot.digests(a) == after
    finally:
        a.close()
