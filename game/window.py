"""The Arcade window that plays a scene: fixed-step clock, pointer mapping, keys.

Arcade reports the pointer in window coordinates with y up; scenes use pixels
with y down (as the seeds), so y is flipped here and nowhere else. Logical
window units are used throughout, so HiDPI framebuffers change nothing.
"""
from __future__ import annotations

import arcade

from game.clock import Clock
from game.scene import Scene


class PlayWindow(arcade.Window):
    def __init__(self, scene: Scene, title: str = "ropework"):
        super().__init__(int(scene.width), int(scene.height), f"ropework — {title}", resizable=True)
        self.scene = scene
        self.clock = Clock()
        self.paused = False
        self.set_mouse_cursor(self.get_system_mouse_cursor(self.CURSOR_HAND))

    # ── frame ────────────────────────────────────────────────────────────────
    def on_update(self, delta_time: float):
        n = self.clock.advance(delta_time)
        if n and not self.paused:
            self.scene.step(n)

    def on_draw(self):
        self.clear(color=tuple(int(round(c * 255)) for c in self.scene.background))
        self.scene.draw(self.ctx)

    def on_resize(self, width: int, height: int):
        super().on_resize(width, height)
        if width > 0 and height > 0:          # minimised windows report 0×0
            self.scene.resize(width, height)

    def on_hide(self):
        self.clock.pause()

    def on_show(self):
        self.clock.resume()

    # ── pointer ──────────────────────────────────────────────────────────────
    def _y(self, y: float) -> float:
        return self.scene.height - y

    def on_mouse_motion(self, x, y, dx, dy):
        self.scene.pointer_move(x, self._y(y))

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        if 0 <= x < self.width and 0 <= y < self.height:
            self.scene.pointer_move(x, self._y(y))
        else:
            self.scene.pointer_leave()      # dragged out of the window: the grab ends, as the seed

    def on_mouse_press(self, x, y, button, modifiers):
        self.scene.pointer_down(x, self._y(y))

    def on_mouse_release(self, x, y, button, modifiers):
        self.scene.pointer_up(x, self._y(y))

    def on_mouse_leave(self, x, y):
        self.scene.pointer_leave()

    def on_deactivate(self):
        self.scene.pointer_leave()          # focus lost mid-drag: let go

    # ── keys (the table is game/keys.py) ────────────────────────────────────
    def on_key_press(self, symbol, modifiers):
        k = arcade.key
        if symbol == k.T:
            self.scene.toggle_theme()
        elif symbol == k.R:
            self.scene.reset()
        elif symbol == k.SPACE:
            self.paused = not self.paused
        elif symbol == k.PERIOD and self.paused:
            self.scene.step(1)
        elif symbol == k.ESCAPE:
            self.close()


def play(scene: Scene, title: str) -> None:
    window = PlayWindow(scene, title)
    try:
        arcade.run()
    finally:
        scene.close()
        del window
