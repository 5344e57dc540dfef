"""The studio edits colliders: a press on one drags it, the wheel turns it, Delete (or its ✕)
removes it, + collider adds one; friction, compliance and break_at apply live; the file keeps its
comments. Driven through the controller's studio pointer path, headless."""
from __future__ import annotations

import numpy as np

from ropework import level
from ropework.components import Constraints, Points
from ropework.components.collider import Colliders
from ropework.components.solve import Extras
from ropework.controller import Controller
from ropework.scene import Scene

SIZE = (800, 600)
DT = 1 / 60
LEVEL = """\
# pegs to move about
title = "pegs"

[[layer]]
kind = "ropes"
rail = false

[[layer.rope]]
anchor = 0.5
points = 20

[[layer.collider]]       # the peg
shape = "box"
at = [0.25, 0.5]         # left of the rope
size = [60, 30]
friction = 0.5
"""


def _open(tmp_path, text=LEVEL):
    path = tmp_path / "pegs.toml"
    path.write_text(text)
    ctl = Controller(Scene.load(path, size=SIZE), out_dir=tmp_path)
    ctl.toggle_studio()
    return ctl, path


def _col(ctl) -> Colliders:
    (_, col), = ctl.scene.find(Colliders)
    return col


def test_a_press_on_a_collider_drags_it_the_wheel_turns_it_and_the_file_keeps_its_comments(tmp_path):
    ctl, path = _open(tmp_path)
    st = ctl.studio
    ctl.update(DT)
    for _ in range(30):
        ctl.update(DT)
    ents = ctl.scene.entities()
    moving = ctl.scene.find(Points)[0][1].pos.copy()
    col = _col(ctl)
    assert ctl.studio_pointer("down", 210, 305)              # inside the box, 10 px off its centre
    for k in range(1, 6):
        assert ctl.studio_pointer("move", 210 + 8 * k, 305 + 4 * k)
    ctl.studio_pointer("up", 250, 325)
    assert st.level.layers[0]["collider"][0]["at"] == [0.3, 0.5333]      # followed the hand, grip kept
    assert _col(ctl) is col and np.allclose(col.centre[0], [240, 320], atol=0.05)   # live: the same component
    assert ctl.scene.entities() == ents                                   # nothing rebuilt ...
    assert np.array_equal(ctl.scene.find(Points)[0][1].pos, moving)       # ... the rope as it was
    assert len(st.history) == 1                                           # one drag, one undo step
    assert st.turn(240, 320, 3) and st.turn(240, 320, 1)
    assert st.level.layers[0]["collider"][0]["angle"] == 20.0
    assert np.allclose(col.axis[0], [np.cos(np.radians(20)), np.sin(np.radians(20))], atol=1e-6)
    assert not st.turn(700, 100, 1)                                       # nothing there
    assert st.set((0, "collider", 0), "friction", 0.9) and st.last_applied == ["live ropes.friction"]
    assert np.isclose(col.mu_s[0], 0.9)
    st.save()
    text = path.read_text()
    assert "# pegs to move about" in text and "[[layer.collider]]       # the peg" in text
    assert "at = [0.3, 0.5333]       # left of the rope" in text   # the comment at its column and "angle = 20.0" in text
    lv = level.load(path, SIZE)
    assert lv.layers[0]["collider"][0]["friction"] == 0.9
    st.undo()
    st.undo()
    st.undo()
    assert st.level.layers[0]["collider"][0]["at"] == [0.25, 0.5]


def test_colliders_are_added_and_removed(tmp_path):
    ctl, path = _open(tmp_path)
    st = ctl.studio
    assert st.add_entry(0, "collider")
    new = st.level.layers[0]["collider"][1]
    assert new["shape"] == "circle" and new["at"] == [0.5, 0.5]
    assert len(_col(ctl).shape) == 2
    assert st.remove_at(400, 300)                                   # Delete over it
    assert len(st.level.layers[0]["collider"]) == 1 and len(_col(ctl).shape) == 1
    assert not st.remove_at(700, 100)
    assert st.remove_at(200, 300)                                   # the last one: the layer has none
    assert "collider" not in st.level.layers[0] or not st.level.layers[0]["collider"]
    assert ctl.scene.find(Colliders) == []


def test_a_plane_is_taken_near_its_surface_only(tmp_path):
    ctl, _ = _open(tmp_path, LEVEL + '\n[[layer.collider]]\nshape = "plane"\nat = [0.5, 0.9]\n')
    st = ctl.studio
    assert st.collider_at(600, 540) == (0, 1) and st.collider_at(600, 545) == (0, 1)
    assert st.collider_at(600, 580) is None and st.collider_at(600, 300) is None


def test_break_at_applies_live_and_a_broken_link_stays_broken(tmp_path):
    text = LEVEL.replace('rail = false', 'rail = false\nbreak_at = 1.3\ngrab_pins = true\npasses = 2')
    ctl, _ = _open(tmp_path, text)
    st = ctl.studio
    scene = ctl.scene
    (_, pts), = scene.find(Points)
    tip = pts.pos[-1]
    scene.pointer_down(float(tip[0]), float(tip[1]))
    for k in range(40):
        scene.pointer_move(float(tip[0]), float(tip[1]) + 20 * k)
        scene.step(1)
    scene.pointer_up(0, 0)
    (_, con), = scene.find(Constraints)
    links = len(con.a)
    assert links < 19                                              # it snapped
    ents = scene.entities()
    assert st.set((0,), "break_at", 3.0) and st.last_applied == ["live ropes.break_at"]
    (_, con), = scene.find(Constraints)
    (_, ex), = scene.find(Extras)
    assert scene.entities() == ents and len(con.a) == links        # still broken, nothing rebuilt
    assert np.all(ex.breaking.ratio == 3.0) and len(ex.breaking.ratio) == links
    assert st.set((0,), "break_at", 0.0)
    assert scene.find(Extras) == []                                # no extra left: the seeds' body
