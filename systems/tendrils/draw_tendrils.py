"""Draw tendrils: additive glowing ropes, sparks and a pointer glow, into light trails that fade.

Reads: Points, Ropes, TendrilLook, Tendrils.electrified, Sparks, Pointer, Layer,
Frame (steps, dt, width, height). Writes: the framebuffer.

The window's back buffer is not kept between frames, so each bundle owns an
off-screen *light* buffer that persists: one RGBA16 signed-normalised texture that
holds the light over LIGHT_RANGE (see below). Each frame in which the simulation
has advanced:
  1. fade: the light left from before is clamped to 1 and multiplied by
     keep^(60·elapsed), elapsed = the scene time since the last drawn frame —
     78% per 1/60 s whatever the display rate (the seed's 1 − 0.78^(60·dt) fill) —
     in place, by blending: a MIN with 1 over the tiles that were added to last
     frame (only there can the light pass 1), then a multiply by the keep;
  2. add, with additive blending (canvas "lighter"): every rope's wide glow
     stroke (width × 6, alpha 0.14) and thin core (alpha 0.85) — white while
     electrified — both in one pass over the glow's triangles (`Strokes.draw_pair`:
     the core's own triangles were a third of the bundle's draw on the software rasteriser),
     then the live sparks as 2×2 px squares with alpha min(1, 2·life), then a
     40 px radial glow at the pointer;
  3. show: the light is drawn over the backdrop colour (the seed's #050508), or
     added onto the layers below when the backdrop's alpha is 0.
A frame drawn again with no step in between only shows the light (it adds
nothing twice). The light is kept in 15 bits over [0, LIGHT_RANGE] and clamped to
1 when it fades, which is what the seed's 8-bit canvas does, minus its ghost
pixels that never fade out. Why not RGBA16F, read by a fade into a second
texture, as before: on the software rasteriser half floats cost a conversion at every texel a
pass samples or blends, and a fade that samples costs more than one that
blends; together the fade and the show took ~10 ms of a ~24 ms draw.
Why the range: `Strokes.draw_pair` takes the core back out where the glow's
triangles fold over (negative light, the shader's note), which sums right only
if no add in between is clamped — at a range of 1, a fold over light already
at 1 left dark specks. Every add is scaled by 1/LIGHT_RANGE (the alphas; the
strokes' `gain`, which a CPU-painted bundle applies in its composite), the show
by LIGHT_RANGE.
The light has one texel per target pixel unless the scene's bundles together would
pass MAX_LIGHT_PIXELS (an 8192² recording): then each keeps it coarser, scaled up
with bilinear filtering when shown, so memory stays bounded by the cap.
Draw calls per frame are fixed (the fade's clamp and its keep, strokes, sparks,
pointer glow, show), whatever the number of ropes and sparks.

Only the light's *lit tiles* are faded and shown: the LIT_TILE-texel squares that
something was added to in the frames whose light has not yet faded below LIT_FLOOR
(about half a second at the seed's keep). A tile is lit by the box of every three
points in a row of a rope (the curve through them stays in their hull), padded by
the glow's half-width, by each live spark's square and by the pointer glow's disc's
box. Everything is added scissored to the lit tiles' bounding box (the *lit box*),
and the fade writes 0 in the tiles where a texture held light that are no longer
lit, so outside the lit tiles the light is exactly 0 and showing it there is the
backdrop alone: a clear. Fade and show each draw the lit tiles as one quad per run
of them along a row. (The fade and the show over the whole window were about half
the bundle's draw on the software rasteriser; while the tendrils are whipped the lit box is about
half of a 1280×720 window, their lit tiles about a fifth.)
"""
from __future__ import annotations

import esper
import numpy as np
from arcade.gl import BufferDescription
from pyglet import gl as gl_raw

from ropework.components import Layer, Pointer, Points, Ropes
from ropework.components.frame import STEP
from ropework.components.tendrils import Sparks, TendrilLook, Tendrils
from ropework.systems.services import gfx

# The pointer glow: a radial gradient (canvas stops), rgba at radius fractions 0, 0.3, 1.
GLOW_INNER = (1.0, 1.0, 1.0, 0.8)                 # white-hot centre
GLOW_MID = (25 / 255, 240 / 255, 1.0, 0.25)       # cyan at 30% of the radius
GLOW_OUTER = (25 / 255, 240 / 255, 1.0, 0.0)      # cyan, gone at the rim
GLOW_MID_AT = 0.3                                 # where the middle stop sits, fraction of the radius
LIT_FLOOR = 1 / 4096    # light below this (of full white) is dropped to 0 when its region leaves the lit box:
                        # an eighth of one 8-bit level; the seed's canvas loses it sooner
LIT_TILE = 32           # texels a side of the squares the light is faded and shown by: smaller follows the light
                        # closer, larger draws fewer runs (at 32 a whipped bundle's runs are ~100 quads)
LIT_PAD = 4.0           # px past a stroke's half-width and a glow's radius kept in the lit box (its smoothing
                        # and anti-aliased rim; a curve between points bulges less than a segment)
MAX_LIGHT_PIXELS = 3840 * 2160    # light texels of all a scene's bundles together (8 bytes each: ~66 MB at most);
                                  # past it (an 8192² recording, dozens of layers) each keeps its light coarser, drawn smoothed
LIGHT_RANGE = 4.0       # of full white, the most light a texel holds before its adds clamp (1: the seed's clamp is
                        # applied at the fade); room for a frame's adds over 1, so a fold's take-back sums right

_FULL_VS = """
#version 330
in vec2 in_pos;
out vec2 v_uv;
void main() { v_uv = in_pos * 0.5 + 0.5; gl_Position = vec4(in_pos, 0.0, 1.0); }
"""

_RUNS_VS = """
#version 330
in vec2 in_uv;           // a corner of a run of tiles, as fractions of the light (whole texels)
in float in_keep;        // the run's share of its light kept: the fade's factor, 0 where the light is dropped
out vec2 v_uv;
flat out float v_keep;
void main() {
    v_uv = in_uv;
    v_keep = in_keep;
    gl_Position = vec4(in_uv * 2.0 - 1.0, 0.0, 1.0);
}
"""

_FADE_FS = """
#version 330
in vec2 v_uv;
flat in float v_keep;
out vec4 out_colour;
void main() { out_colour = vec4(vec3(v_keep), 1.0); }   // blended: MIN (the clamp), or light × keep
"""

_SHOW_FS = """
#version 330
uniform sampler2D light;
uniform vec3 backdrop;   // black when the light is added onto what is below
uniform float light_range;   // LIGHT_RANGE: the light is kept over it
in vec2 v_uv;
flat in float v_keep;
out vec4 out_colour;
void main() { out_colour = vec4(min(backdrop + clamp(texture(light, v_uv).rgb * light_range, 0.0, 1.0), vec3(1.0)), 1.0); }
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
    """One bundle's GL objects: the light texture, strokes, spark quads."""

    def __init__(self, ctx, size, n_sparks, coarse=False):
        self.size = size
        self.coarse = coarse        # fewer texels than target pixels (MAX_LIGHT_PIXELS)
        # The light over LIGHT_RANGE, signed (a fold's take-back may leave a texel a hair below 0; the show
        # clamps it). dtype "f2" is only arcade's upload type (and its byte count: 8 a texel, as stored).
        self.tex = ctx.texture(size, components=4, dtype="f2", internal_format=gl_raw.GL_RGBA16_SNORM,
                               filter=(ctx.NEAREST, ctx.NEAREST))
        self.fbo = ctx.framebuffer(color_attachments=[self.tex])
        self.fbo.clear()
        tiles = (-(-size[1] // LIT_TILE), -(-size[0] // LIT_TILE))
        self.left = np.zeros(tiles, np.float32)   # per tile (rows from the bottom), the share of the light added
                                    # there that the fades since have left (at most: it is clamped to 1 first); 0: none
        self.box = None             # the lit box: the lit tiles' bounds (x0, y0, x1, y1 texels, y up), or None
        self.held = np.zeros(tiles, bool)   # the tiles outside which the light is 0
        self.steps = None           # Frame.steps when the light was last added
        self.strokes = gfx.Strokes(ctx)
        self.sparks = gfx.Quads(ctx)
        self.spark_data = np.zeros(n_sparks, gfx.QUAD_DTYPE)
        self.runs = gfx.Stream(ctx, stride=12)    # the fade's runs of tiles, lit ones first (or its clamp's, a coarse show's):
                                                  # 6 corners each, (u, v, keep)
        self.shown_runs = 0         # how many of the fade's runs are lit tiles: what the show draws (the light
                                    # the fade wrote is the light shown, until the next fade)
        self.runs_geometry = ctx.geometry([BufferDescription(self.runs.buffer, "2f 1f", ["in_uv", "in_keep"])],
                                          mode=ctx.TRIANGLES)
        self.hot = np.zeros(tiles, bool)    # the tiles added to in the last frame: only there can the light pass 1
        self.topology = None        # (start, count) bytes the three-point windows below were made for
        self.windows = None         # int[n, 3]: each point and the next two of its rope (its last repeated)

    def light(self) -> np.ndarray:
        """float32[h, w, 4]: the light as it is (of full white, rows from the bottom); for tests and benches."""
        w, h = self.size
        data = self.fbo.read(viewport=(0, 0, w, h), components=4, dtype="f4")   # float: exact, where half is not
        return np.frombuffer(data, np.float32).reshape(h, w, 4) * LIGHT_RANGE


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
                "fade": ctx.program(vertex_shader=_RUNS_VS, fragment_shader=_FADE_FS),
                "show": ctx.program(vertex_shader=_RUNS_VS, fragment_shader=_SHOW_FS),
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
        saved = ctx.viewport
        keep = float(look.keep ** (elapsed / STEP)) if elapsed > 0 else 0.0
        hot = trail.hot & trail.held                          # last frame's adds, where they may pass 1
        lit = self._lit_tiles(frame, trail, pts, ropes, look, sp, ptr, keep)
        box = trail.box if trail.box is not None else (0, 0, 0, 0)
        with trail.fbo.activate():
            cover = lit | trail.held                          # every tile that may hold light
            fade = gl["fade"]
            ctx.enable(ctx.BLEND)
            if keep > 0 and hot.any():                        # clamped to 1 (of white): min(light, 1 / range)
                gl_raw.glBlendEquation(gl_raw.GL_MIN)         # arcade does not track the equation:
                try:                                          # every later draw would take the MIN
                    _draw_runs(trail, hot.astype(np.int8), (0.0, 1.0 / LIGHT_RANGE), fade)
                finally:
                    gl_raw.glBlendEquation(gl_raw.GL_FUNC_ADD)
            if cover.any():                                   # × keep where lit, × 0 where no longer
                ctx.blend_func = ctx.ZERO, ctx.SRC_COLOR
                trail.shown_runs = _draw_runs(trail, np.where(lit, 2, np.where(cover, 1, 0)), (0.0, 0.0, keep), fade)
            else:
                trail.shown_runs = 0
            trail.held = lit
            trail.hot = trail.left == 1.0                     # the tiles this frame adds to (`_lit_tiles`)
            trail.fbo.scissor = _scissor(box)                 # nothing lands outside the lit box
            ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE          # additive, as canvas "lighter"
            trail.strokes.upload(pts.pos, ropes.start, ropes.count, look.colour, look.width)
            # A coarse light (texels wider than pixels) draws the thin core a texel wide at the same
            # light per length: thinner than a texel, it would break into dashes when scaled up.
            thick = max(1.0, frame.width / trail.size[0]) if trail.coarse else 1.0
            trail.strokes.gain = 1.0 / LIGHT_RANGE        # every add, over the light's range
            if td.electrified:
                glow, core = (look.glow_width, 1.0, look.electric_glow), (thick, 1.0 / thick, look.electric_core)
            else:
                glow, core = (look.glow_width, look.glow_alpha, None), (thick, look.core_alpha / thick, None)
            if glow[0] >= core[0]:                        # one pass over the glow's triangles adds both
                trail.strokes.draw_pair(viewport, glow, core)
            else:
                trail.strokes.draw(viewport, *glow)
                trail.strokes.draw(viewport, *core)
            if sp is not None and sp.size:
                live = np.flatnonzero(sp.life > 0)
                q = trail.spark_data[:live.size]
                half = look.spark_size / 2
                q["centre"] = sp.pos[live] + half          # the seed fills a square from (x, y) right and down
                q["half"] = half
                q["colour"] = look.colour[sp.rope[live]]
                q["colour"][:, 3] = np.minimum(1.0, 2.0 * sp.life[live]) / LIGHT_RANGE
                q["round"] = 0.0
                trail.sparks.upload(q)
                trail.sparks.draw(viewport)
            if ptr is not None and ptr.inside and look.pointer_glow > 0:
                g = gl["glow"]
                g["viewport"] = tuple(float(v) for v in viewport)
                g["centre"] = (float(ptr.x), float(ptr.y))
                g["radius"] = float(look.pointer_glow)
                g["inner"], g["mid"], g["outer"] = (_over_range(c) for c in (GLOW_INNER, GLOW_MID, GLOW_OUTER))
                g["mid_at"] = GLOW_MID_AT
                gl["quad"].render(g)
            ctx.blend_func = ctx.BLEND_DEFAULT
            trail.fbo.scissor = None
        ctx.viewport = saved

    @staticmethod
    def _added_boxes(frame, trail, pts, ropes, look, sp, ptr) -> np.ndarray:
        """float[m, 4] scene px (x0, y0, x1, y1): boxes holding everything this frame adds."""
        key = (np.asarray(ropes.start).tobytes(), np.asarray(ropes.count).tobytes())
        if key != trail.topology:                 # each point and the next two of its rope, clipped to its last
            start, count = np.asarray(ropes.start, np.intp), np.asarray(ropes.count, np.intp)
            start, count = start[count >= 2], count[count >= 2]           # a rope of one point draws nothing
            idx = np.repeat(start, count) + np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
            last = np.repeat(start + count - 1, count)
            trail.windows = np.stack([idx, np.minimum(idx + 1, last), np.minimum(idx + 2, last)], 1)
            trail.topology = key
        parts = []
        if len(trail.windows):                    # a stroke's curve stays in the hull of its three points
            pad = float(np.max(look.width, initial=0.0)) * max(look.glow_width, 1.0) / 2 + LIT_PAD
            tri = pts.pos[:, :2][trail.windows]                   # [n, 3, 2]
            parts.append(np.concatenate([tri.min(axis=1) - pad, tri.max(axis=1) + pad], 1))
        if sp is not None and sp.size:
            live = sp.pos[sp.life > 0]
            if len(live):
                parts.append(np.concatenate([live - LIT_PAD, live + look.spark_size + LIT_PAD], 1))
        if ptr is not None and ptr.inside and look.pointer_glow > 0:
            r = look.pointer_glow + LIT_PAD
            parts.append(np.array([[ptr.x - r, ptr.y - r, ptr.x + r, ptr.y + r]]))
        return np.concatenate(parts) if parts else np.zeros((0, 4))

    def _lit_tiles(self, frame, trail, pts, ropes, look, sp, ptr, keep) -> np.ndarray:
        """bool[rows, cols]: the tiles lit after this frame's fade by ``keep`` and what it adds (rows from the
        bottom); sets trail.left and trail.box."""
        left = trail.left
        left *= keep
        left[left < LIT_FLOOR] = 0.0
        boxes = self._added_boxes(frame, trail, pts, ropes, look, sp, ptr)
        rows, cols = left.shape
        if len(boxes):                            # each box's tiles, by a 2-D difference grid summed up
            w, h = trail.size
            sx, sy = w / max(frame.width, 1.0), h / max(frame.height, 1.0)
            x = boxes[:, 0::2] * sx                               # texels: x0, x1; y0, y1 below (y up)
            y = h - boxes[:, 3::-2] * sy
            on = (x[:, 1] > 0) & (x[:, 0] < w) & (y[:, 1] > 0) & (y[:, 0] < h)
            c = np.clip(np.floor(x[on] / LIT_TILE), 0, cols - 1).astype(np.intp)
            r = np.clip(np.floor(y[on] / LIT_TILE), 0, rows - 1).astype(np.intp)
            c[:, 1] += 1
            r[:, 1] += 1
            stride = cols + 1
            corners = np.concatenate([r[:, 0] * stride + c[:, 0], r[:, 1] * stride + c[:, 1],
                                      r[:, 0] * stride + c[:, 1], r[:, 1] * stride + c[:, 0]])
            signs = np.repeat(np.array([1.0, 1.0, -1.0, -1.0]), len(c))
            grid = np.bincount(corners, signs, minlength=(rows + 1) * stride).reshape(rows + 1, stride)
            left[grid.cumsum(0).cumsum(1)[:rows, :cols] > 0.5] = 1.0
        lit = left > 0
        if lit.any():
            r, c = np.flatnonzero(lit.any(axis=1)), np.flatnonzero(lit.any(axis=0))
            trail.box = (int(c[0]) * LIT_TILE, int(r[0]) * LIT_TILE,
                         min(trail.size[0], (int(c[-1]) + 1) * LIT_TILE), min(trail.size[1], (int(r[-1]) + 1) * LIT_TILE))
        else:
            trail.box = None
        return lit

    def _show(self, ctx, gl, trail, look):
        shown = trail.tex
        shown.use(0)
        if trail.coarse:
            shown.filter = ctx.LINEAR, ctx.LINEAR       # smooth when scaled up; the fade reads texel for texel
        show = gl["show"]
        show["light"] = 0
        show["light_range"] = LIGHT_RANGE
        opaque = look.backdrop[3] > 0
        show["backdrop"] = tuple(float(c) for c in look.backdrop[:3]) if opaque else (0.0, 0.0, 0.0)
        shown_tiles = trail.held
        if trail.coarse and shown_tiles.any():     # smoothed up, a texel reaches half a texel past its tile
            grown = shown_tiles.copy()
            grown[1:] |= shown_tiles[:-1]
            grown[:-1] |= shown_tiles[1:]
            shown_tiles = grown.copy()
            shown_tiles[:, 1:] |= grown[:, :-1]
            shown_tiles[:, :-1] |= grown[:, 1:]
        if opaque:
            ctx.disable(ctx.BLEND)                 # backdrop + light replaces what is below
            _clear_viewport(ctx, look.backdrop[:3])  # where there is no light, the backdrop is all there is
        else:
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.ONE, ctx.ONE      # the light is added onto what is below
        if not trail.coarse:                       # the fade's runs of lit tiles come first in its vertices
            if trail.shown_runs:
                trail.runs_geometry.render(show, vertices=6 * trail.shown_runs)
        elif shown_tiles.any():
            _draw_runs(trail, shown_tiles.astype(np.int8), (0.0, 1.0), show)
        if trail.coarse:
            shown.filter = ctx.NEAREST, ctx.NEAREST
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.BLEND_DEFAULT


def _draw_runs(trail, code: np.ndarray, keeps, program) -> int:
    """Draw ``program`` over the tiles whose ``code`` is not 0, one quad per run of equal codes along a row,
    the runs of the highest code first; a run's vertices carry keeps[code] as in_keep. Quads cover whole
    texels (fractions of the light). Returns how many runs have the highest code."""
    rows, cols = code.shape
    padded = np.zeros((rows, cols + 2), np.int8)
    padded[:, 1:-1] = code
    r, c = np.nonzero(padded[:, 1:] != padded[:, :-1])            # where a row's code changes (column c → c + 1)
    value = padded[r[:-1], c[:-1] + 1]
    run = (r[:-1] == r[1:]) & (value != 0)                        # from one change to the next, in one row
    r, c0, c1, value = r[:-1][run], c[:-1][run], c[1:][run], value[run]
    top = value == len(keeps) - 1
    first = np.concatenate([np.flatnonzero(top), np.flatnonzero(~top)])
    r, c0, c1, value = r[first], c0[first], c1[first], value[first]
    w, h = trail.size
    x0, x1 = c0 * LIT_TILE / w, np.minimum(c1 * LIT_TILE, w) / w
    y0, y1 = r * LIT_TILE / h, np.minimum((r + 1) * LIT_TILE, h) / h
    k = np.asarray(keeps, np.float32)[value]
    corners = np.stack([x0, y0, k, x1, y0, k, x0, y1, k, x0, y1, k, x1, y0, k, x1, y1, k], 1).astype(np.float32)
    trail.runs.write(corners)
    trail.runs_geometry.render(program, vertices=6 * len(r))
    return int(top.sum())


def _over_range(rgba) -> tuple[float, float, float, float]:
    """An (r, g, b, a) added with (SRC_ALPHA, ONE), its alpha over LIGHT_RANGE: the light it adds, in the range's units."""
    return (*rgba[:3], rgba[3] / LIGHT_RANGE)


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
