"""validate's real-time estimate: counts from the level's keys, figures from docs/performance.md."""
from __future__ import annotations

import pytest

from ropework import cost, level
from ropework.cli import main
from ropework.components import Constraints
from ropework.kinds import KINDS, load_builtin
from ropework.kinds.cloth import grid_constraints
from tests.conftest import LEVELS


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_a_thousand_by_thousand_cloth_validates_with_a_warning_and_exit_0(tmp_path, capsys):
    """It loads, then ran at 0.3 frames a second as a solid block: validate says so, and it is still valid."""
    p = write(tmp_path, "huge.toml", '[[layer]]\nkind = "cloth"\ncols = 1000\nrows = 1000\n')
    assert main(["validate", str(p)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{p}: OK"
    assert len(out) == 2 and out[1].startswith(f"{p}: warning: about ") and "slower than real time" in out[1]
    assert "1,000,000 points" in out[1]
    e = cost.estimate(level.load(p))
    assert e.speed < 0.05 and 0.1 < 1000 / (e.draw_ms + 3 * e.step_ms) < 1.0   # a fraction of a frame a second


def test_no_shipped_level_and_no_benchmarked_size_is_warned_about(tmp_path, capsys):
    assert main(["validate", *map(str, level.shipped())]) == 0
    assert "warning" not in capsys.readouterr().out
    # the benchmark's 100 x 100 cloth runs in real time here (2.3 ms a step): no warning
    p = write(tmp_path, "c100.toml", '[[layer]]\nkind = "cloth"\ncols = 100\nrows = 100\n')
    assert cost.warning(level.load(p)) is None


def test_the_estimate_reproduces_the_benchmarks_cloth_step(tmp_path):
    """docs/performance.md: cloth 100 x 100 (14 passes), 2.316 ms a step; cloth.toml 0.362 ms."""
    p = write(tmp_path, "c100.toml", '[[layer]]\nkind = "cloth"\ncols = 100\nrows = 100\npasses = 14\n')
    assert cost.estimate(level.load(p)).step_ms == pytest.approx(2.316, rel=0.1)
    assert cost.estimate(level.load(LEVELS / "cloth.toml")).step_ms == pytest.approx(0.362, rel=0.1)


@pytest.mark.parametrize("name", ["cloth.toml", "rope.toml", "tendrils.toml"])
def test_the_counted_links_are_the_ones_the_scene_builds(scenes, name):
    load_builtin()
    s = scenes(name, size=(1280, 720))
    (_, con), = s.find(Constraints)
    cfg, = s.level.layers
    w = KINDS[cfg["kind"]].work(cfg, 1280, 720)
    assert w.passes == con.passes
    if name == "cloth.toml":
        assert w.links == len(con.a)
    else:                                     # ropes and tendrils count their longest possible bundle
        assert w.links >= len(con.a) and w.links <= 2 * len(con.a)


@pytest.mark.parametrize("cols, rows, shear", [(2, 2, False), (5, 3, True), (48, 32, False), (7, 9, True)])
def test_cloth_links_match_the_grid(cols, rows, shear):
    from ropework.kinds.cloth import links
    assert links(cols, rows, shear) == len(grid_constraints(cols, rows, shear)[0])
