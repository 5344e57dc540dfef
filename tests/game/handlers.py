"""The game window's own pointer and key handlers on a controller, with no GL window: the tests
that replay a player's events headless go through exactly the code the window runs."""
from __future__ import annotations

from ropework.window import PlayWindow


class ClosedStudio:
    """The studio's window hooks, closed: they take no event."""

    def pointer(self, *a):
        return False

    def key(self, *a):
        return False


class Handlers:
    """The pointer and key handlers of PlayWindow, on a controller, at a window size."""
    scene = PlayWindow.scene
    _scene_y = PlayWindow._scene_y
    on_mouse_motion = PlayWindow.on_mouse_motion
    on_mouse_drag = PlayWindow.on_mouse_drag
    on_mouse_press = PlayWindow.on_mouse_press
    on_mouse_release = PlayWindow.on_mouse_release
    on_mouse_leave = PlayWindow.on_mouse_leave
    on_key_press = PlayWindow.on_key_press

    def __init__(self, ctl, size):
        self.ctl, self.studio, self.width, self.height = ctl, ClosedStudio(), *size

    def close(self):
        pass
