"""Ropes drawn with the pointer, through the window's own handlers (replayed headless): a drag on
empty space lays a rope of the level along the stroke, it falls, its ends pin on colliders and
attach to ropes, O pins an end, Backspace and Ctrl+Z remove it, the budget refuses one with a
notice, and the saved level plays the same."""
from __future__ import annotations

import arcade
import numpy as np
import pytest

from ropework import level
from ropework.components import Grab, Pins, Points
from ropework.components.solve import Extras
from ropework.controller import Controller
from ropework.draw import lay, simplify
from ropework.kinds.ropes import along
from ropework.scene import Scene
from tests.game.handlers import Handlers

SIZE = (800, 600)
DT = 1 / 60
LEVEL = """\
# a sandbox to draw in
title = "sandbox"

[[layer]]
kind = "ropes"
draw = true          # drags on empty space draw ropes
rail = false
grab_radius = 20

[[layer.rope]]
anchor = 0.5         # the one hanging rope
points = 10

[[layer.collider]]
shape = "circle"
at = [0.25, 0.7]
radius = 40
"""


@pytest.fixture
def sandbox(tmp_path):
    path = tmp_path / "sandbox.toml"
    path.write_text(LEVEL)
    scene = Scene.load(path, size=SIZE)
    ctl = Controller(scene, out_dir=tmp_path)
    yield Handlers(ctl, SIZE), ctl, path
    ctl.scene.close()


def drag(win, ctl, stroke, modifiers=0, frames_each=0):
    """Press, drag through ``stroke`` (scene px, y down) and release, as the window gets them."""
    h = SIZE[1]
    (x0, y0), *rest = stroke
    win.on_mouse_press(x0, h - y0, arcade.MOUSE_BUTTON_LEFT, modifiers)
    for x, y in rest:
        win.on_mouse_drag(x, h - y, 1, 1, arcade.MOUSE_BUTTON_LEFT, modifiers)
        for _ in range(frames_each):
            ctl.update(DT)
    win.on_mouse_release(*rest[-1][:1], h - rest[-1][1], arcade.MOUSE_BUTTON_LEFT, modifiers)


def line(a, b, n=40):
    a, b = np.array(a, float), np.array(b, float)
    return [tuple(a + (b - a) * t) for t in np.linspace(0, 1, n)]


def body(ctl, cls):
    (_, comp), = ctl.scene.find(cls)
    return comp


def test_a_drag_on_empty_space_lays_a_rope_along_the_stroke_and_it_falls(sandbox):
    win, ctl, _ = sandbox
    ctl.update(DT)
    stroke = line((600, 100), (700, 160), 30) + line((700, 160), (560, 220), 30)[1:]
    drag(win, ctl, stroke, frames_each=1)
    assert body(ctl, Grab).held == -1                      # nothing was grabbed while drawing
    tables = ctl.studio.level.layers[0]["rope"]
    assert len(tables) == 2 and tables[1]["pin"] == "none"
    pts = body(ctl, Points).pos[10:].astype(np.float64)
    want = lay(np.array(stroke), 11.0)                     # the layer's segment apart along the stroke
    assert len(pts) == len(want) == tables[1]["points"]
    assert np.abs(pts - want).max() < 0.1                  # (the path is kept to 0.1 px)
    gaps = np.hypot(*np.diff(pts, axis=0).T)
    assert gaps.max() <= 11.0 + 0.1
    y0 = pts[:, 1].mean()
    for _ in range(30):
        ctl.update(DT)
    assert body(ctl, Points).pos[10:, 1].mean() > y0 + 20   # released, it falls as any rope


def test_ends_on_a_collider_pin_and_ends_on_a_rope_attach(sandbox):
    win, ctl, _ = sandbox
    ctl.update(DT)
    drag(win, ctl, line((500, 200), (200, 420), 50))       # ends inside the circle at (200, 420)
    rope = ctl.studio.level.layers[0]["rope"][1]
    assert rope["pin"] == "end"
    pins, pts = body(ctl, Pins), body(ctl, Points)
    tip = 10 + rope["points"] - 1
    assert tip in pins.index and pts.inv_mass[tip] == 0.0
    held = pts.pos[tip].copy()
    assert 39.9 <= np.hypot(*(held - (200, 420))) < 40.0 + 11.0    # pinned by the rim (a segment at most), not inside
    for _ in range(20):
        ctl.update(DT)
    assert np.array_equal(body(ctl, Points).pos[tip], held)   # pinned where it was drawn
    # Shift: start on the hanging rope (its 6th point), end in empty space
    hang = body(ctl, Points).pos[5].copy()
    drag(win, ctl, line(tuple(hang), (hang[0] + 150, hang[1] + 30), 40), modifiers=arcade.key.MOD_SHIFT)
    attach = ctl.studio.level.layers[0]["attach"]
    assert len(attach) == 1 and {k: attach[0][k] for k in ("from", "from_at", "to", "at", "break_force")} == \
        {"from": 2, "from_at": 0.0, "to": 0, "at": pytest.approx(5 / 9, abs=1e-4), "break_force": 0.0}
    ex = body(ctl, Extras)
    assert ex.attachments is not None and ex.attachments.at[0, 0] == 10 + rope["points"]


def test_o_pins_the_nearest_end_where_it_is_and_backspace_and_undo_remove(sandbox, tmp_path):
    win, ctl, path = sandbox
    ctl.update(DT)
    drag(win, ctl, line((600, 100), (750, 100), 30))
    for _ in range(20):
        ctl.update(DT)
    end = body(ctl, Points).pos[-1].copy()
    win.on_mouse_motion(end[0] + 3, SIZE[1] - end[1], 0, 0)
    ctl.update(DT)
    win.on_key_press(arcade.key.O, 0)
    assert ctl.studio.level.layers[0]["rope"][1]["pin"] == "end", ctl.status
    tip = len(body(ctl, Points).pos) - 1
    assert body(ctl, Points).inv_mass[tip] == 0.0
    assert np.abs(body(ctl, Points).pos[tip] - end).max() < 12    # pinned about where it hung, not where it was drawn
    drag(win, ctl, line((100, 50), (300, 60), 20))
    assert len(ctl.studio.drawn(0)) == 2
    win.on_key_press(arcade.key.BACKSPACE, 0)
    assert len(ctl.studio.drawn(0)) == 1 and len(body(ctl, Points).pos) == tip + 1
    win.on_key_press(arcade.key.Z, arcade.key.MOD_CTRL)          # undo the removal
    assert len(ctl.studio.drawn(0)) == 2
    win.on_key_press(arcade.key.Z, arcade.key.MOD_CTRL)
    win.on_key_press(arcade.key.Z, arcade.key.MOD_CTRL)          # ... and the drawing of both
    assert ctl.studio.drawn(0) == [1]


def test_ropes_already_there_go_on_from_where_they_were_when_another_is_drawn(sandbox):
    win, ctl, _ = sandbox
    ctl.update(DT)
    drag(win, ctl, line((600, 100), (750, 120), 30))
    for _ in range(25):
        ctl.update(DT)
    before = body(ctl, Points)
    pos, prev = before.pos.copy(), before.prev.copy()
    drag(win, ctl, line((100, 50), (300, 60), 20))
    after = body(ctl, Points)
    assert np.array_equal(after.pos[:len(pos)], pos) and np.array_equal(after.prev[:len(prev)], prev)


def test_a_rope_past_the_point_budget_is_refused_with_a_notice(sandbox, monkeypatch):
    win, ctl, _ = sandbox
    monkeypatch.setattr(level, "MAX_POINTS", 20)
    ctl.update(DT)
    text = ctl.studio_model().text
    drag(win, ctl, line((100, 50), (500, 60), 40))
    assert "expected at most 20 points in a scene" in ctl.status
    assert ctl.studio.text == text and len(body(ctl, Points).pos) == 10   # nothing changed, nothing crashed
    ctl.update(DT)


def test_a_saved_level_with_drawn_ropes_keeps_its_comments_loads_and_plays_the_same(sandbox, tmp_path):
    win, ctl, path = sandbox
    ctl.update(DT)
    drag(win, ctl, line((500, 200), (200, 420), 50))
    hang = body(ctl, Points).pos[5].copy()
    drag(win, ctl, line(tuple(hang), (hang[0] + 150, hang[1] + 30), 40), modifiers=arcade.key.MOD_SHIFT)
    win.on_key_press(arcade.key.S, arcade.key.MOD_CTRL)
    text = path.read_text()
    assert text.startswith(LEVEL.split("[[layer.collider]]")[0].rstrip("\n"))   # comments and order kept
    assert "# drags on empty space draw ropes" in text and "path = [[" in text and "[[layer.attach]]" in text
    lv = level.load(path, SIZE)                               # validates
    assert [r["pin"] for r in lv.layers[0]["rope"]] == ["start", "end", "none"]
    ctl.reset()
    fresh = Scene.load(path, size=SIZE)
    try:
        for _ in range(40):
            ctl.scene.step(1)
            fresh.step(1)
        assert fresh.state_hash() == ctl.scene.state_hash()
    finally:
        fresh.close()


def test_along_lays_points_at_the_spacing_and_goes_straight_on_past_the_end():
    got = along(np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]]), 5, 6.0)
    assert np.allclose(got, [[0, 0], [6, 0], [10, 2], [10, 8], [10, 14]])
    assert np.allclose(along(np.array([[3.0, 4.0]]), 3, 2.0), [[3, 4], [3, 6], [3, 8]])   # a dot hangs down


def test_a_stroke_is_kept_as_its_corners_within_the_tolerance():
    t = np.linspace(0, np.pi, 400)
    arc = np.stack([100 + 80 * np.cos(t), 100 + 80 * np.sin(t)], 1)
    corners = simplify(arc, 0.5)
    assert 8 < len(corners) < 40 and np.array_equal(corners[[0, -1]], arc[[0, -1]])
    # every sample is within the tolerance of the corners' polyline
    a, b = corners[:-1], corners[1:]
    d = b - a
    f = np.clip(((arc[:, None] - a) * d).sum(2) / (d * d).sum(1), 0, 1)
    gap = np.hypot(*(a + f[..., None] * d - arc[:, None]).transpose(2, 0, 1)).min(1)
    assert gap.max() <= 0.5
    assert len(simplify(np.array([[0, 0], [5, 0], [10, 0.0]]), 0.5)) == 2      # a straight line: its ends


def test_every_inner_point_of_a_drawn_curve_bends_at_the_angle_it_was_laid(tmp_path):
    """A drawn rope's neighbouring links bend against each other whatever angle the stroke laid them
    at (a cloth's bends pair links pointing the same way; a curve's do not): its rest shape is the
    curve, so bend = 1 holds it as drawn."""
    t = np.linspace(0, np.pi, 13)
    hook = np.round(np.stack([0.5 + 0.1 * np.cos(t), 0.3 + 0.13 * np.sin(t)], 1), 4).tolist()
    path = tmp_path / "hook.toml"
    path.write_text(f'[[layer]]\nkind = "ropes"\nrail = false\nbend = 1.0\ngravity = 0\n\n'
                    f'[[layer.rope]]\nanchor = 0.6\npoints = 23\npin = "start"\npath = {hook}\n')
    scene = Scene.load(path, size=SIZE)
    try:
        (_, pts), = scene.find(Points)
        (_, ex), = scene.find(Extras)
        assert ex.bending.tri.tolist() == [list(range(0, 21)), list(range(1, 22)), list(range(2, 23))]
        u = pts.pos[:-2] - pts.pos[1:-1]
        v = pts.pos[2:] - pts.pos[1:-1]
        laid = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], (u * v).sum(1))
        assert np.allclose(ex.bending.angle, laid, atol=1e-6)
        assert np.abs(np.pi - np.abs(laid)).max() > 0.1                  # a curve, not a straight line
        before = pts.pos.copy()
        scene.step(60)
        assert np.abs(pts.pos - before).max() < 0.5                       # at rest as laid
    finally:
        scene.close()


@pytest.mark.parametrize("rope, key, words", [
    ('anchor = 0.1\npath = [[0.1, 0.2], [0.3, 0.4]]\ncount = 2\nevery = 0.1', "layer[0].rope[0].count",
     "expected 1 for a drawn rope"),
    ('anchor = 0.1\npath = [[0.1, 0.2], [1.3, 0.4]]', "layer[0].rope[0].path", "numbers in 0..1, found"),
    ('anchor = 0.1\npath = []', "layer[0].rope[0].path", "an array of at most 4096 [x, y] pairs"),
    ('anchor = 0.1\npin = "middle"', "layer[0].rope[0].pin", "expected one of"),
])
def test_a_bad_drawn_rope_is_refused_with_one_line(tmp_path, capsys, rope, key, words):
    from ropework.cli import main
    path = tmp_path / "bad.toml"
    path.write_text(f'[[layer]]\nkind = "ropes"\n\n[[layer.rope]]\n{rope}\n')
    code = main(["validate", str(path)])
    err = capsys.readouterr().out.strip()                 # validate prints its verdicts on stdout
    assert code == 2 and len(err.splitlines()) == 1, err
    assert str(path) in err and key in err and words in err, err
