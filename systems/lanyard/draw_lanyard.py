"""Draw lanyard: the strap as a lit ribbon and the badge as a lit glossy slab, in 3D.

Reads: Points (the strap), Card, CardLook, StrapLook, Camera, Lights, Layer,
Frame.width/height. Writes: the framebuffer (composited over what is there).

The layer renders in perspective into a framebuffer of its own — colour and a
depth buffer, cleared to transparent — and is then composited over the bound
framebuffer with premultiplied-alpha blending, so it sits on any layer below
(the dot grid) and the scene's framebuffer needs no depth of its own. Its
framebuffer holds at most `max_pixel_ratio` pixels per scene pixel; with
`antialias` it holds at least AA_RATIO, and the composite averages taps×taps
samples per target pixel (supersampling: arcade.gl has no multisampled depth).

Strap (the seed's ribbon): a uniform Catmull-Rom curve through the points,
`samples` per segment; at each sample the side direction is the tangent turned
90° about Z, vertices at ± width/2; u runs 0 → 1 along the arc length (the
seed's one texture along the strap, by length so a stretch does not slide
the print), v across. The
texture is the seed's woven band (`ropework.systems.lanyard.art.strap_texture`), repeating
along, clamped across, mip-mapped and read through `ewa_like` (below), with its weave
drawn every WEAVE_PITCH units instead of every 4 px of the canvas, so it shows at 1:1.

Card: a rounded slab — front art, back art, plain edge — whose front face lies
`card_offset` behind the strap's end, with a metal clip where the strap meets
it; posed by `Card.pos` and its Euler XYZ rotation.

Shading (ours, after three.js's physical units, in linear light): diffuse
albedo·(ambient/π + Σ intensity·max(n·l, 0)/π) — the seed's ambient π gives the
albedo itself, the key/fill/rim lights add up to ≈ +35 % on a face turned to
them — plus GGX specular from each light (rough for the woven strap, a glossy
clear coat on the card, metal on the clip) and, for the coat, a soft studio
reflection weighted by Schlick's Fresnel so tilted faces and edges gleam
(the seed's MeshPhysicalMaterial clear coat, without an environment map); the
coat takes its Fresnel share from the light reaching the layer under it, as
three.js's does. With lights that strong only a stock below white can show
them: the default card colour sits at ≈ 91 % at rest, ≈ 87 % turned from the
key and ≈ 95 % toward it (a brighter key clips at 97–99.7 % and the card reads flat).
Faces seen from behind are lit with their normal flipped (the strap is one
sheet). Output is sRGB-encoded, as the seed's renderer.

Finishes (`CardFinish`): the card's material is the seed's glossy
laminate, a matte stock, a metal, or the glossy card with a holographic foil:
a second pass over its front and back, added on top (depth equal), whose hue
runs with the view angle and across the card so it shimmers as the card turns.
A back image, or the front's picture when there is none, replaces the drawn
back; a strap image repeats along the strap (its height across the strap's
width) instead of the woven print.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from functools import lru_cache

import esper
import numpy as np
from arcade.gl import BufferDescription
from pyglet import gl
from pyglet.gl import GL_VIEWPORT, GLint, glGetIntegerv

from ropework.components import Layer, Points
from ropework.components.lanyard import Camera, Card, CardFinish, CardLook, Lights, StrapLook
from ropework.systems.lanyard import art
from ropework.systems.lanyard import camera as cam3
from ropework.systems.services import profile
from ropework.systems.services.colour import parse_colour
from ropework.systems.services.gfx import Stream, forget_gone

AA_RATIO = 2.0          # render pixels per scene pixel at least, when antialiased (2×2 supersampling at DPR 1)
MAX_LAYER_PIXELS = 3840 * 2160   # render pixels of the layer framebuffer at most (~66 MB with depth): 2×2
                                 # supersampling of 1920×1080; a larger window renders the layer coarser
MAX_TAPS = 4            # composite samples per axis per target pixel at most
BOX_PAD = 2.0          # scene px around the layer's projected bounds: room for edge anti-aliasing
MAX_LIGHTS = 8          # directional lights the shader takes (level files allow 8)
CORNER_RADIUS = 0.1     # units: the card's rounded corners (an ID card's 3 mm on 86 mm, scaled)
CORNER_STEPS = 8        # segments per rounded corner
CLIP_SIZE = (0.36, 0.34, 0.05)   # units: width, height, jaw depth beyond each card face of the metal clip
LOOP_SIZE = (0.26, 0.16, 0.05)   # units: the ring the strap threads through, above the clip
CARD_BEVEL = 0.035      # units: the laminate's rounded rim, where the card's face normals lean out
CLIP_BEVEL = 0.06       # units: the pressed-steel clip's rounded rim
BEVEL_LEAN = 1.2        # rim normals lean out by atan(1.2) ≈ 50°: a rounded edge, not a chamfer
EDGE_SHADE = 0.82       # the card's edge is its colour darkened by this factor (cut stock)

# Materials: (roughness 0..1, metalness 0..1, clear coat 0..1).
STRAP_MATERIAL = (0.62, 0.0, 0.0)   # woven polyester: broad, faint sheen
CARD_MATERIAL = (0.45, 0.0, 1.0)    # printed stock under a glossy laminate
CLIP_MATERIAL = (0.28, 1.0, 0.0)    # brushed steel
WEAVE_PITCH = 0.045                 # units between weave lines, both ways: ≈ 3 px at 720 px tall, so the
                                    # weave reads at 1:1 (the seed's 4 px in its 2048 x 128 canvas is 0.6 px)
WEAVE_LINE = 1 / 3                  # a weave line's share of the pitch
WEAVE_ALPHA = 0.10                  # white over the base on a line: the seed's 4 % is lost under the lights
COAT_ROUGHNESS = 0.12               # the laminate's gloss: a narrow key-light highlight that sweeps the face as it turns
FINISHES = {                        # the card's material by its `finish` key
    "glossy": CARD_MATERIAL,
    "matte": (0.85, 0.0, 0.0),      # uncoated card stock: a broad, dull sheen
    "metallic": (0.32, 1.0, 0.2),   # anodised metal card, its colour in the reflection
    "holographic": CARD_MATERIAL,   # the glossy card under the foil pass
}
FOIL_STRENGTH = 0.38    # the foil's added light at its brightest (sRGB 0..1): vivid, the print still reads
FOIL_BANDS = 2.2        # rainbow cycles across the card's diagonal

_FOIL_FS = """
#version 330
uniform vec3 u_eye;
uniform float u_strength;
uniform float u_bands;
in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
out vec4 out_colour;
void main() {
    vec3 N = normalize(v_normal);
    if (!gl_FrontFacing) N = -N;
    vec3 V = normalize(u_eye - v_world);
    float NdotV = max(dot(N, V), 0.0);
    vec3 R = reflect(-V, N);
    float phase = u_bands * (v_uv.x + 0.6 * v_uv.y) + 3.0 * (R.x + 0.5 * R.y) + 2.0 * NdotV;
    vec3 rainbow = 0.5 + 0.5 * cos(6.28318 * (phase + vec3(0.0, 0.33, 0.67)));
    float sheen = u_strength * (0.35 + 0.65 * pow(1.0 - NdotV, 0.7)) * (0.6 + 0.4 * sin(25.0 * v_uv.y + 9.0 * R.x));
    out_colour = vec4(rainbow * sheen, 0.0);
}
"""

_MESH_VS = """
#version 330
uniform mat4 u_vp;
uniform mat4 u_model;
uniform mat3 u_normal;
in vec3 in_pos;
in vec3 in_normal;
in vec2 in_uv;
out vec3 v_world;
out vec3 v_normal;
out vec2 v_uv;
void main() {
    vec4 w = u_model * vec4(in_pos, 1.0);
    v_world = w.xyz;
    v_normal = u_normal * in_normal;
    v_uv = in_uv;
    gl_Position = u_vp * w;
}
"""

# Texture filtering. The card and strap were tuned under the software rasteriser's anisotropic filter (any anisotropy
# above 1; Mesa 22.3's cap never applies, its test in lp_build_pmin compares the minor axis with itself
# times the cap's square): an EWA (elliptical weighted average, Heckbert's) over nearest
# texels, ≈ 20 a read, of the mip level whose texels the pixel's shorter derivative spans once to
# twice, weighted exp(−α r²) − exp(−α) inside the ellipse of the derivatives (J Jᵀ) plus one texel²
# (the reconstruction). That was ≈ 12 ms of a 35 ms badge frame. The mesh shader draws the same blur
# with one trilinear read (8 texels): at the LOD whose kernel — the pyramid's box prefilter and the
# bilinear tent, (3·4^lod − 1)/12 texels² at level 0 — has the EWA kernel's variance across the
# footprint's minor axis, plus a share of the major axis' extra.
EWA_ALPHA = 2.0           # the EWA weight's falloff (the software rasteriser's, after PBRT): exp(−2 r²) − exp(−2), r < 1
TEXTURE_ANISOTROPY = 1.0  # the textures' own anisotropic filter: off, the mesh shader filters (`_FILTER_GLSL`)
MAJOR_SHARE = 0.25        # of the footprint's major-axis extra spread, the share the one read blurs by too: a card
                          # turned edge-on drew its text crisp and aliased at 0, blurred across its short side at 1


def ewa_spread(alpha: float = EWA_ALPHA) -> float:
    """Variance along one axis, per unit² of its ellipse, of the weight exp(−α r²) − exp(−α) over the unit disc."""
    e = math.exp(-alpha)
    num = (1 - (1 + alpha) * e) / (2 * alpha ** 2) - e / 4       # ∫₀¹ r³ w dr
    den = (1 - e) / (2 * alpha) - e / 2                          # ∫₀¹ r w dr
    return 0.5 * num / den


EWA_SPREAD = ewa_spread()  # 0.136 at α = 2: the EWA kernel's variance, texels², per texel² of its ellipse

_FILTER_GLSL = """
const float EWA_SPREAD = %(spread).6f;
const float MAJOR_SHARE = %(major).6f;
// The LOD of one trilinear read with the EWA read's blur (texels² at level 0 throughout).
float ewa_lod(vec2 dx, vec2 dy) {                  // the footprint: level-0 texels per pixel along x and y
    float level = max(floor(0.5 * log2(min(dot(dx, dx), dot(dy, dy)))), 0.0);   // the level EWA reads
    // EWA's covariance: spread × (J Jᵀ + one texel² of that level), and that level's box prefilter
    float iso = exp2(2.0 * level) * (EWA_SPREAD + 1.0 / 12.0) - 1.0 / 12.0;
    float a = EWA_SPREAD * (dx.x * dx.x + dy.x * dy.x);
    float b = EWA_SPREAD * (dx.x * dx.y + dy.x * dy.y);
    float c = EWA_SPREAD * (dx.y * dx.y + dy.y * dy.y);
    float h = 0.5 * (a - c);
    float r = sqrt(h * h + b * b);                 // half the gap between the major and minor variances
    float v = 0.5 * (a + c) - r + 2.0 * r * MAJOR_SHARE + iso;
    return 0.5 * log2(4.0 * v + 1.0 / 3.0);       // (3·4^lod − 1)/12 = v
}
vec4 ewa_like(sampler2D t, vec2 uv) {
    vec2 size = vec2(textureSize(t, 0));
    return textureLod(t, uv, ewa_lod(dFdx(uv) * size, dFdy(uv) * size));
}
""" % {"spread": EWA_SPREAD, "major": MAJOR_SHARE}  # noqa: UP031  (GLSL braces: % needs no escaping)

_MESH_FS = """
#version 330
const float PI = 3.14159265358979;
uniform vec3 u_eye;
uniform float u_ambient;
uniform int u_lights;
uniform vec3 u_light_dir[8];
uniform vec3 u_light_rad[8];    // linear colour × intensity
uniform sampler2D u_tex;
uniform int u_textured;
uniform vec3 u_colour;          // linear (converted once per part on the CPU); multiplies the texture when textured
uniform vec3 u_material;        // roughness, metalness, clear coat
uniform float u_coat_rough;     // the clear coat's own roughness
in vec3 v_world;
in vec3 v_normal;
in vec2 v_uv;
out vec4 out_colour;

vec3 to_linear(vec3 c) { return pow(c, vec3(2.2)); }
%(filter)s
// x^5 by multiplying: the software rasteriser's pow is an exp2 of a log2, per pixel, per light, twice (Schlick's Fresnel)
float pow5(float x) { float x2 = x * x; return x2 * x2 * x; }

float ggx(float NdotH, float NdotL, float NdotV, float rough) {
    float a = rough * rough;
    float a2 = a * a;
    float d = NdotH * NdotH * (a2 - 1.0) + 1.0;
    float D = a2 / (PI * d * d);
    float gl = NdotV * sqrt(a2 + (1.0 - a2) * NdotL * NdotL);
    float gv = NdotL * sqrt(a2 + (1.0 - a2) * NdotV * NdotV);
    return D * 0.5 / max(gl + gv, 1e-5);
}

void main() {
    vec3 N = normalize(v_normal);
    if (!gl_FrontFacing) N = -N;
    vec3 V = normalize(u_eye - v_world);
    vec3 base = u_colour;
    if (u_textured == 1) base *= to_linear(ewa_like(u_tex, v_uv).rgb);
    float rough = u_material.x, metal = u_material.y, coat = u_material.z;
    vec3 albedo = base * (1.0 - metal);
    vec3 F0 = mix(vec3(0.04), base, metal);
    float NdotV = max(dot(N, V), 1e-4);
    vec3 col = albedo * u_ambient / PI;
    for (int i = 0; i < u_lights; ++i) {
        vec3 L = u_light_dir[i];
        float NdotL = dot(N, L);
        if (NdotL <= 0.0) continue;
        vec3 H = normalize(L + V);
        float NdotH = max(dot(N, H), 0.0);
        float VdotH = max(dot(V, H), 0.0);
        float f5 = pow5(1.0 - VdotH);   // Schlick's weight, shared by the base and the coat
        vec3 F = F0 + (1.0 - F0) * f5;
        vec3 spec = F * ggx(NdotH, NdotL, NdotV, rough);
        vec3 lit = albedo / PI + spec;
        if (coat > 0.0) {   // uniform: the strap and the clip (no coat) skip the coat's GGX, no pixel changes
            float cF = 0.04 + 0.96 * f5;
            lit = lit * (1.0 - coat * cF) + coat * cF * ggx(NdotH, NdotL, NdotV, u_coat_rough);   // what the coat lets through (three.js), and its gloss
        }
        col += u_light_rad[i] * NdotL * lit;
    }
    // Clear coat and metal: a soft studio reflection (bright above, dim below), Fresnel-weighted.
    vec3 R = reflect(-V, N);
    float env = mix(0.03, 0.55, smoothstep(-0.3, 0.9, R.y));
    float fres = 0.04 + 0.96 * pow5(1.0 - NdotV);
    col += coat * fres * env + metal * F0 * mix(0.25, 0.9, smoothstep(-0.5, 0.8, R.y));
    col = pow(clamp(col, 0.0, 1.0), vec3(1.0 / 2.2));
    out_colour = vec4(col, 1.0);
}
""".replace("%(filter)s", _FILTER_GLSL)

_COMPOSITE_VS = """
#version 330
uniform vec4 u_vp;      // the target framebuffer's viewport x, y, w, h, in its own pixels (GL_VIEWPORT)
uniform vec4 u_rect;    // the target pixels to write: x0, y0, x1, y1, whole pixels inside u_vp
void main() {
    // A quad over exactly u_rect (a triangle strip): no fragment outside it, whatever the scissor does.
    vec2 c = vec2(gl_VertexID & 1, gl_VertexID >> 1);
    vec2 px = mix(u_rect.xy, u_rect.zw, c);
    gl_Position = vec4((px - u_vp.xy) / u_vp.zw * 2.0 - 1.0, 0.0, 1.0);
}
"""

_COMPOSITE_FS = """
#version 330
uniform sampler2D u_src;
uniform vec4 u_vp;      // target viewport x, y, w, h (pixels): it maps onto the whole layer framebuffer
uniform vec4 u_own;     // the layer texels cleared and drawn this frame: x0, y0, x1, y1 (texels)
const int TAPS = %(taps)d;   // bilinear taps per axis: each at a texel's centre, or (paired) where 2×2 texels meet;
                        // a constant, one program per count: the software rasteriser pays for a loop over a uniform at every pixel
out vec4 out_colour;
void main() {
    vec2 size = vec2(textureSize(u_src, 0));
    vec2 px = 1.0 / u_vp.zw;
    vec2 p = (gl_FragCoord.xy - 0.5 - u_vp.xy) * px; // lower-left corner of this pixel, 0..1 (FragCoord is its centre)
    vec2 lo = (u_own.xy + 0.5) / size, hi = (u_own.zw - 0.5) / size;   // bilinear taps stay on this frame's texels
    vec4 acc = vec4(0.0);
    for (int j = 0; j < TAPS; ++j)
        for (int i = 0; i < TAPS; ++i)
            acc += texture(u_src, clamp(p + (vec2(i, j) + 0.5) / float(TAPS) * px, lo, hi));
    out_colour = acc / float(TAPS * TAPS);            // premultiplied: the layer was cleared to 0
}
"""


# ── geometry (numpy; positions in scene units) ──────────────────────────────

def catmull_rom(points: np.ndarray, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniform Catmull-Rom curve through ``points`` (float[n, 3]), ``samples`` per segment.

    Returns (position, tangent), float64[(n−1)·samples + 1, 3]; the ends are
    extended by reflection (as three.js's open CatmullRomCurve3), so the curve
    starts and ends on the first and last points.
    """
    p = np.asarray(points, np.float64)
    ext = np.concatenate([2 * p[:1] - p[1:2], p, 2 * p[-1:] - p[-2:-1]])
    ctrl = np.stack([ext[:-3], ext[1:-2], ext[2:-1], ext[3:]], axis=1)    # [n−1, 4, 3]
    t = np.arange(samples) / samples
    one = np.ones_like(t)
    # Rows: weights of p0..p3 for position and for d/dt, at each t.
    pw = 0.5 * np.stack([-t ** 3 + 2 * t ** 2 - t, 3 * t ** 3 - 5 * t ** 2 + 2 * one,
                         -3 * t ** 3 + 4 * t ** 2 + t, t ** 3 - t ** 2], axis=1)
    dw = 0.5 * np.stack([-3 * t ** 2 + 4 * t - one, 9 * t ** 2 - 10 * t,
                         -9 * t ** 2 + 8 * t + one, 3 * t ** 2 - 2 * t], axis=1)
    pos = np.einsum("kj,mjd->mkd", pw, ctrl).reshape(-1, 3)
    tan = np.einsum("kj,mjd->mkd", dw, ctrl).reshape(-1, 3)
    last = ctrl[-1]
    pos = np.concatenate([pos, last[2:3]])
    tan = np.concatenate([tan, 0.5 * (last[3:4] - last[1:2])])
    return pos, tan


def ribbon(points: np.ndarray, width: float, samples: int) -> np.ndarray:
    """float32[2k, 8] ribbon vertices (pos, normal, uv) along the curve through ``points``.

    Pairs (+side, −side) per sample; side = tangent turned 90° about Z; normal =
    tangent × side (toward +z when the strap hangs flat); u = 0 → 1 from the
    anchor to the end by arc length (the seed's one texture along the strap),
    v = 0 on the +side and 1 on the −side (the print's top faces +side).
    """
    pos, tan = catmull_rom(points, samples)
    side = np.stack([-tan[:, 1], tan[:, 0], np.zeros(len(tan))], axis=1)
    ln = np.linalg.norm(side, axis=1, keepdims=True)
    side = np.where(ln > 1e-9, side / np.maximum(ln, 1e-12), np.array([1.0, 0.0, 0.0]))
    normal = np.cross(tan, side)
    nl = np.linalg.norm(normal, axis=1, keepdims=True)
    normal = np.where(nl > 1e-9, normal / np.maximum(nl, 1e-12), np.array([0.0, 0.0, 1.0]))
    seg = np.linalg.norm(np.diff(pos, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(seg)])
    u = arc / max(arc[-1], 1e-12)
    k = len(pos)
    out = np.empty((k, 2, 8), np.float32)
    out[:, 0, :3] = pos + side * (width / 2)
    out[:, 1, :3] = pos - side * (width / 2)
    out[:, :, 3:6] = normal[:, None, :]
    out[:, :, 6] = u[:, None]
    out[:, 0, 7], out[:, 1, 7] = 0.0, 1.0
    return out.reshape(-1, 8)


def ribbon_indices(k: int) -> np.ndarray:
    """int32 triangle indices stitching k sample pairs (the seed's a, c, b, b, c, d)."""
    i = np.arange(k - 1, dtype=np.int32)[:, None] * 2
    return (i + np.array([0, 2, 1, 1, 2, 3], np.int32)).reshape(-1)


def rounded_outline(x0: float, y0: float, x1: float, y1: float, r: float, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Counter-clockwise outline of a rounded rectangle and its outward normals, float64[m, 2] each.

    Every outline of the same ``steps`` has the same vertex count and angles, so an
    inset outline pairs point for point with the one around it.
    """
    r = max(0.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    corners = [(x1 - r, y1 - r, 0.0), (x0 + r, y1 - r, 0.5), (x0 + r, y0 + r, 1.0), (x1 - r, y0 + r, 1.5)]
    pts, nrm = [], []
    for cx, cy, start in corners:
        a = (start + np.linspace(0.0, 0.5, steps + 1)) * math.pi
        d = np.stack([np.cos(a), np.sin(a)], axis=1)
        pts.append(np.array([cx, cy]) + r * d)
        nrm.append(d)
    return np.concatenate(pts), np.concatenate(nrm)


def slab(x0, y0, x1, y1, z_back, z_front, r, bevel=0.0, steps=CORNER_STEPS,
         fat: bool = False) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """A rounded slab as three parts, each (vertices float32[v, 8], indices int32): front, back, edge.

    Each face is flat inside a band ``bevel`` wide along its rim, where the
    normals lean out (by BEVEL_LEAN) so the rim catches the light like a
    laminated or pressed edge. Front (z_front, facing +z) has u left→right,
    v top→bottom over the box; the back mirrors u so its picture reads from behind.
    The flat inside is a fan from the face's centre, or with ``fat`` the same pixels in fat triangles.
    """
    ring, out = rounded_outline(x0, y0, x1, y1, r, steps)
    b = min(bevel, (x1 - x0) / 4, (y1 - y0) / 4)
    inner, _ = rounded_outline(x0 + b, y0 + b, x1 - b, y1 - b, r - b, steps)
    m = len(ring)
    w, h = x1 - x0, y1 - y0
    j = np.arange(m, dtype=np.int32)
    n = (j + 1) % m

    # The flat inside, in fat triangles: a cross of five rectangles between the inner outline's corner
    # centres, and a small fan round each centre for its arc. A fan from the face's centre covers the
    # same pixels, but its 36 long slivers meet there: the software rasteriser shades a 4×4 block once for every
    # triangle touching it, so most of the face was shaded more than once.
    ri = max(0.0, min(r - b, (x1 - x0) / 2 - b, (y1 - y0) / 2 - b))     # as `rounded_outline` clamps it
    centres = np.array([[x1 - b - ri, y1 - b - ri], [x0 + b + ri, y1 - b - ri],
                        [x0 + b + ri, y0 + b + ri], [x1 - b - ri, y0 + b + ri],    # its corners' order,
                        [(x0 + x1) / 2, (y0 + y1) / 2]])                            # then the face's (the fan's)
    arc = steps + 1                                   # inner points a corner; corner k's are o + k·arc …
    o = len(centres)
    first = [o + k * arc for k in range(4)]
    last = [o + k * arc + steps for k in range(4)]
    fans = np.concatenate([np.stack([np.full(steps, k), first[k] + np.arange(steps),
                                     first[k] + 1 + np.arange(steps)], axis=1) for k in range(4)])
    cross = np.array([[2, 3, 0], [2, 0, 1],                         # the middle, then top, left, bottom, right
                      [1, 0, last[0]], [1, last[0], first[1]],
                      [first[2], 2, 1], [first[2], 1, last[1]],
                      [last[2], first[3], 3], [last[2], 3, 2],
                      [3, last[3], first[0]], [3, first[0], 0]])

    def face(z, nz, u):
        xy = np.concatenate([centres, inner, ring])
        v = np.zeros((o + 2 * m, 8), np.float32)
        v[:, :2], v[:, 2] = xy, z
        v[:o + m, 5] = nz
        lean = np.c_[out * BEVEL_LEAN, np.full(m, nz)] if b > 0 else np.c_[np.zeros((m, 2)), np.full(m, nz)]
        v[o + m:, 3:6] = lean / np.linalg.norm(lean, axis=1, keepdims=True)
        v[:, 6] = u(xy[:, 0])
        v[:, 7] = (y1 - xy[:, 1]) / h
        band = np.concatenate([np.stack([o + j, o + m + j, o + n], axis=1),
                               np.stack([o + n, o + m + j, o + m + n], axis=1)])
        inside = np.concatenate([fans, cross]) if fat else np.stack([np.full(m, o - 1), o + j, o + n], axis=1)
        tris = np.concatenate([inside, band])
        if nz < 0:
            tris = tris[:, [0, 2, 1]]
        return v, tris.reshape(-1).astype(np.int32)

    front = face(z_front, 1.0, lambda x: (x - x0) / w)
    back = face(z_back, -1.0, lambda x: (x1 - x) / w)
    e = np.zeros((m, 2, 8), np.float32)
    e[:, 0, :2] = e[:, 1, :2] = ring
    e[:, 0, 2], e[:, 1, 2] = z_front, z_back
    e[:, :, 3:5] = out[:, None, :]
    e[:, :, 6] = (np.arange(m) / m)[:, None]
    e[:, 0, 7], e[:, 1, 7] = 0.0, 1.0
    quads = np.stack([2 * j, 2 * n, 2 * j + 1, 2 * j + 1, 2 * n, 2 * n + 1], axis=1)
    edge = (e.reshape(-1, 8), quads.reshape(-1).astype(np.int32))
    return {"front": front, "back": back, "edge": edge}


def merge(*parts) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate (vertices, indices) parts into one mesh."""
    verts, idx, base = [], [], 0
    for v, i in parts:
        verts.append(v)
        idx.append(i + base)
        base += len(v)
    return np.concatenate(verts), np.concatenate(idx)


def card_meshes(card: Card, fat: bool = True) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The badge in its own frame (origin: top centre of its front face; front at z = 0).

    The card's faces are `slab`'s fat ones (``fat``), the most pixels the lanyard shades; the clip keeps
    its fans: its faces meet the strap at equal depth, and there a new triangulation moves which wins.
    """
    w, h, t = card.size
    top = -card.drop
    parts = slab(-w / 2, top - h, w / 2, top, -t, 0.0, CORNER_RADIUS, CARD_BEVEL, fat=fat)
    cw, ch, jaw = CLIP_SIZE
    clip = slab(-cw / 2, top - ch * 0.55, cw / 2, top + ch * 0.45, -t - jaw, jaw, 0.04, CLIP_BEVEL, 4)
    lw, lh, lt = LOOP_SIZE
    loop_top = max(top + ch * 0.45 + lh * 0.6, 0.06)
    loop = slab(-lw / 2, loop_top - lh, lw / 2, loop_top, -t / 2 - lt / 2, -t / 2 + lt / 2, 0.05, CLIP_BEVEL, 4)
    metal = merge(*clip.values(), *loop.values())
    return {"front": parts["front"], "back": parts["back"], "edge": parts["edge"], "clip": metal}


# ── GL ───────────────────────────────────────────────────────────────────────

def weave(width: float, length: float) -> tuple[tuple[int, int], tuple[int, int]]:
    """(gap, line) in strap-texture pixels (along, across) for WEAVE_PITCH units on a strap
    ``width`` units wide and ``length`` long (u runs 0 → 1 along it, v across)."""
    tw, th = art.STRAP_SIZE
    gap = (max(2, round(tw / max(length, 1e-6) * WEAVE_PITCH)), max(2, round(th / max(width, 1e-6) * WEAVE_PITCH)))
    return gap, tuple(max(1, round(g * WEAVE_LINE)) for g in gap)


def _mat4(m: np.ndarray) -> tuple:
    return tuple(np.asarray(m, np.float32).T.reshape(-1))     # GLSL wants columns


def _srgb(colour: str, scale: float = 1.0) -> tuple[float, float, float]:
    return tuple(float(c) * scale for c in parse_colour(colour)[:3])  # type: ignore[return-value]


class LanyardGL:
    """GL state of one lanyard layer: its meshes and strap stream; programs and textures from `Shared`."""

    def __init__(self, ctx, card: Card, look: CardLook, strap: StrapLook, length: float, shared: Shared,
                 finish: CardFinish | None = None):
        self.ctx = ctx
        self.shared = shared
        finish = finish or CardFinish()
        self.finish = finish
        self.mesh = shared.programs(ctx)
        self.foil = shared.foil(ctx) if finish.finish == "holographic" else None
        self.empty = ctx.geometry()
        layout = ["in_pos", "in_normal", "in_uv"]
        self.parts = {}
        meshes = card_meshes(card)
        allv = np.concatenate([v for v, _ in meshes.values()])[:, :3]
        lo, hi = allv.min(axis=0), allv.max(axis=0)
        self.card_corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                                      for z in (lo[2], hi[2])], np.float64)   # the card's box, own frame
        for name, (verts, idx) in meshes.items():
            self.parts[name] = ctx.geometry(
                [BufferDescription(ctx.buffer(data=verts.tobytes()), "3f 3f 2f", layout)],
                index_buffer=ctx.buffer(data=idx.tobytes()), index_element_size=4, mode=ctx.TRIANGLES)
        self.strap_vbo = Stream(ctx, stride=32)
        self.strap_ibo = ctx.buffer(reserve=4)
        self.strap_geo = None
        self.strap_k = 0
        size = tuple(float(v) for v in card.size)
        if finish.strap_image:
            strap_rgba = art.load_png(finish.strap_image)
            self.strap_tile = strap.width * strap_rgba.shape[1] / strap_rgba.shape[0]   # units along per repeat
            self.strap_tex = shared.texture(ctx, ("strap-png", finish.strap_image), lambda: strap_rgba, repeat=True)
        else:
            self.strap_tile = 0.0                                                        # the woven print
            gap, line = weave(strap.width, length)
            strap_key = ("strap", strap.text, strap.base, strap.border, strap.ink, gap, line)
            self.strap_tex = shared.texture(ctx, strap_key, lambda: _art(*strap_key), repeat=True)
        front_key = ("front", size, look.title, look.subtitle, look.colour, look.ink, look.accent)
        back_key = ("back", size, look.colour, look.ink, look.accent, look.title)
        if look.image:
            self.front_tex = shared.texture(ctx, ("png", look.image, size), lambda: art.load_png(look.image, card.size))
        else:
            self.front_tex = shared.texture(ctx, front_key, lambda: _art(*front_key))
        if finish.back_image:
            self.back_tex = shared.texture(ctx, ("png", finish.back_image, size),
                                           lambda: art.load_png(finish.back_image, card.size))
        elif look.image:
            self.back_tex = self.front_tex                                    # the picture, on both faces
        else:
            self.back_tex = shared.texture(ctx, back_key, lambda: _art(*back_key))
        self.model = None                                 # (material, sRGB colour, texture or None) of a GLB card
        if finish.model:
            self._load_model(card, finish.model)
        self.fbo = None                     # the scene's one layer framebuffer (`Shared.target`), from `target`

    def _load_model(self, card: Card, path: str) -> None:
        """The GLB card (already checked at load), fitted into the card's frame, as the part "model"."""
        from ropework.systems.lanyard import gltf
        with open(path, "rb") as f:
            model = gltf.parse(f.read())
        verts = gltf.fit(model, card.size[0], card.size[1], card.drop)
        self.parts["model"] = self.ctx.geometry(
            [BufferDescription(self.ctx.buffer(data=verts.tobytes()), "3f 3f 2f", ["in_pos", "in_normal", "in_uv"])],
            index_buffer=self.ctx.buffer(data=model.indices.tobytes()), index_element_size=4,
            mode=self.ctx.TRIANGLES)
        self.model_triangles = model.triangles
        colour = tuple(float(c) ** (1 / 2.2) for c in model.colour[:3])   # the shader takes sRGB
        tex = (self.shared.texture(self.ctx, ("model", path), lambda: model.texture)
               if model.texture is not None else None)
        self.model = ((model.roughness, model.metallic, 0.0), colour, tex)

    def composite_into(self, vp, shown, own, taps: int) -> None:
        """Blend the layer (premultiplied) over the bound framebuffer's pixels ``shown`` (x, y, w, h),
        reading only the layer texels ``own``; ``vp`` is that framebuffer's viewport, in its pixels."""
        ctx = self.ctx
        with ctx.enabled_only(ctx.BLEND):
            ctx.blend_func = ctx.ONE, ctx.ONE_MINUS_SRC_ALPHA
            self.fbo.color_attachments[0].use(0)
            c = self.shared.composite(ctx, composite_taps(taps, vp, self.fbo.size))
            c["u_src"] = 0
            c["u_vp"] = tuple(float(v) for v in vp)
            c["u_rect"] = (float(shown[0]), float(shown[1]), float(shown[0] + shown[2]), float(shown[1] + shown[3]))
            c["u_own"] = (float(own[0]), float(own[1]), float(own[0] + own[2]), float(own[1] + own[3]))
            self.empty.render(c, mode=ctx.TRIANGLE_STRIP, vertices=4)

    def target(self, size: tuple[int, int]):
        """The layer framebuffer at ``size`` — shared by every lanyard layer of the scene — as ``self.fbo``."""
        self.fbo = self.shared.target.get(self.ctx, size)
        return self.fbo

    def upload_strap(self, verts: np.ndarray) -> None:
        """Stream the ribbon's vertices (orphaning keeps the same GL buffer, so the geometry stays valid)."""
        k = len(verts) // 2
        self.strap_vbo.write(verts)
        if k != self.strap_k:
            self.strap_ibo = self.ctx.buffer(data=ribbon_indices(k).tobytes())
            self.strap_geo = self.ctx.geometry(
                [BufferDescription(self.strap_vbo.buffer, "3f 3f 2f", ["in_pos", "in_normal", "in_uv"])],
                index_buffer=self.strap_ibo, index_element_size=4, mode=self.ctx.TRIANGLES)
            self.strap_k = k


def screen_box(camera: Camera, width: float, height: float, world: np.ndarray):
    """Scene-pixel bounds (x0, y0, x1, y1) of world points, padded and clipped to the view.

    None when nothing is on screen; the whole view when a point is behind the eye.
    """
    px, w = cam3.project(camera, width, height, world)
    if np.any(w <= camera.near):
        return 0.0, 0.0, float(width), float(height)
    x0, y0 = np.maximum(px.min(axis=0) - BOX_PAD, 0.0)
    x1, y1 = np.minimum(px.max(axis=0) + BOX_PAD, (width, height))
    if x1 <= x0 or y1 <= y0:
        return None
    return float(x0), float(y0), float(x1), float(y1)


def gl_box(box, x: float, y: float, scale: float, height: int) -> tuple[int, int, int, int]:
    """A scene-pixel box (y down) as a GL scissor (x, y, w, h; y up) in a target ``scale`` px per scene px."""
    x0, y0, x1, y1 = box
    gx0, gx1 = math.floor(x0 * scale), math.ceil(x1 * scale)
    gy0, gy1 = height - math.ceil(y1 * scale), height - math.floor(y0 * scale)
    return int(x + gx0), int(y + gy0), int(gx1 - gx0), int(gy1 - gy0)


def source_box(dst: tuple[int, int, int, int], vp, size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The layer framebuffer's texels (GL scissor x, y, w, h) that compositing into ``dst`` reads.

    The composite maps the target viewport ``vp`` onto the whole ``size`` framebuffer,
    so the target scissor — rounded out to whole target pixels — covers more texels
    than the scene box rounded out on the finer texel grid; a bilinear tap between
    texel centres reaches one more. Clearing (and drawing) exactly this box means
    no texel the composite reads can hold an earlier frame's card or strap.
    """
    x, y, w, h = dst
    sx, sy = size[0] / vp[2], size[1] / vp[3]
    x0 = max(0, math.floor((x - vp[0]) * sx) - 1)
    y0 = max(0, math.floor((y - vp[1]) * sy) - 1)
    x1 = min(size[0], math.ceil((x + w - vp[0]) * sx) + 1)
    y1 = min(size[1], math.ceil((y + h - vp[1]) * sy) + 1)
    return x0, y0, max(0, x1 - x0), max(0, y1 - y0)


def pixel_viewport() -> tuple[int, int, int, int]:
    """The bound framebuffer's viewport in its own pixels, as GL has it.

    arcade.gl reports (and sets) a window's viewport and scissor in logical units,
    divided by the pixel ratio; `gl_FragCoord` counts real pixels. GL's own
    GL_VIEWPORT is right for a window, a HiDPI window and an offscreen framebuffer alike.
    """
    v = (GLint * 4)()
    glGetIntegerv(GL_VIEWPORT, v)
    return int(v[0]), int(v[1]), int(v[2]), int(v[3])


def composite_taps(taps: int, vp, size: tuple[int, int]) -> int:
    """Bilinear taps per axis that average ``taps``×``taps`` layer texels per target pixel.

    When the layer's texels tile each target pixel exactly (``size`` is ``taps`` times the
    viewport's) and ``taps`` is even, one bilinear tap where 2×2 texels meet averages all
    four, weights ½ and ½ exactly: a quarter of the taps for the same box filter.
    """
    if taps % 2 == 0 and (size[0], size[1]) == (vp[2] * taps, vp[3] * taps):
        return taps // 2
    return taps


def render_ratio(look: CardLook, dpr: float) -> tuple[float, int]:
    """(render pixels per scene pixel, composite taps per axis) for a framebuffer of ``dpr``."""
    ratio = min(dpr, look.max_pixel_ratio)
    if look.antialias:
        ratio = max(ratio, AA_RATIO)
    taps = int(min(MAX_TAPS, max(1, math.ceil(ratio / dpr - 1e-6))))
    return ratio, taps


ART_CACHE = 16          # drawn pictures (strap, card faces) kept across scenes: a reset or reload redraws none


@lru_cache(maxsize=ART_CACHE)
def _art(kind: str, *args) -> np.ndarray:
    """A drawn picture by what it shows (read-only): the same strap or card art is drawn once per process."""
    if kind == "strap":
        text, base, border, ink, gap, line = args
        rgba = art.strap_texture(text, base, border, ink, gap=gap, line=line, alpha=WEAVE_ALPHA)
    elif kind == "front":
        rgba = art.card_art(*args)
    else:
        rgba = art.card_back(*args)
    rgba.setflags(write=False)
    return rgba


def _halve(a: np.ndarray, axis: int) -> np.ndarray:
    """``a`` (int64[h, w, 4]) to half its size along ``axis`` (at least 1), as the software rasteriser's linear blit
    samples it: destination texel i reads the source at (i + ½)·n/N − ½, between two texels (clamped
    to the edge) with a weight rounded to 1/256, the sum rounded: (A·(256 − w) + B·w + 128) >> 8."""
    n = a.shape[axis]
    m = max(1, n // 2)
    u = (np.arange(m) + 0.5) * n / m - 0.5
    lo = np.floor(u)
    w = np.floor((u - lo) * 256 + 0.5).astype(np.int64)
    i0 = np.clip(lo.astype(np.int64), 0, n - 1)
    i1 = np.clip(lo.astype(np.int64) + 1, 0, n - 1)
    shape = [1, 1, 1]
    shape[axis] = m
    w = w.reshape(shape)
    return (np.take(a, i0, axis=axis) * (256 - w) + np.take(a, i1, axis=axis) * w + 128) >> 8


def mip_levels(rgba: np.ndarray) -> list[np.ndarray]:
    """Levels 1, 2, … down to 1×1 of uint8[h, w, 4] ``rgba``, each from the one before: what
    glGenerateMipmap makes on the software rasteriser (across then down; the same bytes for even sizes,
    and within 1 of them for odd ones), made on the CPU under the software profile
    (`profile.Profile.cpu_mips`) because the rasteriser's own took 0.15-0.19 s a texture (its blit's
    set-up, for a 2048×128 strap as for a 608×855 card face) of every lanyard start."""
    levels, a = [], rgba.astype(np.int64)
    while a.shape[0] > 1 or a.shape[1] > 1:
        a = _halve(_halve(a, 1), 0)
        levels.append(a.astype(np.uint8))
    return levels


def upload_mips(tex, rgba: np.ndarray) -> None:
    """Give ``tex`` (level 0 holding ``rgba``) its mip levels (`mip_levels`), as build_mipmaps would."""
    gl.glActiveTexture(gl.GL_TEXTURE0 + tex.ctx.default_texture_unit)
    gl.glBindTexture(gl.GL_TEXTURE_2D, tex.glo)
    gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 1)
    gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_BASE_LEVEL, 0)
    levels = mip_levels(rgba)
    gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MAX_LEVEL, len(levels))
    for i, level in enumerate(levels, 1):
        h, w = level.shape[:2]
        gl.glTexImage2D(gl.GL_TEXTURE_2D, i, gl.GL_RGBA8, w, h, 0, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, level.tobytes())


class Shared:
    """What every lanyard layer of a scene can share: the two programs, the layer framebuffer, and
    each texture by what it shows (32 default lanyards hold one strap, one front and one back)."""

    def __init__(self):
        self._programs = None
        self._composites: dict[int, object] = {}
        self._foil = None
        self._blank = None
        self._textures: dict[tuple, object] = {}
        self.target = Target()

    def blank(self, ctx):
        """A 1×1 texture bound for the untextured parts: the shader's texture() costs nothing on it."""
        if self._blank is None:
            self._blank = ctx.texture((1, 1), components=4, data=bytes((255, 255, 255, 255)))
        return self._blank

    def foil(self, ctx):
        """The holographic finish's foil program (made once, for the layers that have the finish)."""
        if self._foil is None:
            self._foil = ctx.program(vertex_shader=_MESH_VS, fragment_shader=_FOIL_FS)
        return self._foil

    def programs(self, ctx):
        """The mesh program (made once)."""
        if self._programs is None:
            self._programs = ctx.program(vertex_shader=_MESH_VS, fragment_shader=_MESH_FS)
        return self._programs

    def composite(self, ctx, taps: int):
        """The composite program averaging ``taps``×``taps`` bilinear taps a pixel (made once per count)."""
        prog = self._composites.get(taps)
        if prog is None:
            prog = self._composites[taps] = ctx.program(vertex_shader=_COMPOSITE_VS,
                                                        fragment_shader=_COMPOSITE_FS % {"taps": taps})
        return prog

    def texture(self, ctx, key: tuple, make, repeat: bool = False):
        """The texture of ``key``, made from ``make()`` (uint8[h, w, 4]) the first time it is asked for."""
        tex = self._textures.get(key)
        if tex is None:
            rgba = make()
            h, w = rgba.shape[:2]
            tex = ctx.texture((w, h), components=4, data=np.ascontiguousarray(rgba).tobytes(),
                              wrap_x=ctx.REPEAT if repeat else ctx.CLAMP_TO_EDGE, wrap_y=ctx.CLAMP_TO_EDGE,
                              filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR))
            if profile.active().cpu_mips:
                upload_mips(tex, rgba)
            else:
                tex.build_mipmaps()                       # glGenerateMipmap: the GPU's own
            tex.anisotropy = TEXTURE_ANISOTROPY
            self._textures[key] = tex
        return tex


class Target:
    """The layer framebuffer (colour + depth), one for every lanyard layer of a scene: the layers
    draw one after another and each clears the texels it reads, so 32 layers hold one, not 32."""

    def __init__(self):
        self.fbo = None
        self.size = (0, 0)

    def get(self, ctx, size: tuple[int, int]):
        if size != self.size:
            colour = ctx.texture(size, components=4, filter=(ctx.LINEAR, ctx.LINEAR),
                                 wrap_x=ctx.CLAMP_TO_EDGE, wrap_y=ctx.CLAMP_TO_EDGE)
            self.fbo = ctx.framebuffer(color_attachments=[colour], depth_attachment=ctx.depth_texture(size))
            self.size = size
        return self.fbo


def capped_ratio(ratio: float, taps: int, dpr: float, width: float, height: float) -> tuple[float, int]:
    """(ratio, taps) with the layer framebuffer held to MAX_LAYER_PIXELS render pixels."""
    cap = math.sqrt(MAX_LAYER_PIXELS / max(1.0, width * height))
    if ratio <= cap:
        return ratio, taps
    return cap, int(min(taps, max(1, math.ceil(cap / dpr - 1e-6))))


@contextmanager
def _culled(ctx):
    """Back-facing triangles culled (counter-clockwise is front, as `slab` winds them) while drawing inside."""
    ctx.front_face = "ccw"
    ctx.cull_face = "back"
    ctx.enable(ctx.CULL_FACE)
    try:
        yield
    finally:
        ctx.disable(ctx.CULL_FACE)


class DrawLanyard:
    def __init__(self):
        self._gl: dict[int, LanyardGL] = {}
        self._shared = Shared()

    def draw(self, frame, layer_name: str, ctx) -> None:
        forget_gone(self._gl)
        for ent, (pts, card, look, strap, camera, lights, layer) in esper.get_components(
                Points, Card, CardLook, StrapLook, Camera, Lights, Layer):
            if layer.name != layer_name:
                continue
            gl = self._gl.get(ent)
            if gl is None:
                length = float(np.linalg.norm(np.diff(pts.pos, axis=0), axis=1).sum())
                gl = self._gl[ent] = LanyardGL(ctx, card, look, strap, length, self._shared,
                                               esper.try_component(ent, CardFinish))
            self._draw_one(ctx, gl, frame, pts, card, look, strap, camera, lights)

    def _draw_one(self, ctx, gl: LanyardGL, frame, pts, card, look, strap, camera, lights) -> None:
        vp = pixel_viewport()                             # the target's own pixels (a HiDPI window's, too)
        dpr = vp[2] / max(frame.width, 1.0)
        ratio, taps = capped_ratio(*render_ratio(look, dpr), dpr, frame.width, frame.height)
        size = (max(1, int(math.ceil(frame.width * ratio))), max(1, int(math.ceil(frame.height * ratio))))
        verts = ribbon(pts.pos, strap.width, strap.samples)
        if gl.strap_tile > 0.0:                           # a strap image repeats every tile units of arc
            arc = np.linalg.norm(np.diff(verts[0::2, :3].astype(np.float64), axis=0), axis=1).sum()
            verts[:, 6] *= np.float32(arc / gl.strap_tile)
        corners = gl.card_corners @ cam3.euler_xyz(card.rot).T + card.pos
        box = screen_box(camera, frame.width, frame.height, np.concatenate([verts[:, :3], corners]))
        if box is None:
            return                                        # swung wholly off-screen: nothing to draw
        fbo = gl.target(size)
        gl.upload_strap(verts)

        prog = gl.mesh
        prog["u_vp"] = _mat4(cam3.view_projection(camera, frame.width, frame.height))
        prog["u_eye"] = tuple(float(v) for v in camera.eye)
        prog["u_ambient"] = float(lights.ambient)
        k = min(len(lights.intensity), MAX_LIGHTS)
        dirs = np.zeros((MAX_LIGHTS, 3), np.float32)
        rad = np.zeros((MAX_LIGHTS, 3), np.float32)
        dirs[:k] = lights.direction[:k]
        rad[:k] = lights.colour[:k] * lights.intensity[:k, None]
        prog["u_lights"] = k
        prog["u_light_dir"] = tuple(dirs.reshape(-1))
        prog["u_light_rad"] = tuple(rad.reshape(-1))
        prog["u_tex"] = 0
        prog["u_coat_rough"] = COAT_ROUGHNESS

        old_blend = ctx.blend_func
        shown = gl_box(box, vp[0], vp[1], dpr, vp[3])   # target pixels the composite writes
        own = source_box(shown, vp, size)               # every layer texel those pixels read
        with fbo.activate():                              # on leaving, the target's own viewport comes back
            ctx.viewport = (0, 0, *size)
            fbo.clear(color=(0, 0, 0, 0), depth=1.0, viewport=own)
            fbo.scissor = own                             # only the lanyard's pixels: the software rasteriser's fills are dear
            with ctx.enabled_only(ctx.DEPTH_TEST):
                # Strap, card, clip: where two parts meet at exactly equal depth (the strap through the
                # loop, the clip over the card's face) the one drawn first shows, so this order is part
                # of the picture.
                self._part(prog, gl, "strap", np.identity(4), np.identity(3), (1.0, 1.0, 1.0), STRAP_MATERIAL,
                           gl.strap_tex)
                rot = cam3.euler_xyz(card.rot)
                model = cam3.model(card.pos, card.rot)
                white = (1.0, 1.0, 1.0)
                material = FINISHES[gl.finish.finish]
                if gl.model is not None:
                    self._part(prog, gl, "model", model, rot, gl.model[1], gl.model[0], gl.model[2])
                else:
                    # The card is a convex slab: a face turned away from the eye is always behind the
                    # other one, so culling it only skips fragments the depth test would throw away.
                    with _culled(ctx):
                        self._part(prog, gl, "front", model, rot, white, material, gl.front_tex)
                        self._part(prog, gl, "back", model, rot, white, material, gl.back_tex)
                    self._part(prog, gl, "edge", model, rot, _srgb(look.colour, EDGE_SHADE), material, None)
                self._part(prog, gl, "clip", model, rot, _srgb(look.clip), CLIP_MATERIAL, None)
                if gl.foil is not None:
                    self._foil(ctx, gl, frame, camera, model, rot)
            fbo.scissor = None
        # The composite is a quad over exactly `shown`, not a full-viewport triangle cut by the
        # target's scissor: a window's multisampled framebuffer (GLX on the software rasteriser) let the column
        # beside a scissor edge through, the grey/red line left of the card; and a window's
        # scissor is set in logical units, which a HiDPI framebuffer scales. Its taps read only
        # texels cleared this frame (u_own), so nothing of an earlier frame can show anywhere.
        gl.composite_into(vp, shown, own, taps)
        ctx.blend_func = old_blend

    @staticmethod
    def _foil(ctx, gl: LanyardGL, frame, camera, model, rot) -> None:
        """The holographic foil: the card's faces again, their light added where the card already is."""
        from pyglet import gl as raw  # arcade.gl has no depth-function setter
        foil = gl.foil
        foil["u_vp"] = _mat4(cam3.view_projection(camera, frame.width, frame.height))
        foil["u_eye"] = tuple(float(v) for v in camera.eye)
        foil["u_strength"] = FOIL_STRENGTH
        foil["u_bands"] = FOIL_BANDS
        foil["u_model"] = _mat4(model)
        foil["u_normal"] = tuple(np.asarray(rot, np.float32).T.reshape(-1))
        old = ctx.blend_func
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.ONE, ctx.ONE
        raw.glDepthFunc(raw.GL_LEQUAL)
        raw.glDepthMask(raw.GL_FALSE)
        if gl.model is not None:
            gl.parts["model"].render(foil)
        else:
            with _culled(ctx):                            # the face turned away is hidden: as in the mesh pass
                gl.parts["front"].render(foil)
                gl.parts["back"].render(foil)
        raw.glDepthMask(raw.GL_TRUE)
        raw.glDepthFunc(raw.GL_LESS)
        ctx.disable(ctx.BLEND)
        ctx.blend_func = old

    @staticmethod
    def _part(prog, gl: LanyardGL, name, model, normal, colour, material, tex) -> None:
        geo = gl.strap_geo if name == "strap" else gl.parts[name]
        if geo is None:
            return
        prog["u_model"] = _mat4(model)
        prog["u_normal"] = tuple(np.asarray(normal, np.float32).T.reshape(-1))
        prog["u_colour"] = tuple(c ** 2.2 for c in colour)   # sRGB in, linear to the shader: 3 pows a part, not a pixel
        prog["u_material"] = material
        prog["u_textured"] = 1 if tex is not None else 0
        (tex if tex is not None else gl.shared.blank(gl.ctx)).use(0)
        geo.render(prog)
