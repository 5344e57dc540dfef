"""A CPU image of what one draw covers: painted by a kernel, uploaded once, composited by one quad.

Where llvmpipe's per-primitive cost dominates (100,000 instanced quads cost ~90 ms before
any pixel, docs/performance.md), a numba kernel can paint the pixels itself and hand the
GPU one texture. `Canvas.begin` sizes a float32 premultiplied RGBA image to the pixels the
bound framebuffer's viewport covers — the intersection of ``ctx.viewport`` with the
framebuffer, so a band of `ropework.render.Offscreen` (its viewport is the whole picture
shifted past the band) and a scene drawn scaled into a smaller framebuffer both work — and
clears it to transparent; `View` says which scene point each pixel centre is, exactly as
the GPU evaluates a fragment there (the shaders' ``scene_to_clip`` and glViewport, y flipped);
`Canvas.show` uploads the image to a reused texture and draws it with (ONE,
ONE_MINUS_SRC_ALPHA), which equals blending each painted primitive "over" in turn.

Row 0 of `Canvas.image` is the bottom row of the covered rectangle (GL's order), so the
image uploads as it is. Its buffers are reused frame to frame (regrown only when a larger
rectangle comes) and bounded by MAX_PIXELS.

Into an 8-bit framebuffer (the window's, `Offscreen`'s) the image goes up as 8-bit RGBA
(`Canvas.pixels`, filled by `quantize` as GL rounds a float into an 8-bit channel): a quarter
of the bytes. Measured at 1280×720 (CPU ms, load 4-7): a random image's upload
2.9 → 0.8 and composite 10.5 → 7.3 alone; in the 100,000-dot grid's frame (`python -m
bench.splat`) upload 4.1 → 2.4, composite 7.8 → 7.4. The picture moves by about a level at
most from the float upload's (each premultiplied channel and alpha rounded once before the
blend, ±½ level each; the 100,000-dot grid and rope pictures: 1 level at a few pixels). A
float framebuffer gets the float image, unrounded. A painter that fills `pixels` itself (the
dot splat, from a scratch band that stays in its core's cache) says so to `upload`.

Into an 8-bit framebuffer with one sample a pixel and no scissor, `composite` does not draw the
blended quad: it reads the covered pixels back, blends the image "over" them on the CPU (`over`,
GL's 8-bit blend rounded to nearest) and writes the result straight into the framebuffer's
RGBA8 texture (`Offscreen`'s), or blits it in (glBlitFramebuffer: the window's framebuffer). On
llvmpipe the full-viewport textured quad costs ~8 ms CPU at 1280×720 whatever its shader (its
fragments), the read-back ~0.8, `over` ~1 (one thread), the texture write ~0.9 and the blit ~0.8.
Measured in the 100,000-dot frame (`python -m bench.splat`): composite 8.2 → 3.8 ms
CPU at load 6-7, 10.4 → 3.5 at load 3 (the draw 65.2 → 55.7). The picture is the quad's: equal in the shipped levels and the 100,000-dot grid,
a level at ~0.02 % of channels over random pixels (where llvmpipe's multiply rounds the other way).
It reads what is under the image, so whatever was drawn before shows through as with the quad.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ropework.systems.services import split
from ropework.systems.services.kernels import kernel

MAX_PIXELS = 8192 * 1024   # pixels a canvas may hold (16 B each and 4 for the 8-bit copy: 160 MiB): an Offscreen band
                           # (8192 px wide, 1024 rows) or a 3840×2160 window; a bigger viewport is left to the GPU path

# A full-viewport blit (the canvas here, the dot grid's sleep cache): one triangle over the viewport,
# texture coordinates 0..1 across it, the texture at unit 0 as it is.
BLIT_VS = """
#version 330
out vec2 v_uv;
void main() {
    vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);   // one triangle covering the viewport
    v_uv = p;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
"""

BLIT_FS = """
#version 330
uniform sampler2D u_src;
in vec2 v_uv;
out vec4 out_colour;
void main() { out_colour = texture(u_src, v_uv); }
"""


QUANTIZE_ROWS = 64   # rows per job of `Canvas.upload`'s conversion to 8 bits (both threads share it)


@kernel(error_model="numpy", fastmath=True)
def quantize(image, pixels, row0, row1):
    """Rows row0..row1-1 of ``image`` (float32[h, w, 4]) into ``pixels`` (uint8[h, w, 4]) as GL stores
    a float in an 8-bit normalised channel: clamped to 0..1, times 255, rounded to nearest."""
    w = image.shape[1]
    zero, one, scale, half = np.float32(0.0), np.float32(1.0), np.float32(255.0), np.float32(0.5)
    for j in range(row0, row1):
        src = image[j].reshape(w * 4)
        dst = pixels[j].reshape(w * 4)
        for i in range(w * 4):
            dst[i] = np.uint8(min(max(src[i], zero), one) * scale + half)


@kernel(error_model="numpy", fastmath=True)
def over(pixels, under, out, row0, row1):
    """Rows row0..row1-1 of ``pixels`` (uint8[h, w, 4], premultiplied) blended "over" ``under`` (what the
    framebuffer held there) into ``out``, every channel as GL's (ONE, ONE_MINUS_SRC_ALPHA) blend of
    8-bit values: s + round(u·(255 − a)/255). A pixel is one little-endian uint32 (alpha the top byte)
    and two channels are scaled at once in its 16-bit halves, exactly ((t + (t >> 8)) >> 8 with
    t = x·k + 128 is round(x·k/255) for x·k <= 255²); a premultiplied channel is at most its alpha, so
    no sum passes 255 and nothing carries between channels."""
    w = pixels.shape[1]
    m, half, high = np.uint32(0x00FF00FF), np.uint32(0x00800080), np.uint32(0xFF00FF00)
    eight, full = np.uint32(8), np.uint32(255)
    for j in range(row0, row1):
        src = pixels[j].reshape(w * 4).view(np.uint32)
        dst = under[j].reshape(w * 4).view(np.uint32)
        res = out[j].reshape(w * 4).view(np.uint32)
        for i in range(w):
            s, d = src[i], dst[i]
            k = full - (s >> np.uint32(24))
            rb = (d & m) * k + half
            rb = ((rb + ((rb >> eight) & m)) >> eight) & m
            ag = ((d >> eight) & m) * k + half
            ag = (ag + ((ag >> eight) & m)) & high
            res[i] = s + (rb | ag)


def eight_bit(fbo) -> bool:
    """Whether ``fbo`` keeps 8 bits a channel (the window's framebuffer, an RGBA8 texture)."""
    attached = fbo.color_attachments
    return not attached or attached[0].dtype == "f1"


@dataclass(frozen=True)
class View:
    """The framebuffer pixels a canvas covers and the scene point at each pixel's centre.

    rect: (x, y, w, h) in framebuffer pixels (GL: y up), the viewport ∩ the framebuffer.
    Pixel (column i, row j) of the image, row 0 at the bottom, has its centre at scene
    (x0 + i·dx, y0 + j·dy), scene pixels with y down (dy < 0).
    """

    rect: tuple[int, int, int, int]
    x0: float
    dx: float
    y0: float
    dy: float


def view(viewport, framebuffer_size, scene_size) -> View | None:
    """Where a scene of ``scene_size`` px, drawn through ``viewport`` (x, y, w, h) into a framebuffer
    of ``framebuffer_size``, lands: None when the viewport covers no pixel of the framebuffer."""
    vx, vy, vw, vh = (int(v) for v in viewport)
    fw, fh = (int(v) for v in framebuffer_size)
    x, y = max(vx, 0), max(vy, 0)
    w, h = min(vx + vw, fw) - x, min(vy + vh, fh) - y
    if w <= 0 or h <= 0 or vw <= 0 or vh <= 0:
        return None
    sw, sh = float(scene_size[0]), float(scene_size[1])
    # glViewport: window x = vx + (clip x + 1)·vw/2, and scene_to_clip: clip x = 2·q.x/sw − 1, so
    # q.x = (window x − vx)·sw/vw; window y = vy + (1 − q.y/sh)·vh, so q.y = sh·(1 − (window y − vy)/vh).
    return View((x, y, w, h), x0=(x + 0.5 - vx) * sw / vw, dx=sw / vw,
                y0=sh * (1.0 - (y + 0.5 - vy) / vh), dy=-sh / vh)


class Canvas:
    """One reusable image, its texture and the quad that composites it (see the module's docstring)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.program = ctx.program(vertex_shader=BLIT_VS, fragment_shader=BLIT_FS)
        self.empty = ctx.geometry()
        self.texture = None
        self.view: View | None = None    # what `image` covers, set by `begin`
        self.image = np.zeros((0, 0, 4), np.float32)   # float32[h, w, 4] premultiplied RGBA, row 0 at the bottom
        self._store = np.zeros(0, np.float32)          # the buffer `image` is a view of, regrown only upwards
        self.eight = True                               # whether the bound framebuffer is 8-bit (set by `begin`)
        self.pixels = np.zeros((0, 0, 4), np.uint8)     # uint8[h, w, 4]: `image` rounded, what goes up when `eight`
        self._store8 = np.zeros(0, np.uint8)
        self.fresh = False       # whether `texture` holds `pixels` (an 8-bit upload is written when the quad needs it)
        self.under = np.zeros((0, 0, 4), np.uint8)      # uint8[h, w, 4]: the framebuffer read back under the image ...
        self.blended = np.zeros((0, 0, 4), np.uint8)    # ... and the image blended over it, on the CPU
        self.blend_fbo = None    # a framebuffer holding `blended` in its texture, blitted to the bound one
        self.blits = 0           # composites done by read-back and blit (the tests read it)
        self.gain = 1.0          # the composite adds the image × this ("over" with the source scaled: a light kept
                                 # in other units than the image's, as the tendrils' over their LIGHT_RANGE)

    def region(self, scene_size) -> View | None:
        """The view of the bound framebuffer's viewport; None when it covers nothing or more than MAX_PIXELS."""
        ctx = self.ctx
        v = view(ctx.viewport, ctx.fbo.size, scene_size)
        if v is None or v.rect[2] * v.rect[3] > MAX_PIXELS:
            return None
        return v

    def begin(self, scene_size, clear: bool = True) -> View | None:
        """Size `image` to the bound viewport (see `region`) and clear it to transparent (unless
        ``clear`` is False: the caller paints every pixel). None, and nothing changed, when it
        does not fit."""
        v = self.region(scene_size)
        if v is None:
            return None
        w, h = v.rect[2], v.rect[3]
        if self._store.size < w * h * 4:
            self._store = np.zeros(w * h * 4, np.float32)
        self.image = self._store[:w * h * 4].reshape(h, w, 4)
        self.eight = eight_bit(self.ctx.fbo)
        if self.eight:
            if self._store8.size < w * h * 4:
                self._store8 = np.zeros(w * h * 4, np.uint8)
            self.pixels = self._store8[:w * h * 4].reshape(h, w, 4)
        if clear:
            self.image.fill(0.0)
        self.view = v
        return v

    def show(self) -> None:
        """Upload `image` and composite it."""
        self.upload()
        self.composite()

    def upload(self, quantized: bool = False) -> None:
        """Send the picture to the texture: `pixels` into an 8-bit framebuffer (converted from `image`
        here unless ``quantized``: the painter filled it), else `image`."""
        h, w = self.image.shape[:2]
        dtype = "f1" if self.eight else "f4"
        if self.texture is None or self.texture.size != (w, h) or self.texture.dtype != dtype:
            if self.texture is not None:
                self.texture.delete()
            self.texture = self.ctx.texture((w, h), components=4, dtype=dtype)
            self.texture.filter = self.ctx.NEAREST, self.ctx.NEAREST   # texel centres land on pixel centres
        if not self.eight:
            self.texture.write(self.image)
            return
        if not quantized:
            split.run((quantize, (self.image, self.pixels, a, b)) for a, b in split.pieces(h, QUANTIZE_ROWS))
        self.fresh = False       # `composite` writes it: the blit path sends the blended picture instead

    def _blittable(self) -> bool:
        """Whether the bound framebuffer can take the picture by read-back and blit: 8 bits a channel,
        one sample a pixel, no scissor (a blit would honour it, as a quad does, but keep it simple), and
        the image's rectangle inside it."""
        ctx = self.ctx
        if not self.eight or self.gain != 1.0 or ctx.scissor is not None or not eight_bit(ctx.fbo):
            return False
        x, y, w, h = self.view.rect
        fw, fh = ctx.fbo.size
        if x + w > fw or y + h > fh:    # an image kept from another framebuffer: the quad, which GL clips
            return False
        from pyglet import gl
        samples = gl.GLint(0)
        gl.glGetIntegerv(gl.GL_SAMPLE_BUFFERS, samples)
        return samples.value == 0

    def _blit(self, rows: tuple[int, int] | None = None) -> None:
        """Composite by reading the framebuffer back, blending on the CPU (`over`) and blitting the
        opaque result in: on llvmpipe a fraction of the blended quad's cost (see the module's docstring).
        ``rows``: only the image's rows [a, b) (the rest is transparent), whole rows."""
        from pyglet import gl
        ctx, (x, y, w, h) = self.ctx, self.view.rect
        a, b = (0, h) if rows is None else (max(0, rows[0]), min(h, rows[1]))
        if b <= a:
            return
        if self.under.shape[:2] != (h, w):
            self.under = np.zeros((h, w, 4), np.uint8)
            self.blended = np.zeros((h, w, 4), np.uint8)
        target = ctx.fbo
        gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, target.glo)
        gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 4)
        gl.glReadPixels(x, y + a, w, b - a, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, self.under[a:b].ctypes.data)
        split.run((over, (self.pixels, self.under, self.blended, i, j))
                  for i, j in split.pieces(b - a, QUANTIZE_ROWS) for i, j in [(a + i, a + j)])
        texture = self._direct(target)
        if texture is not None:
            texture.write(self.blended[a:b], viewport=(x, y + a, w, b - a))   # an Offscreen's texture: straight in
            self.blits += 1
            return
        if self.blend_fbo is None or self.blend_fbo.size != (w, h):     # the window's framebuffer: by a blit
            if self.blend_fbo is not None:
                self._drop_blend()
            self.blend_fbo = ctx.framebuffer(color_attachments=[ctx.texture((w, h), components=4, dtype="f1")])
        self.blend_fbo.color_attachments[0].write(self.blended[a:b], viewport=(0, a, w, b - a))
        gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, self.blend_fbo.glo)
        gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, target.glo)
        gl.glBlitFramebuffer(0, a, w, b, x, y + a, x + w, y + b, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)
        gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, target.glo)
        self.blits += 1

    @staticmethod
    def _direct(target):
        """The RGBA8 texture ``target`` draws into, which the picture can be written into (None: the window's
        framebuffer, or more than one attachment: blit)."""
        attached = target.color_attachments
        if len(attached) == 1 and attached[0].components == 4 and attached[0].dtype == "f1":
            return attached[0]
        return None

    def _drop_blend(self) -> None:
        for tex in self.blend_fbo.color_attachments:
            tex.delete()
        self.blend_fbo.delete()
        self.blend_fbo = None

    def composite(self) -> None:
        """Draw the last uploaded image over the rectangle it covers (again, for a cached image):
        premultiplied "over", with blending enabled; the viewport and blend function are restored."""
        ctx, v = self.ctx, self.view
        if self.texture is None or v is None:
            return
        if self._blittable():
            self._blit()
            return
        if self.eight and not self.fresh:
            self.texture.write(self.pixels)
            self.fresh = True
        vp, blend = tuple(ctx.viewport), ctx.blend_func
        ctx.enable(ctx.BLEND)
        if self.gain != 1.0:
            from pyglet import gl
            g = float(self.gain)
            gl.glBlendColor(g, g, g, g)
            ctx.blend_func = gl.GL_CONSTANT_COLOR, ctx.ONE_MINUS_SRC_ALPHA
        else:
            ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA
        ctx.viewport = v.rect
        self.texture.use(0)
        self.program["u_src"] = 0
        self.empty.render(self.program, mode=ctx.TRIANGLES, vertices=3)
        ctx.viewport = vp
        ctx.blend_func = blend

    def release(self) -> None:
        if self.texture is not None:
            self.texture.delete()
            self.texture = None
        if self.blend_fbo is not None:
            self._drop_blend()
        self.under = self.blended = np.zeros((0, 0, 4), np.uint8)
        self._store = np.zeros(0, np.float32)
        self.image = np.zeros((0, 0, 4), np.float32)
        self._store8 = np.zeros(0, np.uint8)
        self.pixels = np.zeros((0, 0, 4), np.uint8)
