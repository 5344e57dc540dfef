"""Hot reload: a good save replaces the scene; a bad one keeps it and shows the error until fixed."""
import os

import esper
import pytest

from ropework.components import Ropes
from ropework.controller import Controller
from ropework.reload import POLL_INTERVAL, LevelWatcher
from ropework.scene import Scene
from tests.conftest import LEVELS

ROPE = (LEVELS / "rope.toml").read_text("utf-8")
_stamp = [1_700_000_000_000_000_000]


def save(path, text):
    """Write like an editor, with a modification time that always moves on (coarse clocks tie)."""
    path.write_text(text, "utf-8")
    _stamp[0] += 1_000_000_000
    os.utime(path, ns=(_stamp[0], _stamp[0]))


@pytest.fixture
def level_file(tmp_path):
    path = tmp_path / "mine.toml"
    save(path, ROPE)
    return path


def ropes_in(scene):
    (_, ropes), = scene.find(Ropes)
    return len(ropes.count)


def test_unchanged_file_is_not_reloaded(level_file):
    scene = Scene.load(level_file, size=(400, 300))
    try:
        watcher = LevelWatcher(level_file)
        assert watcher.poll(scene) is None and watcher.error is None
    finally:
        scene.close()


def test_a_good_edit_reloads_within_half_a_second(level_file, tmp_path):
    ctl = Controller(Scene.load(level_file, size=(400, 300)), out_dir=tmp_path)
    try:
        old_world, rev = ctl.scene.world, ctl.revision
        assert ropes_in(ctl.scene) == 3
        save(level_file, ROPE + '\n[[layer.rope]]\nanchor = 0.95\npoints = 9\ncolour = "#ffffff"\n')
        t = 0.0
        while ctl.revision == rev and t < 0.5:
            ctl.update(1 / 60)
            t += 1 / 60
        assert ctl.revision == rev + 1 and t <= 0.5 and t >= POLL_INTERVAL - 1 / 60
        assert ropes_in(ctl.scene) == 4 and (ctl.scene.width, ctl.scene.height) == (400, 300)
        assert old_world not in esper.list_worlds()
        assert ctl.banner == "reloaded mine.toml" and ctl.error == ""
    finally:
        ctl.close()


def test_a_bad_edit_keeps_the_scene_and_shows_the_error_until_fixed(level_file, tmp_path):
    ctl = Controller(Scene.load(level_file, size=(400, 300)), out_dir=tmp_path)
    try:
        scene = ctl.scene
        save(level_file, ROPE.replace("passes = 14", "passes = fourteen"))
        ctl.update(POLL_INTERVAL)
        assert ctl.scene is scene and ctl.error.startswith(str(level_file))
        assert "TOML" in ctl.error and "\n" not in ctl.error
        ctl.update(1 / 60)
        assert ctl.scene.frame.steps > 0                     # still running
        ctl.update(POLL_INTERVAL * 3)
        assert ctl.error                                     # shown until fixed ...
        save(level_file, ROPE.replace("passes = 14", "passes = 999"))
        ctl.update(POLL_INTERVAL)
        assert ctl.scene is scene and "layer[0].passes" in ctl.error    # ... a new mistake replaces it
        save(level_file, ROPE.replace("passes = 14", "passes = 20"))
        ctl.update(POLL_INTERVAL)
        assert ctl.scene is not scene and ctl.error == ""
        assert ctl.scene.level.layers[0]["passes"] == 20
    finally:
        ctl.close()


def test_a_deleted_file_is_an_error_and_saving_it_again_reloads(level_file):
    scene = Scene.load(level_file, size=(400, 300))
    watcher = LevelWatcher(level_file)
    try:
        level_file.unlink()
        assert watcher.poll(scene) is None and "no such level file" in watcher.error
        save(level_file, ROPE)
        new = watcher.poll(scene)
        assert new is not None and watcher.error is None
        new.close()
    finally:
        scene.close()


def test_reload_keeps_the_players_theme_motion_and_seed(level_file):
    opened = [Scene.load(level_file, size=(400, 300), seed=42)]
    watcher = LevelWatcher(level_file)
    try:
        opened[0].toggle_theme()
        opened[0].toggle_reduced_motion()
        save(level_file, ROPE.replace("passes = 14", "passes = 15"))
        opened.append(watcher.poll(opened[-1]))
        new = opened[-1]
        assert new.theme == "dark" and new.reduced_motion and new.seed == 42
    finally:
        for s in opened:
            s.close()


def test_a_theme_the_file_changes_shows(level_file):
    opened = [Scene.load(level_file, size=(400, 300))]
    watcher = LevelWatcher(level_file)
    try:
        assert opened[0].theme == "light"
        save(level_file, 'theme = "dark"\n' + ROPE)
        opened.append(watcher.poll(opened[-1]))
        assert opened[-1].theme == "dark" and opened[-1].seed == 0
    finally:
        for s in opened:
            s.close()
