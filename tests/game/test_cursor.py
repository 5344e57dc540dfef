"""The cursor: the controller names it from the scene (grab over the card, grabbing while held); the window shows it."""
from __future__ import annotations

import pytest

from ropework.controller import Controller
from ropework.window import CURSORS, PlayWindow
from tests.lanyard import SETTLE, card_pixel

SIZE = (800, 600)


@pytest.fixture
def lanyard(scenes, tmp_path):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    return Controller(s, out_dir=tmp_path)


def test_a_card_scene_shows_grab_over_the_card_and_grabbing_while_it_is_held(lanyard):
    s = lanyard.scene
    assert lanyard.cursor() == "default"                  # no pointer yet
    x, y = card_pixel(s)
    s.pointer_move(x, y)
    s.step(1)
    assert lanyard.cursor() == "grab"
    s.pointer_down(x, y)
    s.step(1)
    assert lanyard.cursor() == "grabbing"
    s.pointer_move(x + 300, y + 150)                      # the hand outruns the card: still holding it
    s.step(1)
    assert lanyard.cursor() == "grabbing"
    s.pointer_up(x + 300, y + 150)
    s.step(1)
    assert lanyard.cursor() == "default"                  # let go beside the card
    s.step(240)
    x, y = card_pixel(s)
    s.pointer_move(x, y)
    s.step(1)
    assert lanyard.cursor() == "grab"
    s.pointer_leave()
    s.step(1)
    assert lanyard.cursor() == "default"


def test_a_press_beside_the_card_dragged_over_it_does_not_offer_a_grab(scenes, tmp_path):
    s = scenes("moeru.toml", size=SIZE)
    s.step(SETTLE)
    ctl = Controller(s, out_dir=tmp_path)
    x, y = card_pixel(s)
    s.pointer_down(x - 250, y)                            # on the dots: a shockwave, not the card
    s.step(1)
    assert ctl.cursor() == "default"
    s.pointer_move(x, y)
    s.step(1)
    assert ctl.cursor() == "default"                      # the button is down on nothing a release would take
    s.pointer_up(x, y)
    s.step(1)
    assert ctl.cursor() == "grab"


def test_scenes_without_a_card_show_grab_everywhere(scenes, tmp_path):
    ctl = Controller(scenes("rope.toml", size=(480, 270)), out_dir=tmp_path)
    assert ctl.cursor() == "grab"


class _Window:
    """The parts of PlayWindow that _sync_cursor touches."""

    def __init__(self, ctl):
        self.ctl, self._cursor, self._cursors, self.shown, self.made = ctl, "", {}, [], []

    def get_system_mouse_cursor(self, name):
        self.made.append(name)
        return f"cursor:{name}"

    def set_mouse_cursor(self, cursor):
        self.shown.append(cursor)


def test_the_window_asks_the_system_only_when_the_name_changes(lanyard):
    win = _Window(lanyard)
    s = lanyard.scene
    x, y = card_pixel(s)
    for event in [None, None, ("move", x, y), None, ("down", x, y), ("move", x + 5, y), ("up", x + 5, y),
                  ("move", x, y), ("down", x, y)]:
        if event:
            getattr(s, f"pointer_{event[0]}")(*event[1:])
            s.step(1)
        PlayWindow._sync_cursor(win)
    d, g, gg = (f"cursor:{CURSORS[n]}" for n in ("default", "grab", "grabbing"))
    assert win.shown == [d, g, gg, g, gg]                 # repeats of the same name leave the system alone
    assert sorted(win.made, key=str) == sorted({CURSORS[n] for n in ("default", "grab", "grabbing")}, key=str)


def test_every_cursor_name_is_a_system_cursor():
    import arcade
    names = {getattr(arcade.Window, k) for k in dir(arcade.Window) if k.startswith("CURSOR_")}
    assert set(CURSORS) == {"default", "grab", "grabbing"} and set(CURSORS.values()) <= names
    assert CURSORS["grab"] == arcade.Window.CURSOR_HAND
