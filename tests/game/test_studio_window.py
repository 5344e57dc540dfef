"""The studio in a real window, driven as a person would (Xvfb + xdotool; the harness of
tests/game/test_real_window.py): open it with E, drag the rope level's passes slider, hold a
rope and take its passes from 14 to 2 with the keyboard while holding it — it stretches —
hang a rope by clicking the rail, undo that, drag an anchor along the rail and undo that,
save with Ctrl+S, and find the file changed in exactly the passes line, its comment intact;
then save as a path typed into the panel's field (Ctrl+Shift+S, Enter)."""
from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

from ropework.scene import Scene
from ropework.studio import Studio
from ropework.studio_view import LABEL, plan, slider_range
from tests.conftest import LEVELS
from tests.game.test_real_window import START_TIMEOUT, Desk, display, poll, pytestmark  # noqa: F401  (fixture, skip)

SIZE = (1100, 700)           # px: the window; the panel takes its right 390 px
MIDDLE = (0, 212, 255)       # the middle rope's colour (#00d4ff)
NEW = (255, 102, 0)          # a new rope's default colour (#ff6600)
NEAR = 40
RAIL_X = 330                 # px: where the test hangs a rope (0.3 of the width)
ANCHOR_X = 420               # px: where the test drags the middle rope's anchor (from 550, half the width)


def lowest(img, colour, x0, x1) -> int | None:
    """The lowest window row (y down) showing ``colour`` between columns x0..x1, or None."""
    near = (np.abs(img[:SIZE[1], x0:x1] - colour) <= NEAR).all(axis=2)
    ys = np.nonzero(near.any(axis=1))[0]
    return int(ys.max()) if len(ys) else None


def test_the_studio_in_a_real_window(display, tmp_path):  # noqa: F811  (the fixture imported above)
    level = tmp_path / "rope.toml"
    original = (LEVELS / "rope.toml").read_text("utf-8")
    level.write_text(original, "utf-8")

    # where the panel puts the passes slider: the view's own layout, from the same model
    scene = Scene.load(level, size=SIZE)
    st = Studio(scene)
    row = next(r for r in plan(st, *SIZE, selected=0) if r.kind == "key" and r.name == "passes")
    lo, hi = slider_range(st.key((0,), "passes"), 14)
    scene.close()
    sx0, sw = row.x + LABEL, row.w - LABEL - 80
    knob = sx0 + 7 + (14 - lo) / (hi - lo) * (sw - 14)
    sy = SIZE[1] - (row.y + row.h / 2)                  # window y, down

    desk = Desk(display)
    proc = subprocess.Popen([sys.executable, "-m", "ropework", str(level), "--size", f"{SIZE[0]}x{SIZE[1]}"],
                            cwd=tmp_path, env=desk.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        desk.window = poll(desk.find_window, START_TIMEOUT, 0.2)

        def hanging():
            """the middle rope, hanging"""
            return lowest(desk.screenshot(), MIDDLE, 500, 600)
        rest = poll(hanging, 20, 0.2)
        desk.move(300, 400)
        desk.xdo("windowfocus", desk.window)
        time.sleep(0.2)
        desk.xdo("key", "e")

        def panel():
            """the studio's panel"""
            img = desk.screenshot()
            return img[SIZE[1] // 2, SIZE[0] - 200].sum() < 3 * 80
        poll(panel, 10, 0.2)

        # drag the passes knob from 14 to the slider's left end (1), then step it with the keys
        desk.move(int(knob), int(sy))
        desk.xdo("mousedown", 1)
        desk.drag((int(knob), int(sy)), (int(sx0) - 20, int(sy)), steps=10)
        desk.xdo("mouseup", 1)
        time.sleep(0.2)
        for _ in range(3):
            desk.xdo("key", "Left")                       # at the left end already: stays 1 (the key's lowest)
        desk.xdo("key", "Right")                          # 1 → 2 ...
        for _ in range(12):
            desk.xdo("key", "Right")                      # ... → 14 again: the slider holds the keyboard
        time.sleep(0.3)

        # hold the middle rope's tip and pull it down: 14 passes
        tip = (550, rest - 3)
        desk.move(*tip)
        desk.xdo("mousedown", 1)
        desk.drag(tip, (550, 450), steps=16)
        time.sleep(1.5)
        stiff = lowest(desk.screenshot(), MIDDLE, 450, 650)
        for _ in range(12):                               # still holding: passes 14 → 2
            desk.xdo("key", "Left")
        time.sleep(1.5)
        soft = lowest(desk.screenshot(), MIDDLE, 450, 650)
        desk.xdo("mouseup", 1)
        # the rope's length bounds its mean segment from below: (tip − anchor) / 26 segments
        seg14, seg2 = (stiff - 6) / 26, (soft - 6) / 26
        print(f"held rope: lowest pixel {stiff} → {soft} px, mean segment ≥ {seg14:.2f} → {seg2:.2f} px (rest 11)")
        assert seg2 > seg14 * 1.04 and soft > stiff + 10, f"2 passes should stretch the held rope: {stiff} → {soft} px"
        time.sleep(1.5)

        # click the rail: a new rope hangs there; Ctrl+Z takes it away
        assert lowest(desk.screenshot(), NEW, RAIL_X - 6, RAIL_X + 6) is None
        desk.move(RAIL_X, 7)
        time.sleep(0.1)
        desk.xdo("mousedown", 1)
        time.sleep(0.05)
        desk.xdo("mouseup", 1)

        def hung():
            """the new rope at the click"""
            y = lowest(desk.screenshot(), NEW, RAIL_X - 6, RAIL_X + 6)
            return y is not None and y > 100 and y
        try:
            poll(hung, 8, 0.2)
        except AssertionError:
            from PIL import Image
            Image.fromarray(desk.screenshot().astype(np.uint8)).save(tmp_path / "no-new-rope.png")
            proc.kill()
            raise AssertionError(f"no rope hung at the click; screen in {tmp_path}/no-new-rope.png; "
                                 f"game stderr: {proc.communicate()[1][-2000:]}") from None
        desk.move(300, 400)
        desk.xdo("key", "ctrl+z")

        def gone():
            """the new rope gone again"""
            return lowest(desk.screenshot(), NEW, RAIL_X - 6, RAIL_X + 6) is None
        poll(gone, 5, 0.2)

        # press the middle rope's anchor on the rail and drag it left: the rope follows; one Ctrl+Z puts it back
        desk.move(550, 6)
        time.sleep(0.1)
        desk.xdo("mousedown", 1)
        desk.drag((550, 6), (ANCHOR_X, 6), steps=12)
        desk.xdo("mouseup", 1)

        def moved():
            """the middle rope hanging from the dragged anchor"""
            img = desk.screenshot()
            return lowest(img, MIDDLE, ANCHOR_X - 20, ANCHOR_X + 20) is not None and \
                lowest(img, MIDDLE, 530, 570) is None
        poll(moved, 8, 0.2)
        desk.move(300, 400)
        desk.xdo("key", "ctrl+z")

        def back():
            """the middle rope back at its anchor"""
            img = desk.screenshot()
            return lowest(img, MIDDLE, 530, 570) is not None and lowest(img, MIDDLE, ANCHOR_X - 20, ANCHOR_X + 20) is None
        poll(back, 8, 0.2)

        # Ctrl+S: the file changed in exactly the passes line, its comment kept
        desk.xdo("key", "ctrl+s")

        def saved():
            """the saved file"""
            return level.read_text("utf-8") != original
        poll(saved, 5, 0.2)
        before, after = original.splitlines(), level.read_text("utf-8").splitlines()
        changed = [(a, b) for a, b in zip(before, after) if a != b]
        assert len(before) == len(after) and changed == [
            ("passes = 14         # Gauss-Seidel passes: fewer and the rope reads as elastic",
             "passes = 2          # Gauss-Seidel passes: fewer and the rope reads as elastic")], changed
        assert not [f for f in tmp_path.glob("*.png") if not f.name.startswith(".")], \
            "Ctrl+S must not also take a screenshot"

        # S with the panel open: the screenshot is the scene alone, under the panel too
        desk.xdo("key", "s")

        def shot():
            """the screenshot"""
            # the finished file only: a screenshot is written as a hidden .part file, then renamed
            return next((f for f in tmp_path.glob("*.png") if not f.name.startswith(".")), None)
        from PIL import Image
        png = poll(shot, 5, 0.2)
        time.sleep(0.3)
        img = np.asarray(Image.open(png).convert("RGB")).astype(int)
        assert img.shape[:2] == (SIZE[1], SIZE[0])
        under_panel = img[SIZE[1] // 2, SIZE[0] - 100]
        assert (under_panel > 200).all(), f"the panel (or its texture) is in the screenshot: {under_panel}"
        assert lowest(img, MIDDLE, 500, 600) is not None, "the scene is in the screenshot"

        # Ctrl+Shift+S: a path typed in the panel's field, Enter saves the level there
        desk.move(300, 400)
        desk.xdo("key", "ctrl+shift+s")
        time.sleep(0.5)
        for _ in range(len("rope.toml") + 2):             # the field holds the open file's name: clear it
            desk.xdo("key", "BackSpace")
        desk.xdo("type", "--delay", "30", "mine.toml")
        desk.xdo("key", "Return")
        copy = tmp_path / "mine.toml"
        poll(copy.exists, 5, 0.2)
        assert copy.read_text("utf-8") == level.read_text("utf-8")

        desk.xdo("key", "e")                              # closed again, then quit
        desk.xdo("windowfocus", desk.window)
        desk.xdo("key", "Escape")
        out, err = proc.communicate(timeout=20)
        assert proc.returncode == 0 and err == "", err
        assert f"saved {level}" in out and f"saved {tmp_path / 'mine.toml'}" in out, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


PEGS = """\
# pegs to move about, room to draw
title = "pegs"

[[layer]]
kind = "ropes"
rail = false
grab_radius = 20

[[layer.rope]]
anchor = 0.6
colour = "#00d4ff"

[[layer.collider]]       # the peg
shape = "box"
at = [0.25, 0.5]
size = [80, 30]
"""
PEG = (137, 137, 142)        # a collider's outline grey, about


def test_the_studio_moves_turns_colliders_and_draws_a_rope_in_a_real_window(display, tmp_path):  # noqa: F811
    """With the studio open: a press on the box drags it, the wheel over it turns it, a drag on empty
    space draws a rope that falls onto it; Ctrl+S writes all three into the file, comments kept."""
    level = tmp_path / "pegs.toml"
    level.write_text(PEGS, "utf-8")
    desk = Desk(display)
    proc = subprocess.Popen([sys.executable, "-m", "ropework", str(level), "--size", f"{SIZE[0]}x{SIZE[1]}"],
                            cwd=tmp_path, env=desk.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        desk.window = poll(desk.find_window, START_TIMEOUT, 0.2)

        def hanging():
            """the rope, hanging"""
            return lowest(desk.screenshot(), MIDDLE, 600, 720)
        poll(hanging, 20, 0.2)
        desk.move(300, 600)
        desk.xdo("windowfocus", desk.window)
        time.sleep(0.2)
        desk.xdo("key", "e")

        def panel():
            """the studio's panel"""
            return desk.screenshot()[SIZE[1] // 2, SIZE[0] - 200].sum() < 3 * 80
        poll(panel, 10, 0.2)

        desk.move(275, 350)                                   # the box's centre
        desk.xdo("mousedown", 1)
        desk.drag((275, 350), (375, 420), steps=12)
        desk.xdo("mouseup", 1)
        time.sleep(0.2)
        for _ in range(3):
            desk.xdo("click", 4)                              # the wheel, over the box: 5° a notch
            time.sleep(0.05)
        desk.move(300, 150)
        desk.xdo("mousedown", 1)                              # empty space: a rope is drawn
        desk.drag((300, 150), (460, 200), steps=16)
        desk.xdo("mouseup", 1)
        time.sleep(1.2)
        from PIL import Image
        shot = desk.screenshot()[:SIZE[1], :SIZE[0]].astype(np.uint8)
        Image.fromarray(shot).save(tmp_path / "studio-draw.png")
        drawn = lowest(shot, NEW, 280, 480)
        assert drawn is not None and drawn > 300, f"no drawn rope fell onto the box (lowest {drawn})"
        desk.xdo("key", "ctrl+s")

        def saved():
            """the file with the edits"""
            return "path = [[" in level.read_text("utf-8")
        poll(saved, 10, 0.2)
        desk.xdo("key", "Escape")
        _, err = proc.communicate(timeout=20)
        err = "".join(line for line in err.splitlines(True) if "kernels" not in line)   # a first run compiles
        assert proc.returncode == 0 and err == "", err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = level.read_text("utf-8")
    rope, peg = PEGS.split("[[layer.collider]]")
    assert text.startswith(rope) and "\n\n[[layer.collider]]       # the peg\nshape = \"box\"\nat = [" in text, text   # comments, order
    assert text.index('path = [[') < text.index("[[layer.collider]]")    # the drawn rope among the ropes
    lv = __import__("ropework.level", fromlist=["load"]).load(level, SIZE)
    col = lv.layers[0]["collider"][0]
    assert abs(col["at"][0] - 375 / SIZE[0]) < 0.01 and abs(col["at"][1] - 420 / SIZE[1]) < 0.01, col["at"]
    assert col["angle"] == -15.0 or col["angle"] == 15.0, col["angle"]
    assert len(lv.layers[0]["rope"]) == 2 and lv.layers[0]["rope"][1]["pin"] == "none"
