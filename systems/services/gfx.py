"""Batched arcade.gl drawing: smooth strokes and round/square quads, one draw call each.

Coordinates are scene pixels (origin top-left, y down); the shaders map them to
clip space from the ``viewport`` uniform, so HiDPI framebuffers need nothing else.
GL buffers are created once and grown by orphaning; every upload is contiguous
float32 (arcade.gl's "f"), never per-frame allocations of GL objects.
"""
from __future__ import annotations

import os
import weakref

import esper
import numpy as np
from arcade.gl import BufferDescription

STROKE_SUBDIV = 5        # most samples per quadratic piece: points are ~10 px apart, so 2 px chords
STROKE_SAMPLES = 20_000  # curve samples one Strokes draw may spend on smoothness (each is two triangles,
                         # ≈0.3 µs on a software rasteriser); past it pieces get fewer, down to one chord per piece
PIECE_BITS = 21          # bits of a sample's point index: 2,097,152 points per body (level.MAX_POINTS is 2,000,000)

# Where a Strokes draw is cheaper is the render profile's to say (`profile.StrokeCosts`: a software
# rasteriser pays per triangle, the CPU painter, stroke_raster, per sample plus a full image to clear,
# upload and composite; on a GPU the triangles always win). The rule is `cpu_paints`.
STROKES = os.environ.get("ROPEWORK_STROKES", "auto")   # "gpu" or "cpu" forces a path (bench A/B); else the profile


SCENE_TO_CLIP = """
// Scene pixels (origin top-left, y down, as the seeds) to clip space, for a viewport of that many pixels.
vec4 scene_to_clip(vec2 q, vec2 viewport) {
    return vec4(q.x / viewport.x * 2.0 - 1.0, 1.0 - q.y / viewport.y * 2.0, 0.0, 1.0);
}
"""


CULL_SLACK = 1.0   # px past a primitive's reach still counted as on-screen: GL snaps a vertex to 1/256 px and the
                   # shaders round in float32, far less than this; a pixel more to draw costs nothing seen


def visible_box(ctx, scene_size, reach: float) -> tuple[float, float, float, float] | None:
    """(x0, y0, x1, y1), scene px: the box a primitive must reach into to cover a pixel of the bound
    framebuffer's viewport (`canvas.view`: the viewport ∩ the framebuffer, an `Offscreen` band's rows
    or the whole window). Its pixel centres' span, widened by ``reach`` — how far past its points a
    primitive's fragments go (half its width plus the antialiasing's half pixel, a glow) — and
    `CULL_SLACK`. A primitive wholly outside it lights no pixel: culling it changes no picture.
    None when the viewport covers no pixel at all."""
    from ropework.systems.services import canvas
    v = canvas.view(ctx.viewport, ctx.fbo.size, scene_size)
    if v is None:
        return None
    _, _, w, h = v.rect
    xs, ys = (v.x0, v.x0 + (w - 1) * v.dx), (v.y0, v.y0 + (h - 1) * v.dy)
    r = float(reach) + CULL_SLACK
    return min(xs) - r, min(ys) - r, max(xs) + r, max(ys) + r


def outcodes(pos: np.ndarray, box) -> np.ndarray | None:
    """uint8[n]: which sides of ``box`` (x0, y0, x1, y1) each point lies beyond (bits 1 left, 2 right,
    4 above, 8 below; Cohen–Sutherland's codes), or None when every point is inside (nothing to cull:
    the common case, checked first). A segment, a quad or a curve held in the convex hull
    of points whose codes share a bit lies wholly beyond that side. NaN compares false: a NaN point
    is never beyond a side, so nothing drawn from it is culled (it draws as it always did)."""
    x0, y0, x1, y1 = box
    if not len(pos):
        return None
    x, y = pos[:, 0], pos[:, 1]
    if x.min() >= x0 and y.min() >= y0 and x.max() <= x1 and y.max() <= y1:   # per column: numpy's axis-0
        return None                                                           # min of (n, 2) is 20× slower
    code = (x < x0).view(np.uint8) | ((x > x1).view(np.uint8) << 1)
    code |= (y < y0).view(np.uint8) << 2
    code |= (y > y1).view(np.uint8) << 3
    return code


SPARE = 4   # GL objects of deleted bodies a draw system keeps for the next new body, at most


def forget_gone(cache: dict, spare: list | None = None) -> None:
    """Drop a draw system's per-entity GL objects of entities deleted since (a layer the studio
    rebuilt spawns new ones), so they are released instead of kept for good; with ``spare``, keep a
    few there for the bodies that replace them (`reuse`): a rope drawn rebuilds its layer, and making
    and releasing the GL objects again was a few ms of that frame on a software rasteriser."""
    for ent in [e for e in cache if not esper.entity_exists(e)]:
        gone = cache.pop(ent)
        if spare is not None and len(spare) < SPARE:
            spare.append(gone)


def reuse(cache: dict, spare: list, ent: int, make):
    """The GL objects of body ``ent``: its own, a spare one of a deleted body, or ``make()``."""
    got = cache.get(ent)
    if got is None:
        got = cache[ent] = spare.pop() if spare else make()
    return got


_PROGRAMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # ctx -> {(vs, fs): program}


def program(ctx, vertex_shader: str, fragment_shader: str):
    """The GL program of these sources on ``ctx``, compiled once: a layer the studio rebuilds (a rope
    drawn, a rope removed) makes new drawing objects, and a shader compile is ~10 ms on a software
    rasteriser. Each user sets every uniform before it renders, so one program serves them all."""
    progs = _PROGRAMS.setdefault(ctx, {})
    key = (vertex_shader, fragment_shader)
    if key not in progs:
        progs[key] = ctx.program(vertex_shader=vertex_shader, fragment_shader=fragment_shader)
    return progs[key]


def vertex_shader(source: str) -> str:
    """``source`` with `SCENE_TO_CLIP` declared after its #version line: one copy of the y-down mapping."""
    version, rest = source.lstrip().split("\n", 1)
    return f"{version}\n{SCENE_TO_CLIP}{rest}"


class Stream:
    """A GL buffer that is reused frame after frame and grows by orphaning."""

    def __init__(self, ctx, stride: int = 16, capacity: int = 256):
        self.stride = stride  # bytes per element: a vertex layout needs whole elements
        self.buffer = ctx.buffer(reserve=stride * capacity, usage="stream")

    def write(self, data: np.ndarray) -> None:
        data = np.ascontiguousarray(data)
        if data.nbytes > self.buffer.size:
            self.buffer.orphan(size=max(data.nbytes, 2 * self.buffer.size) // self.stride * self.stride + self.stride)
        if data.nbytes:
            self.buffer.write(data)


_STROKE_VS = """
#version 430
layout(std430, binding = 0) readonly buffer Positions { vec2 P[]; };
layout(std430, binding = 1) readonly buffer Styles { vec4 S[]; };   // per rope: colour, (width, 0, 0, 0)
layout(std430, binding = 2) readonly buffer Samples { ivec2 K[]; }; // per sample: packed piece, rope
uniform vec2 viewport;
uniform float width_scale;
uniform float alpha_scale;
uniform vec4 override_colour;   // alpha < 0: use each rope's colour
uniform int base;               // first point of this body in P
uniform int subdiv;             // samples per piece: a sample's step k sits at t = k / subdiv
out vec4 v_colour;
out float v_side;
out float v_half;
#ifdef PAIR
uniform float inner_width_scale;   // a second, narrower stroke along the same strip (Strokes.draw_pair)
uniform float inner_alpha_scale;
uniform vec4 inner_override;
out vec4 v_inner_colour;
out float v_inner_half;
#endif
void main() {
    // Two vertices per sample (side -1, +1): one triangle strip runs along every rope of the body.
    ivec2 k = K[gl_VertexID >> 1];
    float side = (gl_VertexID & 1) == 0 ? -1.0 : 1.0;
    int a = k.x & 0x1FFFFF;                 // the piece runs a, a+1, c (PIECE_BITS)
    float t = float((k.x >> 21) & 7) / float(subdiv);
    bool first = ((k.x >> 24) & 1) != 0;
    bool last = ((k.x >> 25) & 1) != 0;
    bool cap = ((k.x >> 26) & 1) != 0;      // a rope's zero-width end: the strip's join to the next rope
    vec2 A = P[base + a];
    vec2 B = P[base + a + 1];
    vec2 C = P[base + (last ? a + 1 : a + 2)];
    float ws = first ? 0.0 : 0.5;
    float wc = last ? (1.0 + ws) * 0.5 : 1.0;
    vec2 p0 = mix(A, B, ws);                // start, control and end of the quadratic
    vec2 p1 = mix(A, B, wc);
    vec2 p2 = mix(B, C, 0.5);
    float u = 1.0 - t;
    vec2 pt = u * u * p0 + 2.0 * u * t * p1 + t * t * p2;
    vec2 tg = 2.0 * u * (p1 - p0) + 2.0 * t * (p2 - p1);
    if (dot(tg, tg) < 1e-12) tg = p2 - p0;
    if (dot(tg, tg) < 1e-12) tg = vec2(1.0, 0.0);
    vec2 nrm = normalize(vec2(-tg.y, tg.x));
    vec4 style = S[2 * k.y + 1];
    float hw = 0.5 * style.x * width_scale;
    float extent = cap ? 0.0 : hw + 0.5;    // past hw + 0.5 a pixel's cover is 0: no fragments spent there
    vec2 q = pt + nrm * side * extent;
    gl_Position = scene_to_clip(q, viewport);
    vec4 c = override_colour.a < 0.0 ? S[2 * k.y] : override_colour;
    v_colour = vec4(c.rgb, c.a * alpha_scale);
    v_side = side * extent;
    v_half = hw;
#ifdef PAIR
    vec4 ci = inner_override.a < 0.0 ? S[2 * k.y] : inner_override;
    v_inner_colour = vec4(ci.rgb, ci.a * inner_alpha_scale);
    v_inner_half = 0.5 * style.x * inner_width_scale;
#endif
}
"""

_STROKE_FS = """
#version 430
in vec4 v_colour;
in float v_side;
in float v_half;
#ifdef PAIR
in vec4 v_inner_colour;
in float v_inner_half;
#endif
out vec4 out_colour;
void main() {
    float cover = clamp(v_half + 0.5 - abs(v_side), 0.0, 1.0);
#ifdef PAIR
    // Both strokes' light, premultiplied, for additive blending (ONE, ONE): the sum the two passes would add.
    if (isnan(v_side)) discard;             // a sliver's interpolation; it would stay in a kept light for good
    float inner = clamp(v_inner_half + 0.5 - abs(v_side), 0.0, 1.0);
    // Inside a bend tighter than the wide strip's half-width its triangles fold over: a pixel there is
    // covered forward, back and forward again, where the narrow strip covers it once. The folded-back
    // triangle faces away (the strip's own face counter-clockwise): it takes its share of the narrow
    // stroke out again, so the narrow one is counted once, as its own strip would count it.
    if (!gl_FrontFacing) inner = -inner;
    out_colour = vec4(v_colour.rgb * (v_colour.a * cover) + v_inner_colour.rgb * (v_inner_colour.a * inner), 1.0);
#else
    out_colour = vec4(v_colour.rgb, v_colour.a * cover);
#endif
}
"""


def _defined(source: str, name: str) -> str:
    """``source`` with ``#define name`` after its #version line (arcade's ``defines=`` only sets existing ones)."""
    version, rest = source.lstrip().split("\n", 1)
    return f"{version}\n#define {name} 1\n{rest}"


def stroke_subdiv(pieces: int) -> int:
    """Samples per piece for a body of ``pieces`` pieces: STROKE_SUBDIV, fewer past STROKE_SAMPLES."""
    return int(np.clip(STROKE_SAMPLES // max(pieces, 1), 1, STROKE_SUBDIV))


def stroke_samples(start: np.ndarray, count: np.ndarray, subdiv: int) -> np.ndarray:
    """The strip's samples along smooth paths through chains (the seeds' curve): int32[m, 2].

    The path starts at point 0, runs quadratic curves with each inner point as control
    and the midpoints as ends, and finishes with a straight run to the last point. A
    chain of n points has n - 1 pieces; each is sampled at t = k / subdiv, k = 1..subdiv,
    after the path's start (k = 0 of its first piece). Each chain's samples are framed
    by a zero-width copy of its first and last (the strip's join to the next chain is
    then degenerate). Column 0 packs the piece's first point a (PIECE_BITS), k << 21,
    first-piece << 24, last-piece << 25, zero-width << 26; column 1 is the chain's index.
    Chains of fewer than two points draw nothing.
    """
    count = np.asarray(count, np.int64)
    start = np.asarray(start, np.int64)
    pieces = np.maximum(count - 1, 0)
    if pieces.size and int((start + count).max()) >= 1 << PIECE_BITS:
        raise ValueError(f"a stroked body holds at most {1 << PIECE_BITS} points")
    drawn = np.flatnonzero(pieces)
    per = pieces[drawn] * subdiv + 3                      # samples per drawn chain: 2 caps, its start, subdiv a piece
    chain = np.repeat(drawn, per)
    j = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)   # sample index within its chain
    m = pieces[chain]
    end = j == np.repeat(per - 1, per)                    # the closing zero-width sample
    inner = np.maximum(j - 2, 0)                          # index among the chain's piece samples
    piece = np.where(j < 2, 0, np.where(end, m - 1, inner // subdiv))
    k = np.where(j < 2, 0, np.where(end, subdiv, inner % subdiv + 1))
    cap = (j == 0) | end
    packed = (start[chain] + piece) | (k << 21) | ((piece == 0) << 24) | ((piece == m - 1) << 25) | (cap << 26)
    return np.stack([packed, chain], 1).astype(np.int32)


def visible_samples(samples: np.ndarray, code: np.ndarray) -> np.ndarray:
    """The strip of ``samples`` (`stroke_samples`) less the stretches that light no pixel: int32[k, 2].

    The quad between samples s − 1 and s lies in the convex hull of s's piece's three control points
    (points a, a + 1 and c: the quadratic's ends and control are mixes of them, and the previous
    piece ends at this one's start), widened by the stroke's reach. When those three points' outcodes
    (``code``, `outcodes` against the viewport widened by that reach) share a side, the quad is off it.
    The quads kept are sent as runs of samples, each framed by zero-width copies of its first and
    last sample, as every chain already is: the joins between runs are degenerate, each kept quad is
    the same two triangles, and the strip's parity — which way a triangle faces, which `draw_pair`
    reads — is kept (every sample is two vertices). A body wholly in view gives its samples back."""
    packed = samples[:, 0]
    a = packed & 0x1FFFFF
    cap = ((packed >> 26) & 1).astype(bool)
    c = a + 2 - ((packed >> 25) & 1)                       # the piece's third point: a + 1 on a chain's last piece
    seen = (code[a] & code[a + 1] & code[c]) == 0
    quad = np.zeros(len(samples), bool)                    # quad[s]: the quad between s − 1 and s may light a pixel
    quad[1:] = seen[1:] & ~cap[1:] & ~cap[:-1]             # (caps frame chains: no quad crosses one)
    sent = quad.copy()
    sent[:-1] |= quad[1:]
    keep = np.flatnonzero(sent)
    if len(keep) + int(cap.sum()) == len(samples):       # every sample but the caps (only those can be sent):
        return samples                                     # the chains as they were
    first = np.ones(len(keep), bool)
    first[1:] = keep[1:] != keep[:-1] + 1                  # a run's first sample
    last = np.ones(len(keep), bool)
    last[:-1] = first[1:]
    run = np.cumsum(first) - 1
    at = np.arange(len(keep)) + 2 * run + 1                # each kept sample's row: after its run's opening cap
    out = np.empty((len(keep) + 2 * (run[-1] + 1 if len(keep) else 0), 2), np.int32)
    out[at] = samples[keep]
    out[at[first] - 1] = samples[keep[first]]
    out[at[last] + 1] = samples[keep[last]]
    out[at[first] - 1, 0] |= 1 << 26
    out[at[last] + 1, 0] |= 1 << 26
    return out


def cpu_paints(samples: int, pixels: int, threads: int = 1) -> bool:
    """Whether painting ``samples`` strip samples on the CPU over a scene of ``pixels`` beats the
    rasteriser's triangles, by the active profile's `profile.StrokeCosts` (c): c.gpu_sample·samples >
    c.cpu_draw + c.cpu_pixel·pixels + c.cpu_sample·samples/threads; never when it has none (a GPU).
    The scene's pixels, not the bound framebuffer's: a picture drawn in bands takes one path throughout.
    At 1280×720 the line falls near 9,000 samples: every shipped level's strokes stay triangles."""
    from ropework.systems.services import profile
    if STROKES in ("gpu", "cpu"):
        return STROKES == "cpu"
    c = profile.active().strokes
    if c is None:
        return False
    cpu = c.cpu_draw + c.cpu_pixel * pixels + c.cpu_sample * samples / max(threads, 1)
    return c.gpu_sample * samples > cpu


class Strokes:
    """Smooth variable-width paths through every rope of a body: one triangle strip, one draw call.

    A body of many samples is painted on the CPU instead (`stroke_raster`, into a `canvas.Canvas`,
    one textured quad), when `cpu_paints` says it is cheaper there: the same triangles, the same
    cover, the same order — less the look-alike ropes that lie within half a pixel of painted ones
    (`stroke_raster.keep_ropes`: a level of detail for curtains of ropes closer than a pixel).
    On the GPU only the stretches that can light a pixel of the bound viewport are sent
    (`visible_samples`): the same triangles, fewer of them when a body reaches past the viewport,
    as in every band but one of a large `Offscreen` picture; the painter clips to its band itself."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.program = program(ctx, vertex_shader(_STROKE_VS), _STROKE_FS)
        self._pair = None            # the program of draw_pair, made on its first use
        self.gain = 1.0              # the light added per unit of alpha: the caller's units (the tendrils' light is
                                     # kept over its LIGHT_RANGE); on the GPU it scales the alphas, painted the composite
        self.positions = Stream(ctx)
        self.styles = Stream(ctx)
        self.samples = Stream(ctx, stride=8)
        self._topology = None
        self.subdiv = STROKE_SUBDIV
        self.n_samples = 0
        self._samples = np.zeros((0, 2), np.int32)   # stroke_samples of the last topology
        self._samples_stale = True
        self.geometry = ctx.geometry([], mode=ctx.TRIANGLE_STRIP)   # vertices come from gl_VertexID
        self.canvas = None           # made on the first CPU paint
        self.painted = False         # the last draw went through the CPU painter (tests, bench)
        self._cpu = None             # (pos, samples, colour, width) of the last upload, for the painter
        self._gpu_stale = True       # the GL buffers do not hold the last upload yet
        self.sent = 0                # samples the last GPU draw sent (culled to its viewport; tests, bench)

    def upload(self, pos: np.ndarray, start, count, colour: np.ndarray, width: np.ndarray) -> None:
        """pos: float[n, >=2] scene px; start/count: the chains; colour float[r, 4]; width float[r]."""
        key = (np.asarray(start).tobytes(), np.asarray(count).tobytes())
        if key != self._topology:
            self._chains = (np.asarray(start).copy(), np.asarray(count).copy())
            self.subdiv = stroke_subdiv(int(np.maximum(np.asarray(count) - 1, 0).sum()))
            self._samples = stroke_samples(start, count, self.subdiv)
            self.n_samples = len(self._samples)
            self._topology = key
            self._samples_stale = True
        self._cpu = (np.ascontiguousarray(pos[:, :2], dtype=np.float32), np.asarray(colour, np.float32),
                     np.asarray(width, np.float32))
        self._gpu_stale = True

    def _to_gpu(self, viewport, reach: float) -> int:
        """The last upload into the GL buffers, and of its samples those of the stretches that can light
        a pixel of the bound viewport (`visible_samples`; a scene of ``viewport`` px, strokes reaching
        ``reach`` px past their paths). Returns how many samples the strip sent has."""
        pos, colour, width = self._cpu
        box = visible_box(self.ctx, viewport, reach)
        code = outcodes(pos, box) if box is not None and len(self._samples) else None
        samples = self._samples if code is None else visible_samples(self._samples, code)
        if samples is not self._samples:
            self.samples.write(samples)                   # this viewport's share of the strip
            self._samples_stale = True                    # the whole strip goes up again when it is wanted
        elif self._samples_stale:
            self.samples.write(self._samples)
            self._samples_stale = False
        self.sent = len(samples) if box is not None else 0
        if not self._gpu_stale:
            return self.sent
        self.positions.write(pos)
        style = np.zeros((len(width), 2, 4), np.float32)
        style[:, 0] = colour
        style[:, 1, 0] = width
        self.styles.write(style)
        self._gpu_stale = False
        return self.sent

    def draw(self, viewport, width_scale=1.0, alpha_scale=1.0, override=None) -> None:
        if not self.n_samples:
            return
        if self._paint(viewport, width_scale, alpha_scale, override):
            return
        self._render(self.program, viewport, width_scale, alpha_scale * self.gain, override)

    def _render(self, p, viewport, width_scale, alpha_scale, override, reach_scale=None) -> None:
        """Draw the strip with program ``p``; its strokes are at most ``reach_scale`` (default
        ``width_scale``) times each rope's width wide, which is how far from its path it is culled."""
        reach = 0.5 * float(self._cpu[2].max(initial=0.0)) * float(max(width_scale, reach_scale or 0.0)) + 0.5
        if not self._to_gpu(viewport, reach):
            return
        self.positions.buffer.bind_to_storage_buffer(binding=0)
        self.styles.buffer.bind_to_storage_buffer(binding=1)
        self.samples.buffer.bind_to_storage_buffer(binding=2)
        p["viewport"] = tuple(float(v) for v in viewport)
        p["width_scale"] = float(width_scale)
        p["alpha_scale"] = float(alpha_scale)
        p["override_colour"] = tuple(override) if override is not None else (0.0, 0.0, 0.0, -1.0)
        p["base"] = 0
        p["subdiv"] = self.subdiv
        self.geometry.render(p, vertices=2 * self.sent)

    def draw_pair(self, viewport, outer: tuple, inner: tuple) -> None:
        """Two additive strokes along the same paths in one pass: ``outer`` and ``inner`` are `draw`'s
        (width_scale, alpha_scale, override), the outer the wider. The light added is what
        ``draw(*outer)`` then ``draw(*inner)`` add under (SRC_ALPHA, ONE) blending — the blend the caller
        binds, and finds bound again after — but over the wider strip's triangles only: a software
        rasteriser pays ≈ 0.36 µs a triangle before any pixel, so the narrow stroke's own strip is the cost saved. The
        narrow stroke's side distance is the wide strip's, interpolated over its triangles: the same on
        straight runs, within a fraction of a pixel in bends, and its folds cancel (the shader's note).
        When the CPU painter takes the body (`cpu_paints`), the two are drawn in turn."""
        from ropework.systems.services import split
        if not self.n_samples:
            return
        if cpu_paints(self.n_samples, int(viewport[0]) * int(viewport[1]), split.threads()):
            self.draw(viewport, *outer)
            self.draw(viewport, *inner)
            return
        if self._pair is None:
            self._pair = self.ctx.program(vertex_shader=_defined(vertex_shader(_STROKE_VS), "PAIR"),
                                          fragment_shader=_defined(_STROKE_FS, "PAIR"))
        p = self._pair
        p["inner_width_scale"] = float(inner[0])
        p["inner_alpha_scale"] = float(inner[1]) * self.gain
        p["inner_override"] = tuple(inner[2]) if inner[2] is not None else (0.0, 0.0, 0.0, -1.0)
        ctx = self.ctx
        face = ctx.front_face
        ctx.front_face = "ccw"                  # the fold test reads which way a triangle faces:
        ctx.disable(ctx.CULL_FACE)              # the folded-back ones must be drawn
        ctx.blend_func = ctx.ONE, ctx.ONE       # the pair's light comes premultiplied
        self.painted = False
        self._render(p, viewport, outer[0], outer[1] * self.gain, outer[2], reach_scale=float(inner[0]))
        ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE
        ctx.front_face = face

    def _paint(self, viewport, width_scale, alpha_scale, override) -> bool:
        """Paint on the CPU when `cpu_paints` says so and the viewport fits a canvas; False: use the GPU."""
        from ropework.systems.services import canvas, split, stroke_raster
        self.painted = False
        v = canvas.view(self.ctx.viewport, self.ctx.fbo.size, viewport)
        if v is None or v.rect[2] * v.rect[3] > canvas.MAX_PIXELS:
            return False
        if not cpu_paints(self.n_samples, int(viewport[0]) * int(viewport[1]), split.threads()):
            return False
        if self.canvas is None:
            self.canvas = stroke_raster.Band(self.ctx)
        self.canvas.gain = self.gain
        pos, colour, width = self._cpu
        if not stroke_raster.paint(self.canvas, viewport, pos, *self._chains, self._samples, self.subdiv, colour,
                                   width, width_scale, alpha_scale, override):
            return False
        self.painted = True
        return True


_QUAD_VS = """
#version 330
uniform vec2 viewport;
in vec2 in_corner;      // -1..1
in vec2 in_centre;      // px
in vec2 in_half;        // half size, px
in vec4 in_colour;
in float in_round;      // 1: disc of radius half.x, 0: rectangle
out vec2 v_local;
out vec2 v_half;
out vec4 v_colour;
out float v_round;
void main() {
    vec2 ext = in_half + 0.5;     // past half + 0.5 a pixel's cover is 0: no fragments spent there
    vec2 q = in_centre + in_corner * ext;
    gl_Position = scene_to_clip(q, viewport);
    v_local = in_corner * ext;
    v_half = in_half;
    v_colour = in_colour;
    v_round = in_round;
}
"""

_QUAD_FS = """
#version 330
in vec2 v_local;
in vec2 v_half;
in vec4 v_colour;
in float v_round;
out vec4 out_colour;
void main() {
    float cover;
    if (v_round > 0.5) {
        cover = clamp(v_half.x + 0.5 - length(v_local), 0.0, 1.0);
    } else {
        vec2 c = clamp(v_half + 0.5 - abs(v_local), 0.0, 1.0);
        cover = c.x * c.y;
    }
    if (cover <= 0.0) discard;
    out_colour = vec4(v_colour.rgb, v_colour.a * cover);
}
"""

QUAD_DTYPE = np.dtype([("centre", "<f4", 2), ("half", "<f4", 2), ("colour", "<f4", 4), ("round", "<f4")])


class Quads:
    """Discs and rectangles (dots, sparks, rails), any number, in one draw call."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.program = program(ctx, vertex_shader(_QUAD_VS), _QUAD_FS)
        corners = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], np.float32)
        self.instances = Stream(ctx, stride=QUAD_DTYPE.itemsize)
        self.count = 0
        self.geometry = ctx.geometry(
            [BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"]),
             BufferDescription(self.instances.buffer, "2f 2f 4f 1f",
                               ["in_centre", "in_half", "in_colour", "in_round"], instanced=True)],
            mode=ctx.TRIANGLE_STRIP,
        )

    def upload(self, quads: np.ndarray) -> None:
        """quads: a QUAD_DTYPE array."""
        self.instances.write(quads)
        self.count = len(quads)

    def draw(self, viewport) -> None:
        if not self.count:
            return
        self.program["viewport"] = tuple(float(v) for v in viewport)
        self.geometry.render(self.program, instances=self.count)


def quads(centre, half, colour, round_: float) -> np.ndarray:
    """Build a QUAD_DTYPE array, broadcasting half/colour/round over the centres."""
    centre = np.asarray(centre, np.float32).reshape(-1, 2)
    out = np.empty(len(centre), QUAD_DTYPE)
    out["centre"] = centre
    out["half"] = half
    out["colour"] = colour
    out["round"] = round_
    return out


_LINKS_VS = """
#version 430
layout(std430, binding = 0) readonly buffer Positions { vec2 P[]; };
uniform vec2 viewport;
uniform float half_width;
in vec2 in_corner;      // x: 0 at a, 1 at b; y: side -1..1
in ivec2 in_link;       // the two point indices
out float v_side;
void main() {
    vec2 a = P[in_link.x];
    vec2 b = P[in_link.y];
    vec2 d = b - a;
    float len = length(d);
    vec2 t = len > 1e-6 ? d / len : vec2(1.0, 0.0);
    vec2 n = vec2(-t.y, t.x);
    float ext = half_width + 0.5; // past it a pixel's cover is 0
    vec2 q = mix(a, b, in_corner.x) + t * (in_corner.x * 2.0 - 1.0) * 0.5 + n * in_corner.y * ext;
    gl_Position = scene_to_clip(q, viewport);
    v_side = in_corner.y * ext;
}
"""

_LINKS_FS = """
#version 430
uniform vec4 colour;
uniform float half_width;
in float v_side;
out vec4 out_colour;
void main() {
    out_colour = vec4(colour.rgb, colour.a * clamp(half_width + 0.5 - abs(v_side), 0.0, 1.0));
}
"""


class Links:
    """Straight segments between pairs of points (any constraint graph), one draw call.

    Only the links that can light a pixel of the bound viewport go up (`visible_box`): a link whose
    two ends lie beyond the same side of it is culled (its quad is within its ends' box widened by
    half its width plus a pixel), the others keep their order, so the picture is the same bits."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.program = program(ctx, vertex_shader(_LINKS_VS), _LINKS_FS)
        corners = np.array([[0, -1], [1, -1], [0, 1], [1, 1]], np.float32)
        self.positions = Stream(ctx)
        self.links = Stream(ctx, stride=8)
        self.count = 0               # links the last draw sent (the culled ones are not)
        self._pos = np.zeros((0, 2), np.float32)
        self._a = self._b = np.zeros(0, np.int32)
        self.geometry = ctx.geometry(
            [BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"]),
             BufferDescription(self.links.buffer, "2i", ["in_link"], instanced=True)],
            mode=ctx.TRIANGLE_STRIP,
        )

    def upload(self, pos: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """pos: float[n, >=2] scene px; a, b: int[m] the linked points. Sent to the GPU by `draw`,
        which knows what the viewport shows."""
        self._pos = np.ascontiguousarray(pos[:, :2], dtype=np.float32)
        self._a, self._b = a, b

    def draw(self, viewport, colour, width: float) -> None:
        """The uploaded links of a scene of ``viewport`` px, ``width`` px wide, into the bound viewport."""
        a, b = self._a, self._b
        box = visible_box(self.ctx, viewport, float(width) / 2 + 1.0)   # the quad: ±(hw + 0.5) across, 0.5 past each end
        self.count = 0
        if box is None:                      # the viewport covers no pixel
            return
        links = np.empty((len(a), 2), np.int32)
        links[:, 0], links[:, 1] = a, b
        code = outcodes(self._pos, box)
        if code is not None:                 # some point is beyond a side: drop the links wholly beyond one
            beyond = code[a]
            beyond &= code[b]
            links = links.view(np.int64).reshape(-1)[beyond == 0].view(np.int32).reshape(-1, 2)   # pairs, in order
        self.count = len(links)
        if not self.count:
            return
        self.positions.write(self._pos)
        self.links.write(links)
        self.positions.buffer.bind_to_storage_buffer(binding=0)
        p = self.program
        p["viewport"] = tuple(float(v) for v in viewport)
        p["colour"] = tuple(float(c) for c in colour)
        p["half_width"] = float(width) / 2
        self.geometry.render(p, instances=self.count)


_TINTED_LINKS_VS = """
#version 430
layout(std430, binding = 0) readonly buffer Positions { vec2 P[]; };
uniform vec2 viewport;
uniform float half_width;
in vec2 in_corner;      // x: 0 at a, 1 at b; y: side -1..1
in ivec2 in_link;       // the two point indices
in vec4 in_colour;      // the link's own colour
out float v_side;
out vec4 v_colour;
void main() {
    vec2 a = P[in_link.x];
    vec2 b = P[in_link.y];
    vec2 d = b - a;
    float len = length(d);
    vec2 t = len > 1e-6 ? d / len : vec2(1.0, 0.0);
    vec2 n = vec2(-t.y, t.x);
    float ext = half_width + 0.5;
    vec2 q = mix(a, b, in_corner.x) + t * (in_corner.x * 2.0 - 1.0) * 0.5 + n * in_corner.y * ext;
    gl_Position = scene_to_clip(q, viewport);
    v_side = in_corner.y * ext;
    v_colour = in_colour;
}
"""

_TINTED_LINKS_FS = """
#version 430
uniform float half_width;
in float v_side;
in vec4 v_colour;
out vec4 out_colour;
void main() {
    out_colour = vec4(v_colour.rgb, v_colour.a * clamp(half_width + 0.5 - abs(v_side), 0.0, 1.0));
}
"""


class TintedLinks:
    """Straight segments between pairs of points, each in a colour of its own, one draw call (the
    strain overlay). Every link is sent: an overlay of a few thousand links at most is on."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.program = program(ctx, vertex_shader(_TINTED_LINKS_VS), _TINTED_LINKS_FS)
        corners = np.array([[0, -1], [1, -1], [0, 1], [1, 1]], np.float32)
        self.positions = Stream(ctx)
        self.links = Stream(ctx, stride=24)
        self.count = 0
        self.geometry = ctx.geometry(
            [BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"]),
             BufferDescription(self.links.buffer, "2i 4f", ["in_link", "in_colour"], instanced=True)],
            mode=ctx.TRIANGLE_STRIP,
        )

    def draw(self, viewport, pos: np.ndarray, a: np.ndarray, b: np.ndarray, colour: np.ndarray, width: float) -> None:
        """Links a → b of points ``pos`` (float[n, >=2] scene px), link i in ``colour[i]`` (float[m, 4]),
        ``width`` px wide, in a scene of ``viewport`` px."""
        self.count = len(a)
        if not self.count:
            return
        rows = np.empty((self.count, 6), np.float32)
        rows[:, 0] = np.asarray(a, np.int32).view(np.float32)
        rows[:, 1] = np.asarray(b, np.int32).view(np.float32)
        rows[:, 2:] = colour
        self.positions.write(np.ascontiguousarray(pos[:, :2], dtype=np.float32))
        self.links.write(rows)
        self.positions.buffer.bind_to_storage_buffer(binding=0)
        p = self.program
        p["viewport"] = tuple(float(v) for v in viewport)
        p["half_width"] = float(width) / 2
        self.geometry.render(p, instances=self.count)
