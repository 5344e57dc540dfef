"""Plugins through the entry point, opt-in systems by name, the example plugin end to end."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ropework import level, plugins
from ropework.components import Constraints, Points
from ropework.schema import LevelError
from tests.conftest import ROOT

TEAR_LEVEL = ROOT / "examples" / "ropework-tearing" / "levels" / "tear.toml"


def components_of(n, a, b):
    """Connected parts of the graph of n points and links a-b (label propagation, vectorised)."""
    label = np.arange(n)
    while True:
        m = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, m)
        np.minimum.at(new, b, m)
        new = new[new]
        if np.array_equal(new, label):
            return len(np.unique(label))
        label = new


def test_the_example_plugin_is_found_through_its_entry_point():
    plugins.autoload()
    assert plugins.loaded.get("tearing") == "ok", plugins.loaded
    from ropework.systems.pipeline import REGISTRY
    assert REGISTRY.specs["tear"].default is False
    from ropework.kinds import KINDS
    assert "tearable_cloth" in KINDS


def test_a_fast_drag_tears_the_cloth_in_two(scenes):
    scene = scenes(TEAR_LEVEL, size=(900, 600))
    scene.step(60)
    (_, con), = scene.find(Constraints)
    (_, pts), = scene.find(Points)
    before = len(con.a)
    assert components_of(pts.n, con.a, con.b) == 1
    scene.pointer_down(450, 250)
    for k in range(30):
        scene.pointer_move(450 + 12 * k, 250 + 11 * k)
        scene.step(1)
    scene.pointer_up(800, 580)
    scene.step(30)
    (_, con), = scene.find(Constraints)
    assert len(con.a) < before
    assert components_of(pts.n, con.a, con.b) >= 2
    assert np.isfinite(pts.pos).all()


def test_the_tear_system_runs_where_its_kind_or_the_level_brings_it(scenes, tmp_path):
    plugins.autoload()
    assert "tear" in [s.name for s in scenes(TEAR_LEVEL).systems()]          # brought by tearable_cloth
    plain = tmp_path / "plain.toml"
    plain.write_text('[[layer]]\nkind = "cloth"\n')
    assert "tear" not in [s.name for s in scenes(plain).systems()]
    plain.write_text('systems = ["tear"]\n[[layer]]\nkind = "cloth"\n')    # a level may still opt in
    frame = [s.name for s in scenes(plain).systems()]
    assert frame.index("relax") < frame.index("tear")                           # after=("relax",)


def test_unknown_system_name_is_a_validation_error_with_a_suggestion(tmp_path):
    p = tmp_path / "x.toml"
    p.write_text('systems = ["relx"]\n[[layer]]\nkind = "cloth"\n')
    with pytest.raises(LevelError, match=r"systems\[0\]: unknown system 'relx'; did you mean 'relax'\?"):
        level.load(p)
    p.write_text('systems = ["os.path:join"]\n[[layer]]\nkind = "cloth"\n')
    with pytest.raises(LevelError, match="unknown system 'os.path:join'"):
        level.load(p)


def _fake_plugin_env(tmp_path, target):
    """A site dir with an installed-looking distribution whose entry point is ``target``."""
    site = tmp_path / "site"
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[ropework.systems]\nbroken = {target}\n")
    return dict(os.environ, PYTHONPATH=str(site), ARCADE_HEADLESS="1")


def run(args, env):
    return subprocess.run([sys.executable, "-m", "ropework", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=env)


def test_a_broken_plugin_is_reported_in_one_line_and_skipped(tmp_path):
    env = _fake_plugin_env(tmp_path, "no_such_module_xyz:plugin")
    r = run([str(ROOT / "levels" / "cloth.toml"), "--record", str(tmp_path / "o.png"), "--frames", "2",
             "--size", "200x150"], env)
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "plugin 'broken'" in lines[0] and "skipped" in lines[0]
    assert "Traceback" not in r.stderr and Path(tmp_path / "o.png").exists()


def test_autoload_off_and_explicit_plugin(tmp_path):
    env = dict(os.environ, ROPEWORK_NO_PLUGINS="1", ARCADE_HEADLESS="1")
    out = tmp_path / "t.png"
    r = run([str(TEAR_LEVEL), "--record", str(out), "--frames", "1", "--size", "200x150"], env)
    assert r.returncode == 2 and "unknown" in r.stderr      # tearable_cloth / tear are not registered
    r = run([str(TEAR_LEVEL), "--plugin", "tearing", "--record", str(out), "--frames", "1", "--size", "200x150"], env)
    assert r.returncode == 0, r.stderr
    r = run([str(TEAR_LEVEL), "--no-plugins", "--record", str(out), "--frames", "1"], dict(os.environ))
    assert r.returncode == 2
