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
BAND_BYTES = 32 << 20         # an off-screen picture's framebuffer at most (RGBA): 8192 px wide, 1024 rows a band


def headless_window(width: int = 1280, height: int = 720):
    """The process's one hidden arcade window (a GL context), created on first use."""
    global _window
    if _window is None:
        os.environ.setdefault("ARCADE_HEADLESS", "1")
        import arcade
        _window = arcade.Window(int(width), int(height), "ropework", visible=False)
    return _window


class Offscreen:
    """A picture of the scene's size that a scene is drawn into, and read back from.

    A picture of up to BAND_BYTES is one framebuffer, drawn by `render`. A larger one
    (an 8192×8192 PNG is 256 MiB of RGBA) is drawn in horizontal bands through one
    framebuffer of at most BAND_BYTES: each band sets a viewport that is the whole
    picture shifted down past the band, so every draw system maps scene pixels as it
    always does and GL clips what falls outside; `strips` draws the bands top first as
    it reads them. The scene must not step between `render` and reading the picture.
    """

    def __init__(self, ctx, size, band_rows: int | None = None):
        self.ctx = ctx
        self.size = (int(size[0]), int(size[1]))
        w, h = self.size
        self.rows = min(h, band_rows or max(1, BAND_BYTES // (4 * w)))    # rows a band holds
        self.fbo = ctx.framebuffer(color_attachments=[ctx.texture((w, self.rows), components=4)])
        self._scene = None
        self._alpha = 1.0
        self._band = None           # the top row (y down) of the band the framebuffer holds

    def render(self, scene, alpha: float = 1.0) -> None:
        """Draw ``scene``: the whole picture, or its first band (the others as they are read);
        ``alpha``: where between its last two steps (`Scene.draw`)."""
        self._scene = scene
        self._alpha = alpha
        self._draw(0)

    def _draw(self, top: int) -> None:
        w, h = self.size
        n = min(self.rows, h - top)
        with self.fbo.activate():
            self.ctx.viewport = (0, 0, w, self.rows)
            self.fbo.clear(color=tuple(int(round(c * 255)) for c in self._scene.background))
            self.ctx.viewport = (0, n + top - h, w, h)    # framebuffer row 0 is picture row h - top - n (GL, y up)
            if self._alpha == 1.0:              # anything with draw(ctx) can be drawn: a Scene, a test's painter
                self._scene.draw(self.ctx)
            else:
                self._scene.draw(self.ctx, self._alpha)
        self._band = top

    def _bands(self):
        """(top, rows) of each band, top first, each drawn before it is yielded."""
        w, h = self.size
        for top in range(0, h, self.rows):
            if self._band != top and self.rows < h:      # one band: whatever was drawn into it is the picture
                self._draw(top)
            yield top, min(self.rows, h - top)

    def strips(self, components: int = 3):
        """The picture as uint8[rows, w, components] strips, top strip first, each at most READ_STRIP_BYTES."""
        w, _ = self.size
        step = max(1, READ_STRIP_BYTES // (components * w))
        for _, n in self._bands():
            for top in range(0, n, step):               # GL rows count from the bottom of the band
                k = min(step, n - top)
                data = self.fbo.read(viewport=(0, n - top - k, w, k), components=components)
                yield np.frombuffer(data, np.uint8).reshape(k, w, components)[::-1]

    def pixels(self) -> np.ndarray:
        """uint8[h, w, 4], top row first."""
        return np.concatenate(list(self.strips(4)))

    def image(self) -> Image.Image:
        return Image.fromarray(self.pixels())   # uint8[h, w, 4]: RGBA

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
