"""The headless API, the input-script reader and the window's controller under misuse:
sizes past any screen, calls after close(), scripts that are not plain files, broken card
PNGs, and exceptions from a level, a reload or a step — each one clear line, and a window
that keeps its last good scene.
"""
from __future__ import annotations

import math
import os
import struct
import zlib

import esper
import numpy as np
import pytest
from PIL import Image

from ropework import kinds, level, script
from ropework.components import Points
from ropework.components.frame import STEP
from ropework.controller import Controller
from ropework.kinds import Kind
from ropework.reload import LevelWatcher
from ropework.scene import MAX_SIZE, Scene, SceneClosed
from ropework.schema import LevelError, table
from tests.conftest import LEVELS


def finite(scene) -> bool:
    return all(np.isfinite(a).all() for comps in scene.arrays().values() for f in comps.values() for a in f.values()
               if a.dtype.kind == "f")


# ── Scene.resize and close ───────────────────────────────────────────────────
@pytest.mark.parametrize("size", [math.inf, 1e30, 4e38, 1e7])
def test_resize_cuts_sizes_past_any_screen(scenes, size):
    scene = scenes("rope.toml", size=(320, 180))
    scene.resize(size, size)
    assert (scene.width, scene.height) == (MAX_SIZE, MAX_SIZE)
    scene.pointer_move(100, 100)
    scene.step(30)
    assert finite(scene) and scene.point_count > 0


def test_resize_ignores_nan_and_floors_at_one_pixel(scenes):
    scene = scenes("rope.toml", size=(320, 180))
    scene.resize(math.nan, -5)
    assert (scene.width, scene.height) == (320.0, 1.0)
    scene.step(5)
    assert finite(scene)


def test_a_new_scene_cuts_its_size_too():
    scene = Scene.load(LEVELS / "dotgrid.toml", size=(math.inf, 1e30))
    try:
        assert (scene.width, scene.height) == (MAX_SIZE, MAX_SIZE)
    finally:
        scene.close()


def test_every_call_after_close_raises_one_clear_error():
    scene = Scene.load(LEVELS / "rope.toml", size=(320, 180))
    scene.close()
    scene.close()                                           # closing twice is fine
    worlds = set(esper.list_worlds())
    for call in (lambda: scene.step(), lambda: scene.pointer_move(1, 2), lambda: scene.pointer_down(1, 2),
                 lambda: scene.pointer_up(1, 2), scene.pointer_leave, scene.reset, lambda: scene.resize(10, 10),
                 scene.arrays, scene.state_hash, lambda: scene.find(Points)):
        with pytest.raises(SceneClosed, match=r"^the scene of rope.toml is closed; open another with Scene.load"):
            call()
    assert set(esper.list_worlds()) == worlds               # nothing was re-created and leaked


# ── input scripts ────────────────────────────────────────────────────────────
def test_form_feed_and_line_separators_in_comments_keep_line_numbers(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("# a\x0cb\u2028c\x1c\x85 comment\n0 move 1 2\n1 jump 3 4\n", "utf-8")
    with pytest.raises(LevelError) as e:
        script.parse(path)
    assert str(e.value) == f"{path}:3: expected an event among move, down, up, leave, found 'jump'"


def test_crlf_scripts_read_as_lf(tmp_path):
    path = tmp_path / "in.txt"
    path.write_bytes(b"0 move 1 2\r\n1 down 1 2\r\n")
    s = script.parse(path)
    assert s.get(0) == [("move", 1.0, 2.0)] and s.get(1) == [("down", 1.0, 2.0)]


def test_a_long_token_is_cut_in_the_message(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("0 " + "x" * 20_000 + " 1 2\n", "utf-8")
    with pytest.raises(LevelError) as e:
        script.parse(path)
    assert len(str(e.value)) < len(str(path)) + 150 and str(e.value).endswith("…")


def test_scripts_that_are_not_plain_files_are_one_line(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    cases = {
        tmp_path / "fifo": "found a FIFO, socket or device",
        tmp_path: "found a folder",
        tmp_path / ("n" * 300): "File name too long",
        tmp_path / "missing.txt": "no such input script",
        "": "found an empty one",
    }
    for path, want in cases.items():
        with pytest.raises(LevelError) as e:
            script.parse(path)
        assert want in str(e.value) and len(str(e.value).splitlines()) == 1, (path, e.value)


def test_a_proc_file_is_read_as_text_and_refused_for_what_it_says():
    with pytest.raises(LevelError, match=r"^/proc/self/status:1: expected an event"):
        script.parse("/proc/self/status")        # st_size 0, yet it has text: read up to the cap, then parsed


def test_ranges_are_computed_per_frame_in_file_order(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("3 down 5 5\n0-1000000 move 0 0 1000000 2000000\n3 up 6 6\n", "utf-8")
    s = script.parse(path)
    assert len(s.entries) == 3 and s.last == 1_000_000
    assert s.get(3) == [("down", 5.0, 5.0), ("move", 3.0, 6.0), ("up", 6.0, 6.0)]
    assert s.get(999_999) == [("move", 999_999.0, 1_999_998.0)]
    assert s.get(2) == [("move", 2.0, 4.0)]                # asked out of order: still right
    assert s.get(1_000_001) == ()


# ── card PNGs: decoded fully at load ────────────────────────────────────────
def _chunks(data: bytes):
    i, out = 8, []
    while i < len(data):
        n = struct.unpack(">I", data[i:i + 4])[0]
        out.append((data[i + 4:i + 8], data[i + 8:i + 8 + n]))
        i += 12 + n
    return out


def _png(chunks) -> bytes:
    body = b"".join(struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d)) for t, d in chunks)
    return b"\x89PNG\r\n\x1a\n" + body


def broken_pngs(tmp_path) -> dict[str, str]:
    """A good PNG and three that pass Image.verify() yet fail when decoded."""
    Image.new("RGB", (64, 48), (200, 10, 10)).save(tmp_path / "good.png")
    ch = _chunks((tmp_path / "good.png").read_bytes())
    variants = {
        "no-idat": [c for c in ch if c[0] != b"IDAT"],
        "corrupt-idat": [(t, b"\x78\x9c" + bytes(range(200)) if t == b"IDAT" else d) for t, d in ch],
        "truncated-idat": [(t, d[:len(d) // 2] if t == b"IDAT" else d) for t, d in ch],
    }
    for name, c in variants.items():
        (tmp_path / f"{name}.png").write_bytes(_png(c))
    return {name: f"{name}.png" for name in variants}


def card_level(path, image: str) -> None:
    path.write_text(f'[[layer]]\nkind = "lanyard"\ncard_image = "{image}"\n', "utf-8")


def test_broken_card_pngs_are_one_line_level_errors_at_load(tmp_path):
    for name, image in broken_pngs(tmp_path).items():
        path = tmp_path / f"{name}.toml"
        card_level(path, image)
        with pytest.raises(LevelError) as e:
            level.load(path)
        msg = str(e.value)
        assert msg.startswith(f"{path}: layer[0].card_image: expected a PNG file inside ") and "does not decode" in msg
        assert len(msg.splitlines()) == 1, msg


def test_a_card_png_is_decoded_once_until_the_file_changes(tmp_path, monkeypatch):
    """The studio validates the level at every edit: a picture that decoded whole is not decoded
    again — until the file is rewritten, when a broken one is refused as at first."""
    from ropework.kinds import lanyard as lanyard_kind
    bad = broken_pngs(tmp_path)
    path = tmp_path / "card.toml"
    card_level(path, "good.png")
    loads = []
    real = Image.Image.load
    monkeypatch.setattr(Image.Image, "load", lambda self: (loads.append(1), real(self))[1])
    level.load(path)
    first = len(loads)
    level.load(path)
    level.load(path)
    assert first > 0 and len(loads) == first
    (tmp_path / "good.png").write_bytes((tmp_path / bad["truncated-idat"]).read_bytes())
    with pytest.raises(LevelError, match="does not decode as a PNG"):
        level.load(path)
    assert len(lanyard_kind._DECODED) <= lanyard_kind.MAX_DECODED


def test_broken_card_pngs_through_validate(tmp_path, capsys):
    from ropework.cli import validate
    paths = []
    for name, image in broken_pngs(tmp_path).items():
        paths.append(tmp_path / f"{name}.toml")
        card_level(paths[-1], image)
    assert validate([str(p) for p in paths]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all("does not decode as a PNG" in line for line in lines)


def test_a_hot_reload_to_a_broken_card_keeps_the_scene(tmp_path, gl_window):
    from ropework.render import Offscreen
    images = broken_pngs(tmp_path)
    path = tmp_path / "card.toml"
    card_level(path, "good.png")
    ctl = Controller(Scene.load(path, size=(160, 90)), out_dir=tmp_path)
    try:
        for image in images.values():
            world = ctl.scene.world
            card_level(path, image)
            os.utime(path, ns=(os.stat(path).st_mtime_ns + 10**9,) * 2)
            ctl.watcher.poll(ctl.scene)
            ctl.update(1.0)
            assert ctl.scene.world == world and "does not decode as a PNG" in ctl.error
            Offscreen(gl_window.ctx, (160, 90)).render(ctl.scene)          # the kept scene still draws
    finally:
        ctl.close()


# ── exceptions from a level, a reload, a step: the window keeps its scene ────
def _explode(cfg, layer, frame):
    raise RuntimeError("the kind could not spawn\nsecond line")


@pytest.fixture
def exploding_kind():
    """A plugin kind whose spawn raises: the way a buggy third-party kind fails."""
    kinds.load_builtin()
    kinds.kind(Kind("exploding", "raises in spawn (test)", table(), _explode))
    yield "exploding"
    kinds.KINDS.pop("exploding", None)


def test_opening_a_level_that_raises_keeps_the_scene(scenes, tmp_path, exploding_kind):
    path = tmp_path / "boom.toml"
    path.write_text('[[layer]]\nkind = "exploding"\n', "utf-8")
    ctl = Controller(scenes("rope.toml", size=(320, 180)), levels=[LEVELS / "rope.toml", path], out_dir=tmp_path)
    worlds = set(esper.list_worlds())
    assert ctl.open(path) is False
    assert ctl.scene.level.path.name == "rope.toml" and set(esper.list_worlds()) == worlds   # no half-built world
    assert ctl.status == f"{path}: could not open the level: RuntimeError: the kind could not spawn"
    ctl.press(__import__("arcade").key.N)                  # the key to the broken level: the same, no exception
    assert ctl.scene.level.path.name == "rope.toml"


def test_a_reload_that_raises_anything_keeps_the_scene(tmp_path, exploding_kind):
    path = tmp_path / "mine.toml"
    path.write_text((LEVELS / "rope.toml").read_text("utf-8"), "utf-8")
    scene = Scene.load(path, size=(320, 180))
    watcher = LevelWatcher(path)
    try:
        path.write_text('[[layer]]\nkind = "exploding"\n', "utf-8")
        os.utime(path, ns=(os.stat(path).st_mtime_ns + 10**9,) * 2)
        assert watcher.poll(scene) is None
        assert watcher.error == f"{path}: could not build the scene: RuntimeError: the kind could not spawn"
        scene.step(3)
    finally:
        scene.close()


def test_a_step_that_raises_pauses_with_a_message(scenes, tmp_path):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=tmp_path)
    ctl.scene.close()                                       # the scene now raises SceneClosed on every step
    assert ctl.update(STEP * 3) == 0                        # no exception reaches the window
    assert ctl.paused and ctl.status.startswith("step failed: SceneClosed: the scene of rope.toml is closed")
    assert ctl.update(STEP * 3) == 0                        # paused: it does not fail again every frame


def test_guard_turns_any_exception_into_one_line(scenes, tmp_path, capsys):
    ctl = Controller(scenes("rope.toml", size=(320, 180)), out_dir=tmp_path)
    for _ in range(3):                                       # a draw failing every frame prints once
        assert ctl.guard("draw", lambda: 1 / 0) is None
    assert ctl.status == "draw failed: ZeroDivisionError: division by zero" and not ctl.paused
    assert capsys.readouterr().err == "ropework: draw failed: ZeroDivisionError: division by zero\n"
