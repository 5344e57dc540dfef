"""The canvas: which scene point each pixel is, through plain, scaled and banded viewports,
and that compositing its premultiplied image is "over"."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.render import Offscreen
from ropework.systems.services.canvas import MAX_PIXELS, Canvas, over, view


class Painter:
    """A stand-in scene for Offscreen (the canvas is under test): it paints each covered pixel
    with its own scene coordinates, R = x/256 and G = y/256 of its centre (mod 1), alpha 1."""

    background = (0.0, 0.0, 0.0, 1.0)

    def __init__(self, ctx, size, paint=None):
        self.canvas = Canvas(ctx)
        self.width, self.height = size
        self.paint = paint or self.coordinates
        self.views = []

    @staticmethod
    def coordinates(image, v):
        h, w = image.shape[:2]
        xs = v.x0 + v.dx * np.arange(w)
        ys = v.y0 + v.dy * np.arange(h)
        image[..., 0] = (np.floor(xs)[None, :] % 256) / 255.0
        image[..., 1] = (np.floor(ys)[:, None] % 256) / 255.0
        image[..., 3] = 1.0

    def draw(self, ctx):
        v = self.canvas.begin((self.width, self.height))
        self.views.append(v)
        self.paint(self.canvas.image, v)
        self.canvas.show()


def expected_coordinates(size, scale):
    """uint8[h, w, 2] of a picture whose pixel (row r, column c) shows scene (c + 0.5, r + 0.5)·scale."""
    w, h = size
    xs = np.floor((np.arange(w) + 0.5) * scale) % 256
    ys = np.floor((np.arange(h) + 0.5) * scale) % 256
    return np.stack(np.broadcast_arrays(xs[None, :], ys[:, None]), axis=-1).astype(int)


def test_each_pixel_shows_the_scene_point_at_its_centre(gl_window):
    scene = Painter(gl_window.ctx, (300, 200))
    off = Offscreen(gl_window.ctx, (300, 200))
    off.render(scene)
    img = off.pixels()
    assert (img[..., :2] == expected_coordinates((300, 200), 1.0)).all()
    assert scene.views[0].rect == (0, 0, 300, 200)


def test_a_scene_drawn_scaled_into_a_smaller_framebuffer(gl_window):
    """A 600×400 scene through a 300×200 viewport: pixel centre (c + 0.5, r + 0.5) is scene 2·that."""
    scene = Painter(gl_window.ctx, (600, 400))
    off = Offscreen(gl_window.ctx, (300, 200))
    off.render(scene)
    assert (off.pixels()[..., :2] == expected_coordinates((300, 200), 2.0)).all()


def test_a_banded_picture_covers_each_band_once(gl_window):
    """Offscreen bands: the viewport is the whole picture shifted down past each band; the canvas
    holds only the band's rows and the assembled picture is the one-piece picture."""
    scene = Painter(gl_window.ctx, (120, 250))
    off = Offscreen(gl_window.ctx, (120, 250), band_rows=64)
    off.render(scene)
    img = off.pixels()[..., :2]
    assert (img == expected_coordinates((120, 250), 1.0)).all()
    assert [v.rect for v in scene.views] == [(0, 0, 120, 64)] * 4    # 64 + 64 + 64 + 58 rows: 4 bands
    assert scene.canvas.image.shape == (64, 120, 4)


def test_the_view_of_a_viewport_past_the_framebuffer():
    v = view((0, -186, 120, 250), (120, 64), (120, 250))    # Offscreen's first band: scene rows 0..63
    assert v.rect == (0, 0, 120, 64)
    assert (v.x0, v.dx) == (0.5, 1.0)
    assert v.y0 == pytest.approx(63.5) and v.dy == -1.0      # framebuffer row 0 (bottom) is scene row 63
    v = view((0, 0, 120, 250), (120, 64), (120, 250))       # its last: rows 192..249 from framebuffer row 0 up
    assert v.rect == (0, 0, 120, 64) and v.y0 == pytest.approx(249.5)
    v = view((-50, 0, 200, 100), (300, 200), (400, 100))    # left of the framebuffer, and scaled 2× in x
    assert v.rect == (0, 0, 150, 100) and (v.x0, v.dx) == (101.0, 2.0)
    assert view((500, 0, 100, 100), (300, 200), (100, 100)) is None


def test_compositing_is_premultiplied_over(gl_window):
    """Half-transparent red (premultiplied 0.5, 0, 0, 0.5) over a blue page: half red, half blue; a
    transparent pixel leaves the page as it was."""
    def paint(image, v):
        image[:, :50] = (0.5, 0.0, 0.0, 0.5)
    scene = Painter(gl_window.ctx, (100, 40), paint)
    scene.background = (0.0, 0.0, 1.0, 1.0)
    off = Offscreen(gl_window.ctx, (100, 40))
    off.render(scene)
    img = off.pixels()[..., :3].astype(int)
    assert np.abs(img[:, :50] - (128, 0, 128)).max() <= 1
    assert (img[:, 50:] == (0, 0, 255)).all()


def test_the_buffers_are_reused_and_bounded(gl_window):
    canvas = Canvas(gl_window.ctx)
    off = Offscreen(gl_window.ctx, (200, 100))
    with off.fbo.activate():
        gl_window.ctx.viewport = (0, 0, 200, 100)
        canvas.begin((200, 100))
        store = canvas._store
        canvas.image[:] = 1.0
        canvas.show()
        gl_window.ctx.viewport = (0, 0, 150, 100)     # smaller: the same buffer, cleared
        canvas.begin((150, 100))
        assert canvas._store is store and canvas.image.shape == (100, 150, 4) and not canvas.image.any()
        gl_window.ctx.viewport = (0, 0, 200, 100)
        assert canvas.region((200, 100)).rect == (0, 0, 200, 100)
    big = gl_window.ctx.framebuffer(color_attachments=[gl_window.ctx.texture((MAX_PIXELS // 1024 + 1, 1024))])
    with big.activate():
        gl_window.ctx.viewport = (0, 0, *big.size)
        assert canvas.region(big.size) is None and canvas.begin(big.size) is None   # one pixel too many
        gl_window.ctx.viewport = (0, 0, big.size[0] - 1, 1024)
        assert canvas.region(big.size) is not None
    assert canvas._store is store


def test_an_8_bit_picture_gets_the_image_rounded_once_a_float_one_unrounded(gl_window):
    """Into an 8-bit framebuffer the image goes up as 8-bit RGBA (`quantize`): the picture is the exact
    "over" of the float image on the 8-bit page to within 1.5 levels (each channel and alpha rounded
    once before the blend, ±½ each, and the blend's own ±½), past one level at few pixels (measured 1.2 %;
    truncating instead of rounding: 5.3 %, mean 0.43). Into a float framebuffer it goes up as floats:
    exact to float rounding."""
    rng = np.random.default_rng(7)
    alpha = rng.random((40, 100, 1)).astype(np.float32)
    colour = (rng.random((40, 100, 3)) * alpha).astype(np.float32)

    def paint(image, v):
        image[..., :3], image[..., 3:] = colour, alpha
    page = np.array((0.2, 0.4, 0.9), np.float32)
    page8 = np.round(page * 255.0) / 255.0                     # the page as the 8-bit framebuffer holds it
    exact = (colour + page8 * (1.0 - alpha))[::-1] * 255.0     # top row first, as read back
    scene = Painter(gl_window.ctx, (100, 40), paint)
    scene.background = (*page, 1.0)
    off = Offscreen(gl_window.ctx, (100, 40))
    off.render(scene)
    assert scene.canvas.texture.dtype == "f1" and scene.canvas.pixels.shape == (40, 100, 4)
    d = np.abs(off.pixels()[..., :3] - exact)
    assert d.max() <= 1.5 and d.mean() < 0.4 and (d > 1.0).mean() < 0.03, (d.max(), d.mean(), (d > 1.0).mean())
    exact = (colour + page * (1.0 - alpha))[::-1] * 255.0
    ctx = gl_window.ctx
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((100, 40), components=4, dtype="f4")])
    with fbo.activate():
        ctx.viewport = (0, 0, 100, 40)
        fbo.clear(color_normalized=(*page, 1.0))
        scene.draw(ctx)
    img = np.frombuffer(fbo.read(components=4, dtype="f4"), np.float32).reshape(40, 100, 4)[::-1, :, :3] * 255.0
    fbo.color_attachments[0].delete()
    fbo.delete()
    assert scene.canvas.texture.dtype == "f4" and np.abs(img - exact).max() < 1e-3


def test_over_is_gls_8_bit_blend_rounded_to_nearest():
    """`over` (two channels at a time in a uint32) is s + round(u·(255 − a)/255) for every channel, exactly."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (30, 50, 1))
    src = np.concatenate([rng.integers(0, a + 1, (30, 50, 3)), a], axis=2).astype(np.uint8)  # premultiplied: c <= a
    under = rng.integers(0, 256, (30, 50, 4)).astype(np.uint8)
    out = np.zeros_like(src)
    over(src, under, out, 0, 30)
    k = 255 - src[..., 3:].astype(int)
    exact = src.astype(int) + np.floor(under.astype(int) * k / 255.0 + 0.5).astype(int)
    assert np.array_equal(out, exact)


@pytest.mark.parametrize("target", ["texture", "blit", "window"])
def test_the_read_back_composite_is_the_blended_quads_picture(gl_window, target):
    """Over whatever is already in the framebuffer (here a different colour at every pixel, partly
    transparent), the read-back composite — written straight into a framebuffer's texture, or blitted
    (the window's framebuffer's way; here into a texture's) — makes the blended quad's picture, to the bit but for a level at
    ~0.02 % of channels, where the software rasteriser's 8-bit multiply rounds the other way, through a viewport that
    covers part of the framebuffer. The test window's framebuffer has 4 samples a pixel, which a blit
    cannot write: it takes the quad, as a scissor does (a blit would not clip like the quad)."""
    ctx = gl_window.ctx
    rng = np.random.default_rng(5)
    under = rng.integers(0, 256, (60, 120, 4)).astype(np.uint8)
    alpha = rng.random((40, 100, 1)).astype(np.float32)
    colour = (rng.random((40, 100, 3)) * alpha).astype(np.float32)
    source = ctx.framebuffer(color_attachments=[ctx.texture((120, 60), components=4)])
    source.color_attachments[0].write(under)
    pictures = []
    for blit in (True, False):
        fbo = ctx.screen if target == "window" else ctx.framebuffer(
            color_attachments=[ctx.texture((120, 60), components=4)])
        canvas = Canvas(ctx)
        if target == "blit":
            canvas._direct = lambda target: None
        if not blit:
            canvas._blittable = lambda: False
        with fbo.activate():
            ctx.viewport = (0, 0, 120, 60)
            if target != "window":
                fbo.color_attachments[0].write(under)
            else:
                from pyglet import gl
                gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, source.glo)
                gl.glBlitFramebuffer(0, 0, 120, 60, 0, 0, 120, 60, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)
                gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, fbo.glo)
            assert np.array_equal(np.frombuffer(fbo.read(viewport=(0, 0, 120, 60), components=4), np.uint8).reshape(60, 120, 4), under)
            ctx.viewport = (10, 5, 100, 40)
            canvas.begin((100, 40))
            canvas.image[..., :3], canvas.image[..., 3:] = colour, alpha
            canvas.show()
            ctx.viewport = (0, 0, 120, 60)
            pictures.append(np.frombuffer(fbo.read(viewport=(0, 0, 120, 60), components=4), np.uint8).reshape(60, 120, 4))
        blits = blit and target != "window"
        assert canvas.blits == blits
        assert (canvas.blend_fbo is not None) == (blits and target == "blit")   # the blit's source, only for it
        canvas.release()
        if target != "window":
            fbo.color_attachments[0].delete()
            fbo.delete()
    source.color_attachments[0].delete()
    source.delete()
    d = np.abs(pictures[0].astype(int) - pictures[1])
    assert d.max() <= 1 and (d > 0).mean() < 1e-3, (d.max(), (d > 0).mean())
    outside = np.ones((60, 120), bool)
    outside[5:45, 10:110] = False
    assert np.array_equal(pictures[0][outside], under[outside]) and not np.array_equal(pictures[0], under)
    canvas = Canvas(ctx)
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((120, 60), components=4)])
    with fbo.activate():
        ctx.viewport = (0, 0, 120, 60)
        ctx.scissor = (0, 0, 60, 60)
        try:
            canvas.begin((120, 60))
            canvas.show()
        finally:
            ctx.scissor = None
    assert canvas.blits == 0
    canvas.release()
    fbo.color_attachments[0].delete()
    fbo.delete()


def test_a_gain_scales_what_the_composite_adds_and_not_what_it_covers(gl_window):
    """gain g: the image P (alpha A) composites as g·P + page·(1 − A), into a float framebuffer and an 8-bit one
    alike (the tendrils keep their light over a range: a painted bundle adds its light in those units)."""
    rng = np.random.default_rng(3)
    alpha = rng.random((40, 100, 1)).astype(np.float32)
    colour = (rng.random((40, 100, 3)) * alpha).astype(np.float32)

    def paint(image, v):
        image[..., :3], image[..., 3:] = colour, alpha
    page = np.array((0.2, 0.4, 0.9), np.float32)
    scene = Painter(gl_window.ctx, (100, 40), paint)
    scene.canvas.gain = 0.25
    ctx = gl_window.ctx
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((100, 40), components=4, dtype="f4")])
    with fbo.activate():
        ctx.viewport = (0, 0, 100, 40)
        fbo.clear(color_normalized=(*page, 1.0))
        scene.draw(ctx)
    img = np.frombuffer(fbo.read(components=4, dtype="f4"), np.float32).reshape(40, 100, 4)[::-1, :, :3]
    fbo.color_attachments[0].delete()
    fbo.delete()
    assert np.abs(img - (0.25 * colour + page * (1.0 - alpha))[::-1]).max() < 1e-4
    scene.background = (*page, 1.0)
    off = Offscreen(ctx, (100, 40))
    off.render(scene)
    page8 = np.round(page * 255.0) / 255.0
    assert scene.canvas.blits == 0                                  # the CPU's "over" knows no gain: the quad
    d = np.abs(off.pixels()[..., :3] - (0.25 * colour + page8 * (1.0 - alpha))[::-1] * 255.0)
    assert d.max() <= 1.5, d.max()
