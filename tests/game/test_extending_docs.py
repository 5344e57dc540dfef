"""Every snippet in docs/extending.md runs."""
import re
import tomllib

import esper
import numpy as np
import pytest

from tests.conftest import ROOT

DOC = (ROOT / "docs" / "extending.md").read_text()
PY = re.findall(r"```python\n(.*?)```", DOC, re.S)
TOML = re.findall(r"```toml\n(.*?)```", DOC, re.S)


def test_the_walkthrough_system_registers_orders_and_runs(scenes, tmp_path):
    ns = {}
    exec(PY[0], ns)                                   # the magnet system, as written
    from ropework.systems.pipeline import REGISTRY, order
    assert REGISTRY.specs["magnet"].stage == "integrate"
    names = [s.name for s in order(["input", "magnet", "integrate", "relax"])]
    assert names == ["input", "magnet", "integrate", "relax"]
    level = tmp_path / "my_level.toml"
    level.write_text(TOML[0])
    scene = scenes(level, size=(800, 600))
    assert "Magnet" in [type(p).__name__ for p in scene.processors]
    from ropework.components import Points
    (_, pts), = scene.find(Points)
    before = np.hypot(*(pts.pos[-1] - (700, 500)))
    scene.pointer_down(700, 500)        # nothing to grab there: the magnet pulls
    scene.step(30)
    assert np.hypot(*(pts.pos[-1] - (700, 500))) < before - 50


def test_the_entry_point_snippet_matches_the_example_package():
    snippet = tomllib.loads(TOML[1])
    project = tomllib.loads((ROOT / "examples" / "ropework-tearing" / "pyproject.toml").read_text())
    assert snippet["project"]["entry-points"] == project["project"]["entry-points"]


def test_embedding_in_a_plain_arcade_view(gl_window):
    ns = {}
    exec(PY[1], ns)
    view = ns["RopeView"]()                 # the packaged level, from any folder
    gl_window.show_view(view)
    before = view.scene.state_hash()
    view.on_mouse_motion(400, 300, 0, 0)
    for _ in range(10):
        view.on_update(1 / 60)
    view.on_draw()
    assert view.scene.frame.steps >= 9 and view.scene.state_hash() != before
    world = view.scene.world
    view.on_hide_view()
    assert world not in esper.list_worlds()
    gl_window.show_view(__import__("arcade").View())


def test_the_frame_listing_in_the_doc_is_current():
    """docs/extending.md shows `ropework frame moeru`; it must be what the command prints now."""
    from ropework import level
    block = re.search(r"```text\n\$ ropework frame moeru\n(.*?)```", DOC, re.S)
    assert block, "docs/extending.md lost its `ropework frame moeru` listing"
    now = level.frame_table(level.load(level.resolve("moeru")))
    assert block.group(1).rstrip("\n") == now, "docs/extending.md is stale: paste `ropework frame moeru` into it"


def test_the_sine_floor_constraint_type_holds_every_point_above_the_wave(scenes, tmp_path):
    ns = {}
    exec(PY[2], ns)
    from ropework.components import Points
    from ropework.systems.services import solver
    try:
        level = tmp_path / "floor.toml"
        level.write_text(TOML[2])
        scene = scenes(level, size=(800, 600))
        scene.step(240)
        (_, pts), = scene.find(Points)
        floor = 400.0 - 40.0 * np.sin(2 * np.pi / 240.0 * pts.pos[:, 0])
        assert (pts.pos[:, 1] <= floor + 1e-3).all()
        low = int(np.argmax(pts.pos[:, 1]))                       # the rope (494 px, longer than the
        assert pts.pos[low, 1] == pytest.approx(floor[low], abs=1e-3)   # floor's 435 px depth) rests on it
    finally:
        solver.TYPES.pop("sine_floor", None)


def test_the_dynamic_colliders_snippet_hangs_a_ball_on_each_rope(scenes, tmp_path):
    ns = {}
    exec(PY[3], ns)
    from ropework.components import Points, Ropes
    level = tmp_path / "row.toml"
    level.write_text('[[layer]]\nkind = "ropes"\n' + "".join(
        f"[[layer.rope]]\nanchor = {0.4 + 0.05 * i}\npoints = 12\n" for i in range(3)))
    scene = scenes(level, size=(800, 600))
    (ent, pts), = scene.find(Points)
    ropes = scene.component(ent, Ropes)
    col = ns["hang_balls"](pts, ropes, 800.0, 600.0)
    with scene.active():
        esper.add_component(ent, col)
    tips = ropes.start + ropes.count - 1
    anchors = pts.pos[ropes.start].copy()
    scene.step(120)
    assert np.array_equal(pts.pos[ropes.start], anchors)                       # the rail still holds them
    assert np.allclose(col.centre + [0.0, -20.0], pts.pos[tips], atol=0.5)     # each ball on its rope's tip
    assert (col.centre[:, 1] > anchors[:, 1] + 100).all()                      # hanging below the rail
