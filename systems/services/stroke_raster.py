"""Strokes painted on the CPU: the GPU strip's triangles rasterised by a kernel into a canvas image.

On the software rasteriser a stroke costs per primitive (≈0.36 µs a triangle before its pixels), so the
100,000-point rope scene's 200,000 thin triangles take ~70 ms however few pixels they
cover. Here the very triangles `gfx.Strokes` sends — two per pair of neighbouring curve
samples, each vertex at the sample ± its normal × (half width + 0.5) — are scan-converted
at pixel centres, their side distance interpolated linearly across each triangle as the
GPU interpolates ``v_side``, cover = clamp(half width + 0.5 − |side|, 0, 1), and blended
"over" in strip order into `canvas.Canvas`'s premultiplied image, which is then uploaded
once and composited by one quad. The curve and its samples are the vertex shader's
(`gfx._STROKE_VS`), transcribed: `_sample` is its ``main()``.

The canvas covers only the rows the strokes reach (`Band`), and is composited only over the
rectangles they reach (`parts`, one scissor each). A level of detail leaves out ropes that look
like their neighbours and lie within `LOD_GAP` of painted ones (`keep_ropes`: curtains of ropes
closer than a pixel, as the million-point scene); only the kept ropes' samples are computed.

Both cores: the image is cut into bands of rows holding about equal work; each band is one
job for `split.run`, and a band's pixels see every triangle in strip order, so the picture
is the same bits whatever the number of threads.
"""
from __future__ import annotations

import math

import numpy as np

from ropework.systems.services import canvas, split
from ropework.systems.services.kernels import kernel

BANDS = 8   # row bands a paint is cut into: jobs handed out one at a time, so a busy core holds back at most one


@kernel()
def sample_vertices(P, K, keep, colour, width, subdiv, width_scale, alpha_scale, override,
                    x0, dx, y0, dy, first, at, r0, r1, V, C, Q, lo, hi, cols, found):
    """The samples of ropes ``r0:r1`` that are kept (rope r's are first[r]:first[r + 1] of K; the others
    are skipped), written one after another from row ``at`` of V and C (the kept samples packed, so a
    level of detail that keeps one rope in ten writes and later reads a tenth of the rows, in order,
    not one row block in ten): V[o] = (u, v) of its side −1 and side +1 vertex in image pixels
    (column u, row v, a pixel centre at +0.5), its extent (|v_side| at the vertices) and its half
    width; C[o] = premultiplied-ready colour (r, g, b, alpha). Extent −1 marks a cap (zero width: the
    strip's join between ropes, which paints nothing). Then their quads (`_quads`, while the vertices
    are in this core's cache), written from Q[at] on (a range of ropes has at most as many quads as
    kept samples), with this range's ``cols`` and ``found`` = (how many, lowest row, highest row)."""
    o = at
    for rope in range(r0, r1):
        if keep[rope]:
            for s in range(first[rope], first[rope + 1]):
                _sample(P, K, colour, width, subdiv, width_scale, alpha_scale, override, x0, dx, y0, dy, s, o, V, C)
                o += 1
    n, rmin, rmax = _quads(V, C, keep, first, r0, r1, Q, lo, hi, at, cols)
    found[0], found[1], found[2] = n, rmin, rmax


@kernel(inline="always")
def _sample(P, K, colour, width, subdiv, width_scale, alpha_scale, override, x0, dx, y0, dy, s, o, V, C):
    """Sample s of the strip into row o of V and C (see `sample_vertices`): `gfx._STROKE_VS`'s ``main()``,
    transcribed."""
    packed = K[s, 0]
    rope = K[s, 1]
    a = packed & 0x1FFFFF
    t = np.float32((packed >> 21) & 7) / np.float32(subdiv)
    first = ((packed >> 24) & 1) != 0
    last = ((packed >> 25) & 1) != 0
    cap = ((packed >> 26) & 1) != 0
    ax, ay = P[a, 0], P[a, 1]
    bx, by = P[a + 1, 0], P[a + 1, 1]
    c = a + 1 if last else a + 2
    cx, cy = P[c, 0], P[c, 1]
    ws = np.float32(0.0) if first else np.float32(0.5)
    wc = (np.float32(1.0) + ws) * np.float32(0.5) if last else np.float32(1.0)
    p0x, p0y = ax + (bx - ax) * ws, ay + (by - ay) * ws
    p1x, p1y = ax + (bx - ax) * wc, ay + (by - ay) * wc
    p2x, p2y = bx + (cx - bx) * np.float32(0.5), by + (cy - by) * np.float32(0.5)
    u = np.float32(1.0) - t
    ptx = u * u * p0x + np.float32(2.0) * u * t * p1x + t * t * p2x
    pty = u * u * p0y + np.float32(2.0) * u * t * p1y + t * t * p2y
    tx = np.float32(2.0) * u * (p1x - p0x) + np.float32(2.0) * t * (p2x - p1x)
    ty = np.float32(2.0) * u * (p1y - p0y) + np.float32(2.0) * t * (p2y - p1y)
    if tx * tx + ty * ty < 1e-12:
        tx, ty = p2x - p0x, p2y - p0y
    if tx * tx + ty * ty < 1e-12:
        tx, ty = np.float32(1.0), np.float32(0.0)
    inv = np.float32(1.0) / np.float32(math.sqrt(tx * tx + ty * ty))
    nx, ny = -ty * inv, tx * inv
    hw = np.float32(0.5) * width[rope] * width_scale
    ext = hw + np.float32(0.5)
    V[o, 0] = (ptx - nx * ext - x0) / dx + 0.5
    V[o, 1] = (pty - ny * ext - y0) / dy + 0.5
    V[o, 2] = (ptx + nx * ext - x0) / dx + 0.5
    V[o, 3] = (pty + ny * ext - y0) / dy + 0.5
    V[o, 4] = -1.0 if cap else ext
    V[o, 5] = hw
    if override[3] < 0.0:
        C[o, 0], C[o, 1], C[o, 2], C[o, 3] = colour[rope, 0], colour[rope, 1], colour[rope, 2], colour[rope, 3]
    else:
        C[o, 0], C[o, 1], C[o, 2], C[o, 3] = override[0], override[1], override[2], override[3]
    C[o, 3] *= alpha_scale


@kernel(inline="always")   # numba inlines it: a call per row or triangle costs more than its body
def _edge(px, py, qx, qy, rx, ry):
    """Edge p→q of a triangle (or convex quad) whose interior holds vertex r: (slope, kind), its crossing
    of the row through y being px + (y − py)·slope. kind 1: the edge bounds the interior's x from
    above (r is to its left), 0: from below, 2: level with r below it, 3: level with r above. p is
    the edge's lower vertex id, so the two shapes that share an edge compute the same crossing on
    each row, and a pixel centre on it goes to exactly one: the one to its right, or below a level
    edge (GL's fill rule, for these strips)."""
    if qy == py:
        return 0.0, 2 if ry > py else 3
    slope = (qx - px) / (qy - py)
    left = ((qx - px) * (ry - py) - (qy - py) * (rx - px)) * (qy - py) > 0.0
    return slope, 1 if left else 0


@kernel(inline="always")   # numba inlines it: a call per row or triangle costs more than its body
def _narrow(px, py, slope, kind, y, lo, hi):
    """[lo, hi) narrowed by one edge (see `_edge`) on the row through y."""
    if kind == 2:
        return (lo, hi) if y >= py else (1e30, -1e30)
    if kind == 3:
        return (lo, hi) if y < py else (1e30, -1e30)
    x = px + (y - py) * slope
    if kind == 1:
        return lo, min(hi, x)
    return max(lo, x), hi


@kernel(inline="always")
def _plane(ax, ay, sa, bx, by, sb, cx, cy, sc):
    """The side distance across triangle a, b, c as a plane: side = sx·x + sy·y + s0."""
    inv = 1.0 / ((bx - ax) * (cy - ay) - (by - ay) * (cx - ax))
    sx = ((sb - sa) * (cy - ay) - (sc - sa) * (by - ay)) * inv
    sy = ((sc - sa) * (bx - ax) - (sb - sa) * (cx - ax)) * inv
    return sx, sy, sa - sx * ax - sy * ay


@kernel(inline="always")
def _span(img, j, i0, i1, sx, base, lim, r, g, b, alpha):
    """Pixels i0..i1 of row j: cover from the side distance sx·(i + 0.5) + base, premultiplied "over".
    In float32 (the GPU's precision), the side stepped by sx from pixel to pixel, and no branch: a
    pixel of cover 0 is blended too, which leaves it as it was (x·1 + 0)."""
    one, zero = np.float32(1.0), np.float32(0.0)
    step, edge = np.float32(sx), np.float32(lim)
    side = step * np.float32(i0 + 0.5) + np.float32(base)
    for i in range(i0, i1 + 1):
        a = alpha * min(max(edge - abs(side), zero), one)
        side += step
        keep = one - a
        img[j, i, 0] = r * a + img[j, i, 0] * keep
        img[j, i, 1] = g * a + img[j, i, 1] * keep
        img[j, i, 2] = b * a + img[j, i, 2] * keep
        img[j, i, 3] = a + img[j, i, 3] * keep


@kernel()
def _triangle(img, row0, row1, ax, ay, sa, bx, by, sb, cx, cy, sc, hw, r, g, b, alpha):
    """Paint one triangle (vertices a, b, c in image pixels, in increasing vertex id, with side
    distances sa, sb, sc) over rows row0..row1 - 1 of ``img``: every pixel whose centre is
    inside, cover from the side distance interpolated across the triangle, premultiplied "over"."""
    if abs((bx - ax) * (cy - ay) - (by - ay) * (cx - ax)) < 1e-9:
        return
    ymin = min(ay, min(by, cy))
    ymax = max(ay, max(by, cy))
    j0 = max(row0, int(math.ceil(ymin - 0.5)))
    j1 = min(row1 - 1, int(math.floor(ymax - 0.5)))
    if j0 > j1:
        return
    w = img.shape[1]
    sx, sy, s0 = _plane(ax, ay, sa, bx, by, sb, cx, cy, sc)
    lim = hw + 0.5
    m0, k0 = _edge(ax, ay, bx, by, cx, cy)
    m1, k1 = _edge(bx, by, cx, cy, ax, ay)
    m2, k2 = _edge(ax, ay, cx, cy, bx, by)
    for j in range(j0, j1 + 1):
        y = j + 0.5
        lo, hi = _narrow(ax, ay, m0, k0, y, -1e30, 1e30)
        lo, hi = _narrow(bx, by, m1, k1, y, lo, hi)
        lo, hi = _narrow(ax, ay, m2, k2, y, lo, hi)
        if lo >= hi:
            continue
        i0 = max(0, int(math.ceil(lo - 0.5)))          # centres x = i + 0.5 with lo <= x < hi
        i1 = min(w - 1, int(math.ceil(hi - 0.5)) - 1)
        _span(img, j, i0, i1, sx, sy * y + s0, lim, r, g, b, alpha)


@kernel()
def _quad(img, row0, row1, ax, ay, bx, by, cx, cy, dx, dy, e0, e1, hw, r, g, b, alpha):
    """Paint the strip's quad a = s−, b = s+, c = t−, d = t+ (ids in that order): its triangles
    (a, b, c) and (b, c, d), as `_triangle` paints them one after the other, but in one pass over
    the rows when the quad is convex (the rows of a thin quad are walked once, not twice): each
    row's span is cut at the diagonal b–c, and each part takes its own triangle's plane."""
    z1 = (bx - ax) * (dy - by) - (by - ay) * (dx - bx)     # turns along a → b → d → c → a
    z2 = (dx - bx) * (cy - dy) - (dy - by) * (cx - dx)
    z3 = (cx - dx) * (ay - cy) - (cy - dy) * (ax - cx)
    z4 = (ax - cx) * (by - ay) - (ay - cy) * (bx - ax)
    convex = (z1 > 1e-9 and z2 > 1e-9 and z3 > 1e-9 and z4 > 1e-9) or (
        z1 < -1e-9 and z2 < -1e-9 and z3 < -1e-9 and z4 < -1e-9)
    if not convex or by == cy:
        _triangle(img, row0, row1, ax, ay, -e0, bx, by, e0, cx, cy, -e1, hw, r, g, b, alpha)
        _triangle(img, row0, row1, bx, by, e0, cx, cy, -e1, dx, dy, e1, hw, r, g, b, alpha)
        return
    ymin = min(min(ay, by), min(cy, dy))
    ymax = max(max(ay, by), max(cy, dy))
    j0 = max(row0, int(math.ceil(ymin - 0.5)))
    j1 = min(row1 - 1, int(math.floor(ymax - 0.5)))
    if j0 > j1:
        return
    w = img.shape[1]
    lim = hw + 0.5
    s1x, s1y, s10 = _plane(ax, ay, -e0, bx, by, e0, cx, cy, -e1)
    s2x, s2y, s20 = _plane(bx, by, e0, cx, cy, -e1, dx, dy, e1)
    mab, kab = _edge(ax, ay, bx, by, cx, cy)                # the outline, each edge from its lower id
    mbd, kbd = _edge(bx, by, dx, dy, ax, ay)
    mcd, kcd = _edge(cx, cy, dx, dy, ax, ay)
    mac, kac = _edge(ax, ay, cx, cy, bx, by)
    mbc, kbc = _edge(bx, by, cx, cy, ax, ay)                # the diagonal: kind 1 when a is left of it
    if kbc == 1:
        lx, ly, l0, rx, ry, r0 = s1x, s1y, s10, s2x, s2y, s20
    else:
        lx, ly, l0, rx, ry, r0 = s2x, s2y, s20, s1x, s1y, s10
    for j in range(j0, j1 + 1):
        y = j + 0.5
        lo, hi = _narrow(ax, ay, mab, kab, y, -1e30, 1e30)
        lo, hi = _narrow(bx, by, mbd, kbd, y, lo, hi)
        lo, hi = _narrow(cx, cy, mcd, kcd, y, lo, hi)
        lo, hi = _narrow(ax, ay, mac, kac, y, lo, hi)
        if lo >= hi:
            continue
        i0 = max(0, int(math.ceil(lo - 0.5)))          # centres x = i + 0.5 with lo <= x < hi
        i1 = min(w - 1, int(math.ceil(hi - 0.5)) - 1)
        im = int(math.ceil(bx + (y - by) * mbc - 0.5))   # the first centre right of the diagonal
        _span(img, j, i0, min(i1, im - 1), lx, ly * y + l0, lim, r, g, b, alpha)
        _span(img, j, max(i0, im), i1, rx, ry * y + r0, lim, r, g, b, alpha)


@kernel()
def paint_band(img, pixels, V, C, Q, lo, hi, row0, row1, shift):
    """The strip triangles of quads ``Q`` (each a sample s whose pair s, s + 1 is one piece of one
    rope; rows lo..hi), in that order, over rows row0..row1 - 1, cleared to transparent first (here,
    on the core that paints them, while they are in its cache): the GPU's two triangles
    (s−, s+, t−) and (s+, t−, t+). The vertices' rows are V's less ``shift`` (where the band starts).
    Then, when ``pixels`` has rows (an 8-bit target), those rows rounded into it (`canvas.quantize`)
    while they are still in this core's cache."""
    _paint(img, V, C, Q, lo, hi, row0, row1, shift)
    if pixels.shape[0]:
        canvas.quantize(img, pixels, row0, row1)


@kernel(inline="always")
def _paint(img, V, C, Q, lo, hi, row0, row1, shift):
    img[row0:row1] = 0.0
    for q in range(Q.shape[0]):
        if hi[q] < row0 or lo[q] >= row1:
            continue
        s = Q[q]
        e0, e1 = V[s, 4], V[s + 1, 4]
        r, g, b, alpha = C[s, 0], C[s, 1], C[s, 2], C[s, 3]
        _quad(img, row0, row1, V[s, 0], V[s, 1] - shift, V[s, 2], V[s, 3] - shift, V[s + 1, 0], V[s + 1, 1] - shift,
              V[s + 1, 2], V[s + 1, 3] - shift, e0, e1, V[s, 5], r, g, b, alpha)


@kernel(inline="always")
def _quads(V, C, keep, first, r0, r1, Q, lo, hi, at, cols):
    """The quads to paint of ropes r0:r1, in strip order, written from Q[at] on: sample pairs s, s + 1
    within one rope (neither a cap), of a colour that shows, of a rope kept (rope r has
    first[r + 1] − first[r] samples; the kept ones' rows of V and C follow one another from ``at``,
    as `sample_vertices` writes them); Q[q] = s (a row of V), lo/hi[q] = the lowest and highest row they reach (floor and
    ceiling); cols[k] = the lowest and highest column any of them reaches in rows k·ROW_STEP …
    (k + 1)·ROW_STEP − 1 (±inf: none). Returns (how many, the lowest row, the highest row)."""
    cols[:, 0] = np.inf
    cols[:, 1] = -np.inf
    last = cols.shape[0] - 1
    n = at
    rmin, rmax = np.inf, -np.inf
    o = at                                   # the rope's first row of V
    for rope in range(r0, r1):
        if not keep[rope]:
            continue
        k = first[rope + 1] - first[rope]
        o += k
        for s in range(o - k, o - 1):
            if V[s, 4] < 0.0 or V[s + 1, 4] < 0.0 or C[s, 3] <= 0.0:
                continue
            a = min(min(V[s, 1], V[s, 3]), min(V[s + 1, 1], V[s + 1, 3]))
            b = max(max(V[s, 1], V[s, 3]), max(V[s + 1, 1], V[s + 1, 3]))
            Q[n] = s
            lo[n] = int(math.floor(a))
            hi[n] = int(math.ceil(b))
            u0 = min(min(V[s, 0], V[s, 2]), min(V[s + 1, 0], V[s + 1, 2]))
            u1 = max(max(V[s, 0], V[s, 2]), max(V[s + 1, 0], V[s + 1, 2]))
            for k in range(min(max(lo[n] // ROW_STEP, 0), last), min(max(hi[n] // ROW_STEP, 0), last) + 1):
                cols[k, 0] = min(cols[k, 0], u0)
                cols[k, 1] = max(cols[k, 1], u1)
            rmin = min(rmin, a)
            rmax = max(rmax, b)
            n += 1
    return n - at, rmin, rmax


@kernel()
def rope_gaps(P, start, count, colour, width, alpha_scale, override, i0, i1, gaps, over):
    """gaps[i] for i in i0:i1: how far rope i + 1 ever is from rope i, px (the largest |Δx| or |Δy|
    between their points of the same index), when the two look alike — the same number of points,
    the same width and an opaque same colour — else infinity (they may never stand in for each other).
    over[i]: the same distance when rope i + 1, painted after rope i, is opaque and has as many
    points (whatever its colour), else infinity."""
    for i in range(i0, i1):
        gaps[i] = np.inf
        over[i] = np.inf
        n = count[i]
        if count[i + 1] != n or n < 2:
            continue
        if override[3] < 0.0:
            opaque = colour[i + 1, 3] * alpha_scale >= 1.0
            alike = (opaque and width[i] == width[i + 1] and colour[i, 0] == colour[i + 1, 0]
                     and colour[i, 1] == colour[i + 1, 1] and colour[i, 2] == colour[i + 1, 2]
                     and colour[i, 3] == colour[i + 1, 3])
        else:
            opaque = override[3] * alpha_scale >= 1.0
            alike = opaque and width[i] == width[i + 1]
        if not opaque:
            continue
        a, b = start[i], start[i + 1]
        d = 0.0
        for j in range(n):
            d = max(d, max(abs(P[a + j, 0] - P[b + j, 0]), abs(P[a + j, 1] - P[b + j, 1])))
        over[i] = d
        if alike:
            gaps[i] = d


@kernel()
def keep_ropes(gaps, over, gap, edge, close, keep):
    """Which ropes to paint: a rope between two look-alikes is left out while the ropes painted on
    either side of it stay within ``gap`` px of each other (the sum of the gaps between, an upper
    bound), so every rope left out lies inside strokes that are painted. Within ``edge`` px of
    either end of a run of look-alikes every rope is painted: there the strokes' soft sides pile
    up over what lies beneath (another colour, the page), and fewer of them would show it through —
    except at a run's far end when the next rope (painted after it, opaque) is within ``close`` px
    of its last one and starts a run at least ``edge`` px wide: that run's near end, painted in
    full over it, hides what the left-out ropes' soft sides would have added (as in the curtain's
    bands of colour, 0.05 px apart). A rope that moved apart from its neighbours ends its runs, so
    it is painted."""
    r = keep.shape[0]
    start = np.empty(r, np.float32)          # px from the start of the rope's run, at most
    acc = 0.0
    for i in range(r):
        if i > 0 and gaps[i - 1] < np.inf:
            acc += gaps[i - 1]
        else:
            acc = 0.0
        start[i] = acc
    acc = 0.0
    hidden = False                           # the run of rope i ends under the next run's painted near end
    for i in range(r - 1, -1, -1):           # `start` becomes "near an end", going backwards
        if i < r - 1 and gaps[i] < np.inf:
            acc += gaps[i]
        else:
            hidden = i < r - 1 and over[i] <= close and acc >= edge   # acc: the next run's width, still
            acc = 0.0
        start[i] = 1.0 if (start[i] <= edge or (acc <= edge and not hidden)) else 0.0
    since = 0.0                              # px from the last painted rope to rope i - 1, at most
    for i in range(r):
        if start[i] > 0.0 or i == 0 or i == r - 1 or since + gaps[i - 1] + gaps[i] > gap:
            keep[i] = True
            since = 0.0
        else:
            keep[i] = False
            since += gaps[i - 1]


def bands(lo: np.ndarray, hi: np.ndarray, rows: int, parts: int) -> list[tuple[int, int]]:
    """Rows 0..rows cut into at most ``parts`` bands of about equal work: the rows each quad's
    span [lo, hi] crosses, plus one a row (the clear and the blend are per pixel)."""
    crossing = np.cumsum(np.bincount(lo, minlength=rows)[:rows] - np.bincount(hi + 1, minlength=rows + 1)[:rows])
    total = np.cumsum(crossing + 1.0)
    cuts = np.searchsorted(total, total[-1] * np.arange(1, parts) / parts)
    edges = [0, *sorted({int(c) for c in cuts if 0 < c < rows}), rows]
    return list(zip(edges[:-1], edges[1:]))


ROW_STEP = 64   # rows: the painted band's edges are rounded out to multiples of this, so its texture is rarely remade
LOD_GAP = 0.5   # px: look-alike ropes closer than this to painted ones are left out (`keep_ropes`): a curtain of
                # 1.2 px ropes 0.05 px apart paints every tenth inside, and a pixel centre midway between two
                # painted ropes is still under four strokes (cover 0.85, 0.85, 0.35, 0.35: 99 % opaque)
LOD_CLOSE = 0.25   # px: a run of look-alikes whose next rope (opaque, painted after) is this close ends under it
LOD_ROPES = 2   # ropes a body needs before look-alikes are looked for


class Band(canvas.Canvas):
    """A canvas over only the rows the strokes reach (whole rows, `ROW_STEP` at a time): fewer
    pixels to clear, upload and composite than the whole viewport when ropes hang in its top half;
    composited only over `parts`. It keeps the painter's per-sample buffers between draws."""

    rows: tuple[int, int] | None = None   # [r0, r1) of the viewport's rows (GL order) the next `begin` covers
    parts: list | None = None             # framebuffer rectangles (x, y, w, h) the painted strokes lie in, or None
    _work: tuple = ()                     # the painter's per-sample buffers (`work`), kept from draw to draw

    def work(self, m: int):
        """(V, C, Q, lo, hi) for ``m`` samples: float32[m, 6], float32[m, 4], int32[m] × 3, reused from the
        last paint (regrown only upwards). Fresh ones would cost a page fault per 4 kB a frame (≈10 ms for
        the million-point scene's 40 MB); the kept ropes' rows are packed at their start."""
        if not self._work or len(self._work[0]) < m:
            self._work = (np.empty((m, 6), np.float32), np.empty((m, 4), np.float32),
                          np.empty(m, np.int32), np.empty(m, np.int32), np.empty(m, np.int32))
        return tuple(a[:m] for a in self._work)

    def composite(self) -> None:
        """Composite only the rectangles of `parts`, each through a scissor (the software rasteriser spends ~11 ns a
        composited pixel: the empty ends of the band's rows cost as much as its strokes)."""
        ctx = self.ctx
        if self.parts is None or ctx.window is None or ctx.window.get_pixel_ratio() != 1.0:
            super().composite()
            return
        if not self.parts or self.texture is None:
            return
        x, y, w, h = self.view.rect
        a, b = min(p[1] for p in self.parts) - y, max(p[1] + p[3] for p in self.parts) - y
        if self._direct(ctx.fbo) is not None and self._blittable():
            self._blit((a, b))           # an Offscreen's texture: the parts' rows read back, blended, written in
            return
        saved = ctx.scissor
        try:
            for rect in self.parts:
                ctx.scissor = rect
                super().composite()
        finally:
            ctx.scissor = saved

    def region(self, scene_size):
        v = super().region(scene_size)
        if v is None or self.rows is None:
            return v
        x, y, w, h = v.rect
        r0, r1 = self.rows
        r0, r1 = max(0, min(r0, h)), max(0, min(r1, h))
        return canvas.View((x, y + r0, w, max(r1 - r0, 1)), v.x0, v.dx, v.y0 + r0 * v.dy, v.dy)


def parts(cols, rect, r0: int) -> list[tuple[int, int, int, int]]:
    """The framebuffer rectangles of a band at ``rect`` (its first row being row ``r0`` of the view) that
    hold strokes: one per run of `ROW_STEP` rows whose strokes reach the same columns (`_quads`'
    ``cols``), widened by a pixel each side."""
    x, y, w, h = rect
    out = []
    for k in range(r0 // ROW_STEP, len(cols)):
        lo_, hi_ = float(cols[k, 0]), float(cols[k, 1])
        if not lo_ <= hi_:
            continue
        c0, c1 = max(0, int(math.floor(lo_)) - 1), min(w, int(math.ceil(hi_)) + 1)
        a, b = k * ROW_STEP - r0, min((k + 1) * ROW_STEP - r0, h)
        if c1 <= c0 or b <= a:
            continue
        if out and out[-1][0] == x + c0 and out[-1][2] == c1 - c0 and out[-1][1] + out[-1][3] == y + a:
            out[-1] = (x + c0, out[-1][1], c1 - c0, out[-1][3] + b - a)   # the same columns as the run above
        else:
            out.append((x + c0, y + a, c1 - c0, b - a))
    return out


def paint(band: Band, scene_size, pos, start, count, samples, subdiv, colour, width, width_scale=1.0,
          alpha_scale=1.0, override=None, lod: bool = True) -> bool:
    """Paint the strip of ``samples`` (`gfx.stroke_samples` of the chains ``start``/``count``) through
    ``pos`` as `gfx.Strokes.draw` would draw it, into ``band`` over the bound viewport, and
    composite it; ``lod``: leave out look-alike ropes closer than `LOD_GAP` to painted ones. False
    (nothing drawn) when the viewport does not fit a canvas."""
    band.rows = None
    full = band.region(scene_size)
    if full is None:
        return False
    m = len(samples)
    V, C, Q, lo, hi = band.work(m)
    P = np.ascontiguousarray(pos[:, :2], dtype=np.float32)
    colour = np.ascontiguousarray(colour, np.float32)
    width = np.ascontiguousarray(width, np.float32)
    ov = np.array(override if override is not None else (0.0, 0.0, 0.0, -1.0), np.float32)
    args = (P, samples, colour, width, int(subdiv), np.float32(width_scale), np.float32(alpha_scale), ov,
            np.float32(full.x0), np.float32(full.dx), np.float32(full.y0), np.float32(full.dy))
    keep = np.ones(len(start), np.bool_)
    if lod and len(start) >= LOD_ROPES:
        gaps = np.empty(max(len(start) - 1, 1), np.float32)
        over = np.empty_like(gaps)
        g = (P, np.asarray(start, np.int64), np.asarray(count, np.int64), colour, width, np.float32(alpha_scale), ov)
        n = len(start) - 1
        split.run((rope_gaps, (*g, a, b, gaps, over)) for a, b in split.pieces(n, max(1, -(-n // BANDS))))
        edge = (0.5 * float(width.max()) * width_scale + 0.5 + LOD_GAP) * full.dx   # a stroke's reach, and a gap
        keep_ropes(gaps, over, np.float32(LOD_GAP * full.dx), np.float32(edge), np.float32(LOD_CLOSE * full.dx),
                   keep)   # LOD_GAP, LOD_CLOSE in framebuffer pixels
    first = np.searchsorted(samples[:, 1], np.arange(len(start) + 1)).astype(np.int64)   # each rope's samples
    packed = np.zeros(len(start) + 1, np.int64)      # each rope's first row of V, C: the kept ropes' samples packed
    np.cumsum(np.where(keep, np.diff(first), 0), out=packed[1:])
    r = len(start)
    ranges = split.pieces(r, max(1, -(-r // BANDS)))
    cols = np.empty((len(ranges), -(-full.rect[3] // ROW_STEP), 2), np.float32)   # per range of ropes
    found = np.zeros((len(ranges), 3), np.float64)
    split.run((sample_vertices, (P, samples, keep, *args[2:], first, packed[a], a, b, V, C, Q, lo, hi, cols[k],
                                 found[k])) for k, (a, b) in enumerate(ranges))
    band.parts = None
    counts = found[:, 0].astype(np.int64)
    nq = int(counts.sum())
    if not nq:
        return True
    if len(ranges) > 1:                      # each range's quads from its first sample on: gathered in order
        take = np.concatenate([np.arange(packed[a], packed[a] + c) for (a, _), c in zip(ranges, counts)])
        Q, lo, hi = Q[take], lo[take], hi[take]
    else:
        Q, lo, hi = Q[:nq], lo[:nq], hi[:nq]
    rmin, rmax = float(found[counts > 0, 1].min()), float(found[counts > 0, 2].max())
    cols = np.stack([cols[:, :, 0].min(axis=0), cols[:, :, 1].max(axis=0)], axis=1)
    h = full.rect[3]
    r0 = max(0, (int(math.floor(rmin)) - 1) // ROW_STEP * ROW_STEP)
    r1 = min(h, -(-(int(math.ceil(rmax)) + 1) // ROW_STEP) * ROW_STEP)
    band.rows = (r0, max(r1, r0 + 1))
    if band.begin(scene_size, clear=False) is None:   # each band clears its own rows as it paints them
        return False
    img = band.image
    lo -= r0                                 # rows of the band (the vertices' are shifted as they are read)
    hi -= r0
    n = img.shape[0]
    pixels = band.pixels if band.eight else np.zeros((0, 0, 4), np.uint8)
    split.run((paint_band, (img, pixels, V, C, Q, lo, hi, a, b, np.float32(r0)))
              for a, b in bands(np.clip(lo, 0, n - 1), np.clip(hi, 0, n - 1), n, BANDS))
    band.parts = parts(cols, band.view.rect, r0)
    band.upload(quantized=band.eight)
    band.composite()
    return True
