"""Off-screen rendering: draw a scene into a framebuffer and read it back as an image.

Used by ``--record`` and the tests. Needs a GL context: under ``ARCADE_HEADLESS=1``
(set before arcade is imported) `headless_window()` makes one with no display.
"""
from __future__ import annotations

import os

import numpy as np
from PIL import Image

_window = None
READ_STRIP_BYTES = 4 << 20    # bytes read back from the GPU at a time: an 8192-px-wide picture in 170-row strips


def headless_window(width: int = 1280, height: int = 720):
    """The process's one hidden arcade window (a GL context), created on first use."""
    global _window
    if _window is None:
        os.environ.setdefault("ARCADE_HEADLESS", "1")
        import arcade
        _window = arcade.Window(int(width), int(height), "ropework", visible=False)
    return _window


class Offscreen:
    """A colour framebuffer of the scene's size that a scene is drawn into."""

    def __init__(self, ctx, size):
        self.ctx = ctx
        self.size = (int(size[0]), int(size[1]))
        self.fbo = ctx.framebuffer(color_attachments=[ctx.texture(self.size, components=4)])

    def render(self, scene) -> None:
        with self.fbo.activate():
            self.ctx.viewport = (0, 0, *self.size)
            self.fbo.clear(color=tuple(int(round(c * 255)) for c in scene.background))
            scene.draw(self.ctx)

    def pixels(self) -> np.ndarray:
        """uint8[h, w, 4], top row first."""
        data = self.fbo.read(components=4)
        return np.frombuffer(data, np.uint8).reshape(self.size[1], self.size[0], 4)[::-1]

    def image(self) -> Image.Image:
        return Image.fromarray(np.ascontiguousarray(self.pixels()))   # uint8[h, w, 4]: RGBA

    def strips(self):
        """The picture as uint8[rows, w, 3] RGB strips, top strip first, each at most READ_STRIP_BYTES."""
        w, h = self.size
        rows = max(1, READ_STRIP_BYTES // (3 * w))
        for top in range(0, h, rows):                   # GL rows count from the bottom
            n = min(rows, h - top)
            data = self.fbo.read(viewport=(0, h - top - n, w, n), components=3)
            yield np.frombuffer(data, np.uint8).reshape(n, w, 3)[::-1]

    def rgb(self) -> Image.Image:
        """The picture as an RGB image, top row first, read in strips so the pixels are held once."""
        w, h = self.size
        im = Image.new("RGB", (w, h))
        top = 0
        for strip in self.strips():
            im.paste(Image.fromarray(np.ascontiguousarray(strip)), (0, top))
            top += len(strip)
        return im

    def release(self) -> None:
        """Free the framebuffer now rather than at the next garbage collection."""
        for tex in self.fbo.color_attachments:
            tex.delete()
        self.fbo.delete()


def snapshot(scene) -> np.ndarray:
    """Render ``scene`` once off-screen; uint8[h, w, 4], top row first."""
    win = headless_window()
    off = Offscreen(win.ctx, (scene.width, scene.height))
    off.render(scene)
    return off.pixels()
