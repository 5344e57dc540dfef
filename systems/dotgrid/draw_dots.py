"""Draw dots: every dot of a grid as a round, anti-aliased disc, in one draw call.

Reads: DotGrid, DotColours, DotStyle, DotLook, DotSleep, Layer, Frame.width/height/theme/t.
Writes: the framebuffer.

Instanced quads: one unit quad, and per dot its origin (uploaded once per
layout), its offset and its colour (streamed into reused GL buffers each
frame, float32). The grid never clears the framebuffer — the scene does, with
the level's background — so it composes under any layer drawn after it; a
layer that wants its own background asks with `background` (alpha above 0) and
gets one full-window quad under its dots.

Theme: on the light theme a dot's colour — somewhere on the segment from
`DotColours.base` to `.active`, where the repel system eases it — is shown at
the same place on the segment from `DotStyle.light_base` to `.light_active`
(the state keeps the seed's colours; only what is drawn changes), so the
light-grey dots of a dark page are dark ones on a light page.
The look keys (`DotLook`) switch to a second program, so the seed's
dots keep the first one's pixels: a dot's lit level is how far its colour has
gone from base to active (projected on that line), and it swells by
1 + swell·lit; with `stretch` it is a capsule (or a box) along its velocity,
stretch·speed longer; with `glow` a halo GLOW_REACH radii wide (at most one
gap: further it would only overdraw its neighbours) fades out around it,
glow·lit opaque; `fade` fades dots out near the window's edges;
`intro` grows each dot from nothing, the centre first, with a little
overshoot (the easing's back-out).
Each quad holds only the pixels its dot can change: the disc to 0.5 px past
its edge and the halo down to alpha INVISIBLE (half an 8-bit level, which
rounds back to the pixel below); fainter fragments are discarded. On a software
rasteriser a dense grid's cost is its fragments plus a fixed ~0.9 µs per dot for the
quad's vertices and triangles (docs/performance.md, "Dense dot grids are splatted on the CPU").

A dense grid is painted on the CPU instead (`Splat`, when `splat_pays`): a numba kernel
evaluates the look program's formulas at every pixel centre a dot can reach, in dot order,
into a float32 canvas (`services.canvas`) that one quad composites — the per-quad cost is
what bounds a software rasteriser, and a dense grid has ~10 dots over each pixel. The seed's
sparse page keeps its GPU program, and under the hardware profile every grid does (a GPU's quads
are nearly free). A sleeping splatted grid composites the image it last painted.

A sleeping grid (`DotSleep`: its step changed nothing) whose dots cover more
pixels than the viewport (`cache_pays`) is drawn once into a cached image — premultiplied alpha, so compositing it equals drawing the dots
over whatever is below — and from then on that image is composited, one
full-window quad instead of every dot, until the grid wakes.
"""
from __future__ import annotations

import esper
import numpy as np
from arcade.gl import BufferDescription

from ropework.components.dotgrid import DotColours, DotGrid, DotLook, DotSleep, DotStyle
from ropework.components.render import Layer
from ropework.systems.services import gfx, split
from ropework.systems.services.canvas import BLIT_FS, BLIT_VS, Canvas, quantize, view
from ropework.systems.services.kernels import kernel

_VS = """
#version 330
uniform vec2 viewport;
uniform float radius;
uniform vec3 u_base;        // the state's colour at rest and at full force ...
uniform vec3 u_active;
uniform vec3 u_show_base;   // ... and what to show for them
uniform vec3 u_show_active;
in vec2 in_corner;      // -1..1
in vec2 in_origin;      // px
in vec2 in_offset;      // px
in vec3 in_colour;
out vec2 v_local;
out vec3 v_colour;
void main() {
    float ext = radius + 0.5;   // cover is 0 from radius + 0.5 out: the quad holds every pixel it lights
    vec2 q = in_origin + in_offset + in_corner * ext;
    gl_Position = scene_to_clip(q, viewport);
    v_local = in_corner * ext;
    vec3 d = u_active - u_base;
    float dd = dot(d, d);
    float t = dd > 0.0 ? clamp(dot(in_colour - u_base, d) / dd, 0.0, 1.0) : 0.0;
    v_colour = (u_show_base == u_base && u_show_active == u_active) ? in_colour : mix(u_show_base, u_show_active, t);
}
"""

_FS = """
#version 330
uniform float radius;
in vec2 v_local;
in vec3 v_colour;
out vec4 out_colour;
void main() {
    float cover = clamp(radius + 0.5 - length(v_local), 0.0, 1.0);
    if (cover <= 0.0) discard;
    out_colour = vec4(v_colour, cover);
}
"""


GLOW_REACH = 2.5      # a halo reaches this many dot radii beyond the dot's edge
INTRO_SPREAD = 0.6    # fraction of the intro over which the pop front crosses the grid; each dot grows in the rest
BACK_OUT = 1.70158    # the easing's overshoot constant (Penner's back-out: about 10 % past full size)
INVISIBLE = 0.5 / 255.0   # alpha below which a fragment cannot change an 8-bit pixel: blending it moves the
                          # pixel by less than half a level, which rounds back to what was there

_LOOK_VS = """
#version 330
uniform vec2 viewport;
uniform float radius;
uniform vec3 base;
uniform vec3 span;          // active − base
uniform float swell;
uniform float stretch;      // s
uniform float glow;
uniform float fade;         // px
uniform float intro;        // s; 0: none
uniform float clock;        // s since the grid was laid out
uniform vec2 centre;
uniform float reach;        // px from the centre to the farthest dot
uniform float gap;          // px between dot centres: a halo reaches no further (it would only overdraw)
uniform int remap;          // 1: show the colour at its place on show_base → show_base + show_span (the theme)
uniform vec3 show_base;
uniform vec3 show_span;
in vec2 in_corner;
in vec2 in_origin;
in vec2 in_offset;
in vec3 in_colour;
in vec2 in_velocity;
out vec2 v_local;
out vec3 v_colour;
out float v_radius;
out float v_half;
out float v_halo;
out float v_alpha;
out float v_reach;
const float GLOW_REACH = %(glow_reach)s;
const float SPREAD = %(spread)s;
const float BACK = %(back)s;
const float INVISIBLE = %(invisible)s;
void main() {
    float s2 = dot(span, span);
    float lit = s2 > 0.0 ? clamp(dot(in_colour - base, span) / s2, 0.0, 1.0) : 0.0;
    float r = radius * (1.0 + swell * lit);
    if (intro > 0.0) {
        float delay = SPREAD * intro * length(in_origin - centre) / max(reach, 1.0);
        float u = clamp((clock - delay) / ((1.0 - SPREAD) * intro), 0.0, 1.0) - 1.0;
        r *= 1.0 + (BACK + 1.0) * u * u * u + BACK * u * u;
    }
    float speed = length(in_velocity);
    vec2 ax = speed > 1e-6 ? in_velocity / speed : vec2(1.0, 0.0);
    float half_len = 0.5 * stretch * speed;
    float a = 1.0;
    if (fade > 0.0) {
        float e = min(min(in_origin.x, viewport.x - in_origin.x), min(in_origin.y, viewport.y - in_origin.y));
        a = smoothstep(0.0, 1.0, clamp(e / fade, 0.0, 1.0));
    }
    float halo = glow * lit > 0.0 ? min(GLOW_REACH * r, gap) : 0.0;
    // The quad only needs the pixels a dot can change: its disc (cover > 0 up to 0.5 px past the
    // edge) and the part of its halo whose alpha, glow·lit·a·h², reaches half a colour level:
    // blending anything fainter rounds back to the pixel already there (see INVISIBLE).
    float seen = glow * lit * a;
    float halo_seen = seen > INVISIBLE ? halo * (1.0 - sqrt(INVISIBLE / seen)) : 0.0;
    float edge = max(0.5, halo_seen);
    vec2 ext = vec2(r + half_len + edge, r + edge);
    vec2 local = in_corner * ext;
    vec2 q = in_origin + in_offset + ax * local.x + vec2(-ax.y, ax.x) * local.y;
    gl_Position = scene_to_clip(q, viewport);
    v_local = local;
    v_colour = remap == 1 ? show_base + show_span * lit : in_colour;
    v_radius = r;
    v_half = half_len;
    v_halo = glow * lit;
    v_reach = max(halo, 1e-3);
    v_alpha = a;
}
"""

_LOOK_FS = """
#version 330
uniform int square;
uniform int premultiply;
in vec2 v_local;
in vec3 v_colour;
in float v_radius;
in float v_half;
in float v_halo;
in float v_alpha;
in float v_reach;
out vec4 out_colour;
const float INVISIBLE = %(invisible)s;
void main() {
    float d;
    if (square == 1) {
        vec2 q = abs(v_local) - vec2(v_radius + v_half, v_radius);
        d = length(max(q, 0.0)) + min(max(q.x, q.y), 0.0);
    } else {
        d = length(vec2(max(abs(v_local.x) - v_half, 0.0), v_local.y)) - v_radius;
    }
    float cover = clamp(0.5 - d, 0.0, 1.0);
    if (v_halo > 0.0) {
        float h = 1.0 - clamp(d / v_reach, 0.0, 1.0);
        cover = max(cover, v_halo * h * h);
    }
    float a = cover * v_alpha;
    if (a < INVISIBLE) discard;
    out_colour = premultiply == 1 ? vec4(v_colour * a, a) : vec4(v_colour, a);
}
"""

_SEED_PREMULTIPLIED_FS = _FS.replace("out_colour = vec4(v_colour, cover);", "out_colour = vec4(v_colour * cover, cover);")
assert _SEED_PREMULTIPLIED_FS != _FS, "the seed fragment shader changed: update its premultiplied copy"


def plain(look: DotLook | None) -> bool:
    """Whether a grid draws as the seed's dots (every look key at its default)."""
    return look is None or (look.swell == 0.0 and look.stretch == 0.0 and look.glow == 0.0 and look.fade == 0.0
                            and look.shape == "circle" and look.intro == 0.0)


class DotsGL:
    """GL state for one grid: its programs, the unit quad, reused instance buffers, the sleep cache."""

    def __init__(self, ctx):
        self.ctx = ctx
        consts = {"glow_reach": f"{GLOW_REACH:.6f}", "spread": f"{INTRO_SPREAD:.6f}", "back": f"{BACK_OUT:.6f}",
                  "invisible": f"{INVISIBLE:.9f}"}
        self.program = ctx.program(vertex_shader=gfx.vertex_shader(_VS), fragment_shader=_FS)
        self.seed_cached = ctx.program(vertex_shader=gfx.vertex_shader(_VS), fragment_shader=_SEED_PREMULTIPLIED_FS)
        self.look = ctx.program(vertex_shader=gfx.vertex_shader(_LOOK_VS % consts), fragment_shader=_LOOK_FS % consts)
        self.blit = ctx.program(vertex_shader=BLIT_VS, fragment_shader=BLIT_FS)
        corners = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], np.float32)
        self.origin = gfx.Stream(ctx, stride=8)
        self.offset = gfx.Stream(ctx, stride=8)
        self.colour = gfx.Stream(ctx, stride=12)
        self.velocity = gfx.Stream(ctx, stride=8)
        self.layout = None       # the origin array last uploaded
        self.count = 0
        corner = BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"])
        per_dot = [BufferDescription(self.origin.buffer, "2f", ["in_origin"], instanced=True),
                   BufferDescription(self.offset.buffer, "2f", ["in_offset"], instanced=True),
                   BufferDescription(self.colour.buffer, "3f", ["in_colour"], instanced=True)]
        self.geometry = ctx.geometry([corner, *per_dot], mode=ctx.TRIANGLE_STRIP)
        self.look_geometry = ctx.geometry(
            [corner, *per_dot, BufferDescription(self.velocity.buffer, "2f", ["in_velocity"], instanced=True)],
            mode=ctx.TRIANGLE_STRIP)
        self.empty = ctx.geometry()
        self.fill = gfx.Quads(ctx)
        self.cache = None        # (framebuffer, key) of the sleeping grid's image
        self.splat = None        # the CPU splat (`Splat`), made when a dense grid first draws
        self.cached_draws = 0    # frames composited from the cache (the tests read it)

    def upload(self, grid: DotGrid, moving: bool) -> None:
        if self.layout is not grid.origin:
            self.origin.write(grid.origin)
            self.layout = grid.origin
        self.offset.write(grid.offset)
        self.colour.write(grid.colour)
        if moving:
            self.velocity.write(grid.velocity if len(grid.velocity) == grid.n
                                else np.zeros((grid.n, 2), np.float32))
        self.count = grid.n

    def draw(self, viewport, diameter: float, colours=None, shown=None, premultiply: bool = False) -> None:
        """``colours``: (base, active) of the state; ``shown``: (base, active) to draw them as."""
        if not self.count:
            return
        prog = self.seed_cached if premultiply else self.program
        base, active = colours if colours is not None else ((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        show = shown if shown is not None else (base, active)
        for name, v in (("u_base", base), ("u_active", active), ("u_show_base", show[0]), ("u_show_active", show[1])):
            prog[name] = tuple(float(c) for c in v)
        prog["viewport"] = tuple(float(v) for v in viewport)
        prog["radius"] = float(diameter) / 2.0
        self.geometry.render(prog, instances=self.count)

    def draw_look(self, viewport, diameter: float, look: DotLook, colours: DotColours | None, clock: float,
                  gap: float, premultiply: bool = False, shown=None) -> None:
        if not self.count:
            return
        p = self.look
        p["viewport"] = tuple(float(v) for v in viewport)
        p["radius"] = float(diameter) / 2.0
        base = colours.base if colours is not None else np.zeros(3, np.float32)
        span = (colours.active - colours.base) if colours is not None else np.zeros(3, np.float32)
        p["base"] = tuple(float(v) for v in base)
        p["span"] = tuple(float(v) for v in span)
        p["swell"], p["stretch"], p["glow"], p["fade"] = look.swell, look.stretch, look.glow, look.fade
        p["intro"], p["clock"] = look.intro, float(clock)
        p["centre"] = (viewport[0] / 2.0, viewport[1] / 2.0)
        p["reach"] = float(np.hypot(*viewport) / 2.0)
        p["gap"] = float(gap)
        p["square"] = 1 if look.shape == "square" else 0
        p["premultiply"] = 1 if premultiply else 0
        p["remap"] = 1 if shown is not None else 0
        sb, sa = (np.asarray(shown[0], np.float32), np.asarray(shown[1], np.float32)) if shown is not None \
            else (np.zeros(3, np.float32), np.zeros(3, np.float32))
        p["show_base"] = tuple(float(v) for v in sb)
        p["show_span"] = tuple(float(v) for v in sa - sb)
        self.look_geometry.render(p, instances=self.count)


MAX_CACHE_PIXELS = 3840 * 2160   # viewport pixels a sleeping grid's cached image may have (8 B each: ~66 MB);
                                 # an 8192² viewport would hold 512 MB of half-float pixels for it


def cache_pays(n: int, diameter: float, viewport) -> bool:
    """Whether compositing a cached full-viewport image costs less than drawing the dots:
    when their quads cover more pixels than the viewport has (each quad is diameter + 2 px
    a side). A sparse grid (the seed's page: 390 dots, 2 % of a 1280×720 viewport) draws
    faster than one full-screen blit; a dense one (100,000 dots, ~5× overdraw) far slower.
    Never past MAX_CACHE_PIXELS: memory stays bounded by what the scene shows."""
    pixels = viewport[2] * viewport[3]
    return pixels <= MAX_CACHE_PIXELS and n * (diameter + 2.0) ** 2 > pixels


# What the splat saves per dot and costs per covered pixel is the render profile's to say
# (`profile.DotCosts`, measured on a software rasteriser); a GPU's quads always win (no costs: no splat).
SPLAT_MAX_PIXELS = 2560 * 1600   # pixels a splat's canvas may cover: 16 B each plus its texture's 16 at most
                                 # (a float framebuffer's; 4 B and 4 into an 8-bit one) (~130 MB); a bigger viewport (a 4K window, an 8192-wide Offscreen band)
                                 # draws on the GPU, as before the splat, so memory stays where it was
SPLAT_MAX_DOTS = 1_000_000       # dots a splat may hold tables for (~80 B each: ~80 MB); more draw on the GPU


def splat_pays(n: int, diameter: float, look: DotLook | None, rect, scale: float = 1.0) -> bool:
    """Whether painting the grid on the CPU (`Splat`) costs less than the GPU's quads, by the
    measured costs above (``look`` None: the seed's program; ``rect``: x, y, w, h, the pixels
    of the picture — the whole viewport, so a picture drawn in bands takes one path throughout;
    ``scale``: framebuffer px per scene px), within its memory bounds; never when the active profile
    has no `profile.DotCosts` (a GPU)."""
    from ropework.systems.services import profile
    c = profile.active().dots
    if c is None:
        return False
    pixels = rect[2] * rect[3]
    side = scale * (diameter + 1.0) / 6.0                  # a dot's quad side against a 5 px dot's drawn 1:1
    saved = c.quad + (c.seed_side if look is None else c.look_side) * side
    return pixels <= SPLAT_MAX_PIXELS and n <= SPLAT_MAX_DOTS and n * saved > pixels * c.splat_pixel


def intro_running(look: DotLook | None, clock: float) -> bool:
    return look is not None and look.intro > 0.0 and clock < look.intro * (1.0 + 1e-6)


# ---- The CPU splat: the look program's formulas, per dot and per pixel centre, in numba ----------------
# Parameters of `_splat_setup`, float64[P_COUNT] (names as the look program's uniforms).
(P_RADIUS, P_BASE, P_SPAN, P_SWELL, P_STRETCH, P_GLOW, P_FADE, P_INTRO, P_CLOCK, P_CENTRE, P_REACH, P_GAP,
 P_REMAP, P_SHOW_BASE, P_SHOW_SPAN, P_SQUARE, P_VIEWPORT) = (0, 1, 4, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 21,
                                                             24, 25)
P_COUNT = 27
F4 = np.float32         # the splat's pixel arithmetic is float32, as the GPU's
# Columns of the per-dot table `_splat_setup` fills, float32[n, D_COUNT]: what the vertex shader hands on.
D_X, D_Y, D_AX, D_AY, D_R, D_HALF, D_HALO, D_REACH, D_ALPHA, D_EX, D_EY, D_RED = range(12)   # D_REACH: 1/reach
D_COUNT = 15
DISC_HALF = 0.5         # px: a capsule whose half length is at most this is spanned as a disc (cheaper rows,
                        # a few more pixel centres evaluated, the same alphas)
OPAQUE = np.float32(1.0 - 1e-5)   # coverage past which a pixel shows nothing beneath: under 0.003 of a level
LANES = 8              # float32 lanes of one AVX2 vector: the splat's pixel loop runs in whole vectors
SPLAT_BAND_ROWS = 32   # image rows per band: a band is one job for a thread, and each walks only its dots
SPLAT_SETUP_DOTS = 25_000   # dots per job of the per-dot setup (4 jobs for 100,000: both threads share it)


@kernel()
def _splat_setup(origin, offset, colour, velocity, p, x0, dx, y0, dy, w, h, dots, box, first, last):
    """For dots first..last-1 what `_LOOK_VS` computes (lit level, radius with swell and intro, axis,
    half length, halo, fade, colour) into ``dots``, and the image pixels its quad can touch into
    ``box`` (i0, i1, j0, j1, inclusive; i0 > i1 when none)."""
    moving = velocity.shape[0] == origin.shape[0]
    s2 = p[P_SPAN] ** 2 + p[P_SPAN + 1] ** 2 + p[P_SPAN + 2] ** 2
    vw, vh = p[P_VIEWPORT], p[P_VIEWPORT + 1]
    for k in range(first, last):
        lit = 0.0
        if s2 > 0.0:
            lit = ((colour[k, 0] - p[P_BASE]) * p[P_SPAN] + (colour[k, 1] - p[P_BASE + 1]) * p[P_SPAN + 1]
                   + (colour[k, 2] - p[P_BASE + 2]) * p[P_SPAN + 2]) / s2
            lit = min(max(lit, 0.0), 1.0)
        r = p[P_RADIUS] * (1.0 + p[P_SWELL] * lit)
        ox, oy = origin[k, 0], origin[k, 1]
        intro = p[P_INTRO]
        if intro > 0.0:
            from_centre = np.sqrt((ox - p[P_CENTRE]) ** 2 + (oy - p[P_CENTRE + 1]) ** 2)
            delay = INTRO_SPREAD * intro * from_centre / max(p[P_REACH], 1.0)
            u = min(max((p[P_CLOCK] - delay) / ((1.0 - INTRO_SPREAD) * intro), 0.0), 1.0) - 1.0
            r *= 1.0 + (BACK_OUT + 1.0) * u * u * u + BACK_OUT * u * u
        vx = velocity[k, 0] if moving else 0.0
        vy = velocity[k, 1] if moving else 0.0
        speed = np.sqrt(vx * vx + vy * vy)
        ax, ay = (vx / speed, vy / speed) if speed > 1e-6 else (1.0, 0.0)
        half = 0.5 * p[P_STRETCH] * speed
        a = 1.0
        fade = p[P_FADE]
        if fade > 0.0:
            e = min(min(ox, vw - ox), min(oy, vh - oy))
            t = min(max(e / fade, 0.0), 1.0)
            a = t * t * (3.0 - 2.0 * t)
        glow = p[P_GLOW] * lit
        halo = min(GLOW_REACH * r, p[P_GAP]) if glow > 0.0 else 0.0
        seen = glow * a
        halo_seen = halo * (1.0 - np.sqrt(INVISIBLE / seen)) if seen > INVISIBLE else 0.0
        edge = max(0.5, halo_seen)
        ex, ey = r + half + edge, r + edge
        cx, cy = ox + offset[k, 0], oy + offset[k, 1]
        dots[k, D_X], dots[k, D_Y], dots[k, D_AX], dots[k, D_AY] = cx, cy, ax, ay
        dots[k, D_R], dots[k, D_HALF], dots[k, D_HALO], dots[k, D_REACH] = r, half, glow, 1.0 / max(halo, 1e-3)
        dots[k, D_ALPHA], dots[k, D_EX], dots[k, D_EY] = a, ex, ey
        for c in range(3):
            dots[k, D_RED + c] = (p[P_SHOW_BASE + c] + p[P_SHOW_SPAN + c] * lit) if p[P_REMAP] == 1.0 else colour[k, c]
        # the quad's bounding box in scene px, then the pixel centres inside it (x = x0 + i·dx, y = y0 + j·dy)
        hx = abs(ax) * ex + abs(ay) * ey
        hy = abs(ay) * ex + abs(ax) * ey
        i0 = max(int(np.ceil((cx - hx - x0) / dx)), 0)
        i1 = min(int(np.floor((cx + hx - x0) / dx)), w - 1)
        j0 = max(int(np.ceil((cy + hy - y0) / dy)), 0)       # dy < 0: the bottom of the quad is row j0
        j1 = min(int(np.floor((cy - hy - y0) / dy)), h - 1)
        if i0 > i1 or j0 > j1 or a * max(1.0, glow) < INVISIBLE:
            i0, i1 = 1, 0
        box[k, 0], box[k, 1], box[k, 2], box[k, 3] = i0, i1, j0, j1


@kernel()
def _splat_bin(box, band_rows, starts, order):
    """The dots of each band of ``band_rows`` rows, in dot order (``order[starts[b]:starts[b + 1]]``:
    the GPU's instance order, which "over" depends on). Returns how many (band, dot) entries
    ``order`` needs: when more than it holds, it is left unfilled (the caller grows it, calls again)."""
    bands = starts.shape[0] - 1
    for b in range(bands + 1):
        starts[b] = 0
    n = box.shape[0]
    for k in range(n):
        if box[k, 0] <= box[k, 1]:
            for b in range(box[k, 2] // band_rows, box[k, 3] // band_rows + 1):
                starts[b + 1] += 1
    for b in range(bands):
        starts[b + 1] += starts[b]
    fill = starts[:bands].copy()
    if starts[bands] > order.shape[0]:
        return starts[bands]
    for k in range(n):
        if box[k, 0] <= box[k, 1]:
            for b in range(box[k, 2] // band_rows, box[k, 3] // band_rows + 1):
                order[fill[b]] = k
                fill[b] += 1
    return starts[bands]


@kernel(error_model="numpy", fastmath=True)
def _rect_span(ry, ax, ay, ex, ey):
    """The run of x (relative to the centre) where a horizontal line ry below a rectangle's centre
    crosses it: |x·ax + ry·ay| <= ex and |ry·ax − x·ay| <= ey (its axes ax, ay); lo > hi when it
    does not."""
    lo, hi = F4(-1e30), F4(1e30)
    if ax != 0.0:
        u, v = (-ex - ry * ay) / ax, (ex - ry * ay) / ax
        lo, hi = max(lo, min(u, v)), min(hi, max(u, v))
    elif abs(ry * ay) > ex:
        return F4(1.0), F4(0.0)
    if ay != 0.0:
        u, v = (ry * ax - ey) / ay, (ry * ax + ey) / ay
        lo, hi = max(lo, min(u, v)), min(hi, max(u, v))
    elif abs(ry * ax) > ey:
        return F4(1.0), F4(0.0)
    return lo, hi


@kernel(error_model="numpy", fastmath=True)
def _splat_band(image, pixels, eight, dots, box, order, first, last, row0, row1, x0, dx, y0, dy, square):
    """Clear rows row0..row1-1 of ``image`` (float32[h, w, 4] premultiplied) and paint the dots
    ``order[first:last]`` into them as if blended "over" in that order: at each pixel centre what
    `_LOOK_FS` computes. "Over" is associative, so the dots go front to back, each "under" what
    is there (colour += c·a·(1 − A), A += a·(1 − A)) — the same picture to float rounding — and a
    pixel already OPAQUE is left alone: in a dense grid most of a dot is covered by the dots drawn
    after it, and a row's run is trimmed at both ends to where something still shows. A grid's dots
    go left to right, so front to back a row fills from the right: each row remembers where its
    solid right part begins, and a dot's row inside it is skipped before its span is computed
    (5-10 % of the kernel, the same bits).

    A row visits only the pixel centres where the dot can reach half a colour level (those its
    fragment shader would not discard): the capsule of radius r + edge around its segment (a
    circle), or its quad (a square). The alphas of a row's run are computed first, in float32
    like the GPU, into a scratch row (a loop the compiler vectorises), then blended.

    ``eight`` (an 8-bit framebuffer): the band is painted into a scratch of its own instead — the
    same few hundred kB for every band this thread paints, so it stays in the core's cache where
    the image's rows would come cold from memory — and rounded from there into ``pixels``
    (uint8[h, w, 4], `canvas.quantize`); ``image`` is left as it was."""
    if eight:       # the band in a scratch of its own, reused by this thread band after band: warm in its cache
        rows = np.zeros((row1 - row0, image.shape[1], 4), np.float32)
    else:           # the float picture is the image itself: this band's rows, cleared by the thread that paints them
        rows = image[row0:row1]
        rows[:] = 0.0
    run = np.zeros(image.shape[1] + LANES, np.float32)
    solid = np.full(row1 - row0, image.shape[1], np.int64)   # per row: every pixel from here right is OPAQUE
    zero, one, half_px, invisible = F4(0.0), F4(1.0), F4(0.5), F4(INVISIBLE)
    fdx = F4(dx)
    inv_dx = 1.0 / dx
    for m in range(last - 1, first - 1, -1):     # front to back: see above
        k = order[m]
        cx, cy, ax, ay = dots[k, D_X], dots[k, D_Y], dots[k, D_AX], dots[k, D_AY]
        r, half, glow, inv_reach = dots[k, D_R], dots[k, D_HALF], dots[k, D_HALO], dots[k, D_REACH]
        alpha, ex, ey = dots[k, D_ALPHA], dots[k, D_EX], dots[k, D_EY]
        red, green, blue = dots[k, D_RED], dots[k, D_RED + 1], dots[k, D_RED + 2]
        big = ey + F4(1e-3)         # the visible capsule's radius (r + edge), a hair wider for rounding
        sx, sy = ax * half, ay * half
        disc = not square and half <= DISC_HALF
        round_ = big + half                         # a capsule this short lies inside one disc of this radius
        for j in range(max(box[k, 2], row0), min(box[k, 3], row1 - 1) + 1):
            right = solid[j - row0]
            if right <= box[k, 0]:                  # the box's row is covered: no span, no scan
                continue
            ry = F4(y0 + j * dy - cy)
            if disc:                                # the common dot: round and (nearly) still
                if abs(ry) > round_:
                    continue
                hi = np.sqrt(round_ * round_ - ry * ry)
                lo = -hi
            elif square:
                lo, hi = _rect_span(ry, ax, ay, ex + F4(1e-3), big)
            else:
                lo, hi = _rect_span(ry, ax, ay, half, big)
                for end in (-1.0, 1.0):         # the capsule's round ends
                    t = ry - F4(end) * sy
                    if abs(t) <= big:
                        q = np.sqrt(big * big - t * t)
                        lo, hi = min(lo, F4(end) * sx - q), max(hi, F4(end) * sx + q)
            i0 = max(box[k, 0], int(np.ceil((cx + lo - x0) * inv_dx)))
            i1 = min(box[k, 1], right - 1, int(np.floor((cx + hi - x0) * inv_dx)))
            while i0 <= i1 and rows[j - row0, i0, 3] >= OPAQUE:     # covered already by the dots drawn over it
                i0 += 1
            while i1 >= i0 and rows[j - row0, i1, 3] >= OPAQUE:
                i1 -= 1
            if i0 > i1:
                continue
            rx0 = F4(x0 + i0 * dx - cx)
            lanes = (i1 - i0 + LANES) // LANES * LANES    # whole vectors: lanes past the run are computed
            if square:                                    # and never blended
                for c in range(0, lanes, LANES):
                    for ln in range(LANES):
                        rx = rx0 + F4(c + ln) * fdx
                        lx = rx * ax + ry * ay        # the pixel centre in the quad's frame: v_local
                        ly = ry * ax - rx * ay
                        qx = abs(lx) - (r + half)
                        qy = abs(ly) - r
                        mx, my = max(qx, zero), max(qy, zero)
                        d = np.sqrt(mx * mx + my * my) + min(max(qx, qy), zero)
                        cover = min(max(half_px - d, zero), one)
                        hh = one - min(max(d * inv_reach, zero), one)
                        a = max(cover, glow * hh * hh) * alpha      # glow 0: no halo
                        run[c + ln] = a if a >= invisible else zero  # discarded
            else:
                for c in range(0, lanes, LANES):
                    for ln in range(LANES):
                        rx = rx0 + F4(c + ln) * fdx
                        lx = rx * ax + ry * ay
                        ly = ry * ax - rx * ay
                        e = max(abs(lx) - half, zero)
                        d = np.sqrt(e * e + ly * ly) - r
                        cover = min(max(half_px - d, zero), one)
                        hh = one - min(max(d * inv_reach, zero), one)
                        a = max(cover, glow * hh * hh) * alpha
                        run[c + ln] = a if a >= invisible else zero
            out = rows[j - row0]
            for u in range(i1 - i0 + 1):            # "under": what shows through the dots above
                i = i0 + u
                w = run[u] * (one - out[i, 3])
                out[i, 0] += red * w
                out[i, 1] += green * w
                out[i, 2] += blue * w
                out[i, 3] += w
            if i1 + 1 == right:                     # the run reached the solid part: it may have grown
                while right > 0 and rows[j - row0, right - 1, 3] >= OPAQUE:
                    right -= 1
                solid[j - row0] = right
    if eight:
        quantize(rows, pixels[row0:row1], 0, row1 - row0)


def splat_params(viewport, diameter: float, look: DotLook | None, colours: DotColours | None, clock: float,
                 gap: float, shown) -> np.ndarray:
    """float64[P_COUNT]: the uniforms `draw_look` sets (look given) or `draw` sets (None: the seed's
    program, which is the look program with every key at 0 and the same colour rule)."""
    p = np.zeros(P_COUNT, np.float64)
    p[P_RADIUS] = float(diameter) / 2.0
    p[P_VIEWPORT:P_VIEWPORT + 2] = viewport
    p[P_CENTRE:P_CENTRE + 2] = viewport[0] / 2.0, viewport[1] / 2.0
    p[P_REACH] = float(np.hypot(*viewport) / 2.0)
    p[P_GAP] = float(gap)
    if look is not None:
        if colours is not None:
            p[P_BASE:P_BASE + 3] = colours.base
            p[P_SPAN:P_SPAN + 3] = np.asarray(colours.active, np.float32) - np.asarray(colours.base, np.float32)
        p[P_SWELL], p[P_STRETCH], p[P_GLOW], p[P_FADE] = look.swell, look.stretch, look.glow, look.fade
        p[P_INTRO] = look.intro
        p[P_CLOCK] = min(float(clock), look.intro)      # past the intro every dot is full size: the same picture
        p[P_SQUARE] = 1.0 if look.shape == "square" else 0.0
        remap = shown is not None
    else:
        base, active = ((np.asarray(colours.base, np.float32), np.asarray(colours.active, np.float32))
                        if colours is not None else (np.zeros(3, np.float32), np.ones(3, np.float32)))
        p[P_BASE:P_BASE + 3], p[P_SPAN:P_SPAN + 3] = base, active - base
        remap = shown is not None and not (np.array_equal(np.asarray(shown[0], np.float32), base)
                                           and np.array_equal(np.asarray(shown[1], np.float32), active))
    if remap:
        sb, sa = np.asarray(shown[0], np.float32), np.asarray(shown[1], np.float32)
        p[P_REMAP] = 1.0
        p[P_SHOW_BASE:P_SHOW_BASE + 3], p[P_SHOW_SPAN:P_SHOW_SPAN + 3] = sb, sa - sb
    return p


class Splat:
    """A grid painted on the CPU into a `Canvas` and composited in one quad (see `splat_pays`).
    Its per-dot tables are reused frame to frame; its image is also the sleeping grid's cache."""

    def __init__(self, ctx):
        self.canvas = Canvas(ctx)
        self.dots = np.zeros((0, D_COUNT), np.float32)
        self.box = np.zeros((0, 4), np.int32)
        self.starts = np.zeros(1, np.int64)
        self.order = np.zeros(0, np.int32)
        self.key = None          # what the canvas's texture shows (the sleep cache's key)
        self.paints = 0          # images painted (the tests read it: a sleeping grid paints none)

    def paint(self, grid: DotGrid, p: np.ndarray, scene_size) -> bool:
        """Paint every dot into the canvas and upload it (`Canvas.composite` shows it); False
        (nothing painted) when the bound viewport does not fit a canvas."""
        v = self.canvas.begin(scene_size, clear=False)   # every band clears its own rows
        if v is None:
            return False
        n = grid.n
        w, h = v.rect[2], v.rect[3]
        if len(self.dots) < n:
            self.dots = np.zeros((n, D_COUNT), np.float32)
            self.box = np.zeros((n, 4), np.int32)
        bands = -(-h // SPLAT_BAND_ROWS)
        if len(self.starts) != bands + 1:
            self.starts = np.zeros(bands + 1, np.int64)
        velocity = grid.velocity if len(grid.velocity) == n else np.zeros((0, 2), np.float32)
        split.run((_splat_setup, (grid.origin, grid.offset, grid.colour, velocity, p, v.x0, v.dx, v.y0, v.dy, w, h,
                                  self.dots, self.box, a, b)) for a, b in split.pieces(n, SPLAT_SETUP_DOTS))
        box = self.box[:n]
        total = _splat_bin(box, SPLAT_BAND_ROWS, self.starts, self.order)
        if total > len(self.order):
            self.order = np.zeros(max(total, 2 * len(self.order)), np.int32)
            total = _splat_bin(box, SPLAT_BAND_ROWS, self.starts, self.order)
        image, s, eight = self.canvas.image, self.starts, self.canvas.eight
        pixels = self.canvas.pixels if eight else np.zeros((0, 0, 4), np.uint8)
        square = p[P_SQUARE] == 1.0
        split.run((_splat_band, (image, pixels, eight, self.dots, self.box, self.order, s[b], s[b + 1],
                                 b * SPLAT_BAND_ROWS, min(h, (b + 1) * SPLAT_BAND_ROWS), v.x0, v.dx, v.y0, v.dy,
                                 square))
                  for b in range(bands))
        self.canvas.upload(quantized=eight)
        self.paints += 1
        return True


class DrawDots:
    def __init__(self):
        self._gl: dict[int, DotsGL] = {}

    @staticmethod
    def warm_kernels(width: float, height: float) -> None:
        """Compile the splat's kernels now if a grid of the current world would be splatted in a
        viewport of its scene's size (a first run's warm-up steps its scene but draws nothing)."""
        for ent, (grid, style) in esper.get_components(DotGrid, DotStyle):
            look = esper.try_component(ent, DotLook)
            if splat_pays(grid.n, style.size, None if plain(look) else look, (0, 0, int(width), int(height))):
                image, dots = np.zeros((4, 4, 4), np.float32), np.zeros((1, D_COUNT), np.float32)
                box, starts, order = np.zeros((1, 4), np.int32), np.zeros(2, np.int64), np.zeros(1, np.int32)
                one = np.zeros((1, 2), np.float32)
                _splat_setup(one, one, np.zeros((1, 3), np.float32), one, np.zeros(P_COUNT), 0.5, 1.0, 3.5, -1.0, 4, 4,
                             dots, box, 0, 1)
                _splat_bin(box, SPLAT_BAND_ROWS, starts, order)
                _splat_band(image, np.zeros((4, 4, 4), np.uint8), True, dots, box, order, 0, 1, 0, 4, 0.5, 1.0, 3.5,
                            -1.0, False)
                return

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl)
        for ent, (grid, style, layer) in esper.get_components(DotGrid, DotStyle, Layer):
            if layer.name != layer_name:
                continue
            gl = self._gl.get(ent)
            if gl is None:
                gl = self._gl[ent] = DotsGL(ctx)
            look = esper.try_component(ent, DotLook)
            colours = esper.try_component(ent, DotColours)
            sleep = esper.try_component(ent, DotSleep)
            viewport = (frame.width, frame.height)
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            if style.background[3] > 0.0:
                gl.fill.upload(gfx.quads([(frame.width / 2, frame.height / 2)],
                                         (frame.width / 2 + 1, frame.height / 2 + 1), style.background, 0.0))
                gl.fill.draw(viewport)
            fancy = not plain(look)
            light = frame.theme == "light" and style.light_base is not None
            shown = (style.light_base, style.light_active) if light else None
            state = (colours.base, colours.active) if colours is not None else None

            def dots(premultiply: bool) -> None:
                if fancy:
                    gl.draw_look(viewport, style.size, look, colours, frame.t, grid.gap, premultiply, shown)
                else:
                    gl.draw(viewport, style.size, state, shown, premultiply)

            asleep = sleep is not None and sleep.asleep and not intro_running(look, frame.t)
            covered = view(ctx.viewport, ctx.fbo.size, viewport)     # the pixels a canvas would hold
            picture = (0, 0, ctx.viewport[2], ctx.viewport[3])        # the whole picture's: one path for all its bands
            if covered is not None and splat_pays(grid.n, style.size, look if fancy else None, picture,
                                                  1.0 / covered.dx):
                if gl.splat is None:
                    gl.splat = Splat(ctx)
                p = splat_params(viewport, style.size, look if fancy else None, colours, frame.t, grid.gap, shown)
                key = (sleep.version if sleep is not None else None, tuple(ctx.viewport), ctx.fbo.size, p.tobytes())
                if not (asleep and gl.splat.key == key):     # asleep: the image painted for this state is the cache
                    gl.splat.key = key if gl.splat.paint(grid, p, viewport) else None
                if gl.splat.key is not None:
                    gl.splat.canvas.composite()
                    gl.cache = None
                    gl.cached_draws += asleep
                    continue
            if not asleep or not cache_pays(grid.n, style.size, tuple(ctx.viewport)):
                gl.cache = None
                gl.upload(grid, fancy)
                dots(False)
                continue
            key = (sleep.version, tuple(ctx.viewport), viewport, style.size, frame.theme)
            if gl.cache is None or gl.cache[1] != key:
                gl.upload(grid, fancy)
                gl.cache = (self._render_cache(ctx, gl, dots), key)
            self._composite(ctx, gl)

    @staticmethod
    def _render_cache(ctx, gl: DotsGL, dots):
        """The grid's dots, premultiplied, in a framebuffer the size of the bound viewport."""
        vp = tuple(ctx.viewport)
        old = gl.cache[0] if gl.cache is not None else None
        if old is not None and old.size == (vp[2], vp[3]):
            fbo = old
        else:
            fbo = ctx.framebuffer(color_attachments=[ctx.texture((vp[2], vp[3]), components=4, dtype="f2")])
        with fbo.activate():
            ctx.viewport = (0, 0, vp[2], vp[3])
            fbo.clear(color=(0, 0, 0, 0))
            ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA   # the programs write (rgb·a, a): "over" for both
            dots(True)
        ctx.viewport = vp
        ctx.blend_func = ctx.BLEND_DEFAULT
        return fbo

    @staticmethod
    def _composite(ctx, gl: DotsGL) -> None:
        fbo = gl.cache[0]
        ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA
        fbo.color_attachments[0].use(0)
        gl.blit["u_src"] = 0
        gl.empty.render(gl.blit, mode=ctx.TRIANGLES, vertices=3)
        ctx.blend_func = ctx.BLEND_DEFAULT
        gl.cached_draws += 1
