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
MAX_LIGHT_PIXELS = 3840 * 2160    # light texels of all a scene's bundles together (two RGBA16F each: ~133 MB at most);
                                  # past it (an 8192² recording, dozens of layers) each keeps its light coarser, drawn smoothed

_FULL_VS = """
#version 330
in vec2 in_pos;
out vec2 v_uv;
void main() { v_uv = in_pos * 0.5 + 0.5; gl_Position = vec4(in_pos, 0.0, 1.0); }
"""

_FADE_FS = """
#version 330
uniform sampler2D light;
uniform float keep;
in vec2 v_uv;
out vec4 out_colour;
void main() { out_colour = vec4(clamp(texture(light, v_uv).rgb, 0.0, 1.0) * keep, 1.0); }
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
                "fade": ctx.program(vertex_shader=_FULL_VS, fragment_shader=_FADE_FS),
                "show": ctx.program(vertex_shader=_FULL_VS, fragment_shader=_SHOW_FS),
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
        with trail.fbo[dst].activate():
            ctx.disable(ctx.BLEND)
            trail.tex[src].use(0)
            gl["fade"]["light"] = 0
            gl["fade"]["keep"] = float(look.keep ** (elapsed / STEP)) if elapsed > 0 else 0.0
            gl["quad"].render(gl["fade"])
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
        ctx.viewport = saved
        trail.current = dst

    def _show(self, ctx, gl, trail, look):
        shown = trail.tex[trail.current]
        shown.use(0)
        if trail.coarse:
            shown.filter = ctx.LINEAR, ctx.LINEAR       # smooth when scaled up; the fade reads texel for texel
        show = gl["show"]
        show["light"] = 0
        opaque = look.backdrop[3] > 0
        show["backdrop"] = tuple(float(c) for c in look.backdrop[:3]) if opaque else (0.0, 0.0, 0.0)
        if opaque:
            ctx.disable(ctx.BLEND)                 # backdrop + light replaces what is below
        else:
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.ONE, ctx.ONE      # the light is added onto what is below
        gl["quad"].render(show)
        if trail.coarse:
            shown.filter = ctx.NEAREST, ctx.NEAREST
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.BLEND_DEFAULT
