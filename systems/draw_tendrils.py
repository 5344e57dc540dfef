"""Draw tendrils: additive glowing ropes, sparks and a pointer glow, into light trails that fade.

Reads: Points, Ropes, TendrilLook, Tendrils.electrified, Sparks, Pointer, Layer,
Frame (steps, dt, width, height). Writes: the framebuffer.

The window's back buffer is not kept between frames, so each bundle owns an
off-screen *light* buffer (RGBA16F, two textures used in turn) that persists.
Each frame in which the simulation has advanced:
  1. fade: the light left from before is clamped to 1 and multiplied by
     keep^(60·elapsed), elapsed = the scene time since the last drawn frame —
     78% per 1/60 s whatever the display rate (the seed's 1 − 0.78^(60·dt) fill);
  2. add, with additive blending (canvas "lighter"): every rope's wide glow
     stroke (width × 6, alpha 0.14) and thin core (alpha 0.85) — white while
     electrified — then the live sparks as 2×2 px squares with alpha
     min(1, 2·life), then a 40 px radial glow at the pointer;
  3. show: the light is drawn over the backdrop colour (the seed's #050508), or
     added onto the layers below when the backdrop's alpha is 0.
A frame drawn again with no step in between only shows the light (it adds
nothing twice). The light is kept in float and clamped when it fades, which is
what the seed's 8-bit canvas does, minus its ghost pixels that never fade out.
The light has one texel per target pixel unless the scene's bundles together would
pass MAX_LIGHT_PIXELS (an 8192² recording): then each keeps it coarser, scaled up
with bilinear filtering when shown, so memory stays bounded by the cap.
Draw calls per frame are fixed (fade, glow, core, sparks, pointer glow, show),
whatever the number of ropes and sparks.

Only the light's *lit box* is faded and shown: the bounds of what was added in the
frames whose light has not yet faded below LIT_FLOOR (about half a second at the
seed's keep), padded by the glow's half-width. Everything is added scissored to
that box and the fade writes 0 where a texture held light outside it, so outside
the box the light is exactly 0 and showing it there is the backdrop alone: a clear.
(The fade and the show over the whole window were about half the bundle's draw on
llvmpipe; at rest the box is about a fifth of a 1280×720 window.)
"""
from __future__ import annotations

import esper
import numpy as np
from arcade.gl import BufferDescription

from ropework.components import Layer, Pointer, Points, Ropes
from ropework.components.sparks import Sparks
from ropework.components.tendrils import TendrilLook, Tendrils
from ropework.systems.services import gfx
from ropework.components.frame import STEP

# The pointer glow: a radial gradient (canvas stops), rgba at radius fractions 0, 0.3, 1.
GLOW_INNER = (1.0, 1.0, 1.0, 0.8)                 # white-hot centre
GLOW_MID = (25 / 255, 240 / 255, 1.0, 0.25)       # cyan at 30% of the radius
GLOW_OUTER = (25 / 255, 240 / 255, 1.0, 0.0)      # cyan, gone at the rim
GLOW_MID_AT = 0.3                                 # where the middle stop sits, fraction of the radius
LIT_FLOOR = 1 / 4096    # light below this (of full white) is dropped to 0 when its region leaves the lit box:
                        # an eighth of one 8-bit level; the seed's canvas loses it sooner
LIT_BOXES = 64          # boxes of added light remembered at most; past it the two oldest merge into their union
                        # (a keep near 1 fades slowly, and the list must not grow without end)
LIT_PAD = 4.0           # px past a stroke's half-width and a glow's radius kept in the lit box (its smoothing
                        # and anti-aliased rim; a curve between points bulges less than a segment)
MAX_LIGHT_PIXELS = 3840 * 2160    # light texels of all a scene's bundles together (two RGBA16F each: ~133 MB at most);
                                  # past it (an 8192² recording, dozens of layers) each keeps its light coarser, drawn smoothed

_FULL_VS = """
#version 330
in vec2 in_pos;
out vec2 v_uv;
void main() { v_uv = in_pos * 0.5 + 0.5; gl_Position = vec4(in_pos, 0.0, 1.0); }
"""

_RECT_VS = """
#version 330
uniform vec4 rect;       // the texels to cover: x0, y0, x1, y1 as fractions of the light (whole texels)
in vec2 in_pos;
out vec2 v_uv;
void main() {
    v_uv = mix(rect.xy, rect.zw, in_pos * 0.5 + 0.5);
    gl_Position = vec4(v_uv * 2.0 - 1.0, 0.0, 1.0);
}
"""

_FADE_FS = """
#version 330
uniform sampler2D light;
uniform float keep;
uniform vec4 lit;        // texels x0, y0, x1, y1 that keep their light; 0 is written outside them
in vec2 v_uv;
out vec4 out_colour;
void main() {
    bool inside = all(greaterThanEqual(gl_FragCoord.xy, lit.xy)) && all(lessThan(gl_FragCoord.xy, lit.zw));
    out_colour = inside ? vec4(clamp(texture(light, v_uv).rgb, 0.0, 1.0) * keep, 1.0) : vec4(0.0, 0.0, 0.0, 1.0);
}
"""

_SHOW_FS = """
#version 330
uniform sampler2D light;
uniform vec3 backdrop;   // black when the light is added onto what is below
in vec2 v_uv;
out vec4 out_colour;
void main() { out_colour = vec4(min(backdrop + clamp(texture(light, v_uv).rgb, 0.0, 1.0), vec3(1.0)), 1.0); }
"""

_GLOW_VS = """
#version 330
uniform vec2 viewport;
uniform vec2 centre;
uniform float radius;
in vec2 in_pos;
out vec2 v_local;
void main() {
    vec2 q = centre + in_pos * radius;
    gl_Position = scene_to_clip(q, viewport);
    v_local = in_pos;
}
"""

_GLOW_FS = """
#version 330
uniform vec4 inner;
uniform vec4 mid;
uniform vec4 outer;
uniform float mid_at;
in vec2 v_local;
out vec4 out_colour;
void main() {
    float d = length(v_local);
    if (d >= 1.0) discard;
    vec4 c = d < mid_at ? mix(inner, mid, d / mid_at) : mix(mid, outer, (d - mid_at) / (1.0 - mid_at));
    out_colour = c;
}
"""


def light_size(target: tuple[int, int], bundles: int) -> tuple[int, int]:
    """Texels (w, h) of each of ``bundles`` light buffers for a ``target`` of that many pixels:
    one per pixel, or fewer in proportion when all of them would pass MAX_LIGHT_PIXELS."""
    w, h = target
    scale = min(1.0, (MAX_LIGHT_PIXELS / max(1, bundles * w * h)) ** 0.5)
    return (w, h) if scale == 1.0 else (max(1, int(w * scale)), max(1, int(h * scale)))


class _Trail:
    """One bundle's GL objects: the two light textures, strokes, spark quads."""

    def __init__(self, ctx, size, n_sparks, coarse=False):
        self.size = size
        self.coarse = coarse        # fewer texels than target pixels (MAX_LIGHT_PIXELS)
        self.tex = [ctx.texture(size, components=4, dtype="f2", filter=(ctx.NEAREST, ctx.NEAREST))
                    for _ in range(2)]
        self.fbo = [ctx.framebuffer(color_attachments=[t]) for t in self.tex]
        for f in self.fbo:
            f.clear()
        self.current = 0            # the texture holding the latest light
        self.lit = []               # [x0, y0, x1, y1, left]: texel boxes (y up) of light added, and the share
                                    # of it the fades since have left (at most: it is clamped to 1 first)
        self.box = None             # the lit box (x0, y0, x1, y1 texels, y up): their union, or None
        self.held = [None, None]    # per texture, the box outside which its light is 0 (None: all of it is 0)
        self.steps = None           # Frame.steps when the light was last added
        self.strokes = gfx.Strokes(ctx)
        self.sparks = gfx.Quads(ctx)
        self.spark_data = np.zeros(n_sparks, gfx.QUAD_DTYPE)


class DrawTendrils:
    def __init__(self):
        self._trails: dict[int, _Trail] = {}
        self._gl = None

    def _programs(self, ctx):
        if self._gl is None:
            full = ctx.geometry([BufferDescription(
                ctx.buffer(data=np.array([-1, -1, 1, -1, -1, 1, 1, 1], np.float32).tobytes()), "2f", ["in_pos"])],
                mode=ctx.TRIANGLE_STRIP)
            self._gl = {
                "quad": full,
                "fade": ctx.program(vertex_shader=_RECT_VS, fragment_shader=_FADE_FS),
                "show": ctx.program(vertex_shader=_RECT_VS, fragment_shader=_SHOW_FS),
                "glow": ctx.program(vertex_shader=gfx.vertex_shader(_GLOW_VS), fragment_shader=_GLOW_FS),
            }
        return self._gl

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._trails)
        found = esper.get_components(Points, Ropes, TendrilLook, Tendrils, Layer)
        if not any(layer.name == layer_name for _, (*_, layer) in found):
            return
        gl = self._programs(ctx)
        ptr = next((p for _, p in esper.get_component(Pointer)), None)
        target = tuple(int(v) for v in ctx.viewport[2:])
        size = light_size(target, len(found))
        for ent, (pts, ropes, look, td, layer) in found:
            if layer.name != layer_name:
                continue
            sp = esper.try_component(ent, Sparks)
            trail = self._trails.get(ent)
            if trail is None or trail.size != size:
                trail = self._trails[ent] = _Trail(ctx, size, sp.size if sp is not None else 0, size != target)
            if trail.steps != frame.steps:
                elapsed = 0.0 if trail.steps is None else (frame.steps - trail.steps) * frame.dt
                trail.steps = frame.steps
                self._add_light(ctx, gl, frame, trail, pts, ropes, look, td, sp, ptr, elapsed)
            self._show(ctx, gl, trail, look)

    def _add_light(self, ctx, gl, frame, trail, pts, ropes, look, td, sp, ptr, elapsed):
        viewport = (frame.width, frame.height)
        src, dst = trail.current, 1 - trail.current
        saved = ctx.viewport
        keep = float(look.keep ** (elapsed / STEP)) if elapsed > 0 else 0.0
        box = self._lit_box(frame, trail, pts, look, sp, ptr, keep)
        with trail.fbo[dst].activate():
            ctx.disable(ctx.BLEND)
            cover = _union(box, trail.held[src], trail.held[dst])   # every texel that may hold light
            if cover is not None:
                trail.tex[src].use(0)
                fade = gl["fade"]
                fade["light"] = 0
                fade["keep"] = keep
                fade["lit"] = tuple(float(v) for v in box)
                fade["rect"] = _fractions(cover, trail.size)
                gl["quad"].render(fade)
            trail.held[dst] = box
            trail.fbo[dst].scissor = _scissor(box)             # nothing lands outside the lit box
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE          # additive, as canvas "lighter"
            trail.strokes.upload(pts.pos, ropes.start, ropes.count, look.colour, look.width)
            # A coarse light (texels wider than pixels) draws the thin core a texel wide at the same
            # light per length: thinner than a texel, it would break into dashes when scaled up.
            thick = max(1.0, frame.width / trail.size[0]) if trail.coarse else 1.0
            if td.electrified:
                trail.strokes.draw(viewport, width_scale=look.glow_width, override=look.electric_glow)
                trail.strokes.draw(viewport, width_scale=thick, alpha_scale=1.0 / thick, override=look.electric_core)
            else:
                trail.strokes.draw(viewport, width_scale=look.glow_width, alpha_scale=look.glow_alpha)
                trail.strokes.draw(viewport, width_scale=thick, alpha_scale=look.core_alpha / thick)
            if sp is not None and sp.size:
                live = np.flatnonzero(sp.life > 0)
                q = trail.spark_data[:live.size]
                half = look.spark_size / 2
                q["centre"] = sp.pos[live] + half          # the seed fills a square from (x, y) right and down
                q["half"] = half
                q["colour"] = look.colour[sp.rope[live]]
                q["colour"][:, 3] = np.minimum(1.0, 2.0 * sp.life[live])
                q["round"] = 0.0
                trail.sparks.upload(q)
                trail.sparks.draw(viewport)
            if ptr is not None and ptr.inside and look.pointer_glow > 0:
                g = gl["glow"]
                g["viewport"] = tuple(float(v) for v in viewport)
                g["centre"] = (float(ptr.x), float(ptr.y))
                g["radius"] = float(look.pointer_glow)
                g["inner"], g["mid"], g["outer"], g["mid_at"] = GLOW_INNER, GLOW_MID, GLOW_OUTER, GLOW_MID_AT
                gl["quad"].render(g)
            ctx.blend_func = ctx.BLEND_DEFAULT
            trail.fbo[dst].scissor = None
        ctx.viewport = saved
        trail.current = dst

    @staticmethod
    def _lit_box(frame, trail, pts, look, sp, ptr, keep):
        """The lit box after this frame's fade by ``keep`` and what it adds (texels, y up)."""
        sx, sy = trail.size[0] / max(frame.width, 1.0), trail.size[1] / max(frame.height, 1.0)
        trail.lit = [b for b in trail.lit if b[4] * keep >= LIT_FLOOR]
        for b in trail.lit:
            b[4] *= keep
        pad = float(np.max(look.width, initial=0.0)) * max(look.glow_width, 1.0) / 2 + LIT_PAD
        parts = [pts.pos[:, :2].min(axis=0) - pad, pts.pos[:, :2].max(axis=0) + pad] if len(pts.pos) else []
        if sp is not None and sp.size:
            live = sp.pos[sp.life > 0]
            if len(live):
                parts += [live.min(axis=0) - LIT_PAD, live.max(axis=0) + look.spark_size + LIT_PAD]
        if ptr is not None and ptr.inside and look.pointer_glow > 0:
            r = look.pointer_glow + LIT_PAD
            parts += [np.array([ptr.x - r, ptr.y - r]), np.array([ptr.x + r, ptr.y + r])]
        if parts:
            lo, hi = np.min(parts, axis=0), np.max(parts, axis=0)
            x0 = max(0, int(np.floor(lo[0] * sx)))
            x1 = min(trail.size[0], int(np.ceil(hi[0] * sx)))
            y0 = max(0, trail.size[1] - int(np.ceil(hi[1] * sy)))       # scene y runs down, texels up
            y1 = min(trail.size[1], trail.size[1] - int(np.floor(lo[1] * sy)))
            if x1 > x0 and y1 > y0:
                trail.lit.append([x0, y0, x1, y1, 1.0])
        if len(trail.lit) > LIT_BOXES:                                    # the oldest two as one, as bright as either
            a, b = trail.lit[0], trail.lit[1]
            trail.lit[:2] = [[*_union(tuple(a[:4]), tuple(b[:4])), max(a[4], b[4])]]
        trail.box = _union(*(tuple(b[:4]) for b in trail.lit))
        return trail.box if trail.box is not None else (0, 0, 0, 0)

    def _show(self, ctx, gl, trail, look):
        shown = trail.tex[trail.current]
        shown.use(0)
        if trail.coarse:
            shown.filter = ctx.LINEAR, ctx.LINEAR       # smooth when scaled up; the fade reads texel for texel
        show = gl["show"]
        show["light"] = 0
        opaque = look.backdrop[3] > 0
        show["backdrop"] = tuple(float(c) for c in look.backdrop[:3]) if opaque else (0.0, 0.0, 0.0)
        box = trail.held[trail.current]
        if trail.coarse and box is not None:       # smoothed up, a texel reaches half a texel past its box
            box = (max(0, box[0] - 1), max(0, box[1] - 1), min(trail.size[0], box[2] + 1), min(trail.size[1], box[3] + 1))
        if opaque:
            ctx.disable(ctx.BLEND)                 # backdrop + light replaces what is below
            _clear_viewport(ctx, look.backdrop[:3])  # where there is no light, the backdrop is all there is
        else:
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.ONE, ctx.ONE      # the light is added onto what is below
        if box is not None:
            show["rect"] = _fractions(box, trail.size)
            gl["quad"].render(show)
        if trail.coarse:
            shown.filter = ctx.NEAREST, ctx.NEAREST
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.BLEND_DEFAULT


def _union(*boxes):
    """The bounding box (x0, y0, x1, y1) of the boxes that are not None, or None."""
    boxes = [b for b in boxes if b is not None and b[2] > b[0] and b[3] > b[1]]
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _fractions(box, size) -> tuple[float, float, float, float]:
    """A texel box as fractions of the light's size: a quad over exactly those texels."""
    return box[0] / size[0], box[1] / size[1], box[2] / size[0], box[3] / size[1]


def _scissor(box) -> tuple[int, int, int, int]:
    return int(box[0]), int(box[1]), max(0, int(box[2] - box[0])), max(0, int(box[3] - box[1]))


def _clear_viewport(ctx, colour) -> None:
    """Clear the bound framebuffer's viewport — GL's own, in real pixels (a HiDPI window's too) — to ``colour``.

    GL's scissor state is put back exactly as it was: arcade enables the scissor test once, for
    good, and expresses "no scissor" as a box over the viewport, so a scissor test left off here
    would silently unclip every later scissored draw (the stroke painter's composites)."""
    from pyglet import gl as raw
    v = (raw.GLint * 4)()
    raw.glGetIntegerv(raw.GL_VIEWPORT, v)
    was = (raw.GLint * 4)()
    raw.glGetIntegerv(raw.GL_SCISSOR_BOX, was)
    enabled = raw.glIsEnabled(raw.GL_SCISSOR_TEST)
    raw.glEnable(raw.GL_SCISSOR_TEST)
    raw.glScissor(v[0], v[1], v[2], v[3])
    raw.glClearColor(float(colour[0]), float(colour[1]), float(colour[2]), 1.0)
    raw.glClear(raw.GL_COLOR_BUFFER_BIT)
    raw.glScissor(was[0], was[1], was[2], was[3])
    if not enabled:
        raw.glDisable(raw.GL_SCISSOR_TEST)
