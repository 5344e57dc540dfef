"""Draw lanyard: the ribbon follows the strap, and a headless frame shows the lit card and the strap's red edge."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFilter

from ropework.components.lanyard import CardLook, StrapLook
from ropework.level import resolve
from ropework.render import Offscreen
from ropework.systems.lanyard import camera as cam3
from ropework.systems.lanyard.draw_lanyard import (
    DrawLanyard,
    card_meshes,
    catmull_rom,
    composite_taps,
    render_ratio,
    ribbon,
    ribbon_indices,
    slab,
    source_box,
)
from tests.conftest import LEVELS
from tests.lanyard import SETTLE, SIZE, card_pixel, parts, pixel_of

GROW = 2        # px: anti-aliased edges may tint pixels this far outside the meshes' projected outline


def wavy(n=9):
    t = np.linspace(0, 1, n)
    return np.stack([np.sin(3 * t), 5 - 3 * t, 0.3 * np.cos(5 * t)], axis=1)


def test_the_curve_passes_through_every_point_with_central_tangents():
    p = wavy()
    pos, tan = catmull_rom(p, 4)
    assert len(pos) == (len(p) - 1) * 4 + 1
    assert np.allclose(pos[::4], p)
    assert np.allclose(tan[4:-4:4], (p[2:] - p[:-2]) / 2)


def test_the_ribbon_is_width_wide_across_the_tangent_turned_about_z():
    p = wavy()
    v = ribbon(p, 0.3, 4).reshape(-1, 2, 8)
    pos, tan = catmull_rom(p, 4)
    across = v[:, 0, :3] - v[:, 1, :3]
    assert np.allclose(np.linalg.norm(across, axis=1), 0.3, atol=1e-6)
    assert np.allclose(across[:, 2], 0) and np.allclose((across[:, :2] * tan[:, :2]).sum(1), 0, atol=1e-6)
    assert np.allclose((v[:, 0, :3] + v[:, 1, :3]) / 2, pos, atol=1e-6)
    u = v[:, 0, 6]
    assert u[0] == 0 and u[-1] == pytest.approx(1) and np.all(np.diff(u) > 0)
    assert np.all(v[:, 0, 7] == 0) and np.all(v[:, 1, 7] == 1)
    assert np.all(v[:, 0, 5] > 0)                       # faces the camera when hanging in its plane
    assert ribbon_indices(3).tolist() == [0, 2, 1, 1, 2, 3, 2, 4, 3, 3, 4, 5]


def test_the_card_slab_faces_point_out_and_cover_the_card():
    parts_ = slab(-0.8, -2.41, 0.8, -0.16, -0.04, 0.0, 0.1, 0.035)
    front, back, edge = (parts_[k][0] for k in ("front", "back", "edge"))
    assert np.all(front[:, 2] == 0) and np.all(front[:, 5] > 0) and np.all(back[:, 5] < 0)
    assert front[:, 0].min() == pytest.approx(-0.8) and front[:, 1].max() == pytest.approx(-0.16)
    assert np.allclose(np.linalg.norm(edge[:, 3:6], axis=1), 1) and np.all(edge[:, 5] == 0)
    assert front[:, 6].min() == pytest.approx(0) and front[:, 7].max() == pytest.approx(1)


@pytest.mark.parametrize("dpr, aa, cap, want", [
    (1.0, True, 2.0, (2.0, 2)), (2.0, True, 2.0, (2.0, 1)), (3.0, True, 2.0, (2.0, 1)),
    (1.0, False, 2.0, (1.0, 1)), (1.0, True, 1.5, (2.0, 2)), (2.0, False, 1.5, (1.5, 1)),
])
def test_render_ratio_caps_the_pixel_ratio_and_supersamples_sparse_framebuffers(dpr, aa, cap, want):
    look = CardLook("", "", "#000000", "#000000", "#000000", "#000000", "", max_pixel_ratio=cap, antialias=aa)
    assert render_ratio(look, dpr) == want


@pytest.fixture
def frame_of_settled(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, SIZE)
    off.render(s)
    return s, off.pixels().astype(int)


def test_a_headless_frame_shows_the_lit_card_and_the_straps_red_edge(frame_of_settled):
    s, img = frame_of_settled
    pts, card, _, _ = parts(s)
    bg = np.round(np.array(s.background[:3]) * 255)
    x, y = card_pixel(s)
    face = img[int(y) - 20:int(y) - 10, int(x) - 20:int(x) + 20, :3].reshape(-1, 3)
    assert np.median(face, axis=0).min() > 215 and np.abs(face - bg).sum(1).max() > 6   # card stock, not page
    ink = img[int(y) - 10:int(y) + 30, int(x) - 40:int(x) + 40, :3]
    assert (ink.max(-1) < 80).sum() > 50                                                 # the title's ink
    sx, sy = (int(round(v)) for v in pixel_of(s, pts.pos[10]))
    row = img[sy, sx - 20:sx + 21, :3]
    red = row[:, 0] - row[:, 1:].max(-1) > 60                   # the 0.8 px border blends with its neighbours
    dark = row.max(-1) < 60
    assert red[:20].any() and red[21:].any() and dark.any()       # red edges either side of the dark band
    assert np.all(img[sy, :sx - 40, :3] == bg) and np.all(img[sy, sx + 40:, :3] == bg)   # transparent elsewhere


def test_the_turned_card_shows_its_edge_and_shading_changes(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, SIZE)
    _, card, _, _ = parts(s)
    x, y = card_pixel(s)
    off.render(s)
    flat = off.pixels()[int(y) - 15, int(x) - 15, :3].astype(int)
    card.rot[:] = (0.0, 0.9, 0.0)                       # turned about Y: the face catches the key light differently
    off.render(s)
    turned = off.pixels().astype(int)
    assert np.abs(turned[int(y) - 15, int(x) - 15, :3] - flat).sum() > 6 or \
        np.abs(turned[int(y) - 15, int(x) + 15, :3] - flat).sum() > 6


def test_a_dense_framebuffer_gets_the_card_at_its_own_pixels(scenes, gl_window):
    s = scenes("lanyard.toml", size=SIZE)
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, (2 * SIZE[0], 2 * SIZE[1]))    # a HiDPI window: 2 px per scene px
    off.render(s)
    img = off.pixels().astype(int)
    x, y = card_pixel(s)
    face = img[int(2 * y) - 40:int(2 * y) - 20, int(2 * x) - 40:int(2 * x) + 40, :3].reshape(-1, 3)
    assert np.median(face, axis=0).min() > 215
    assert np.all(img[int(2 * y), :int(2 * x) - 200, :3] == np.round(np.array(s.background[:3]) * 255))


def outline(scene, scale: float) -> np.ndarray:
    """bool[h, w]: the strap's and the card's projected triangles at ``scale`` px per scene px, grown by GROW px."""
    pts, card, _, camera = parts(scene)
    (ent, _), = scene.find(StrapLook)
    strap = scene.component(ent, StrapLook)
    rib = ribbon(pts.pos, strap.width, strap.samples)
    tris = [rib[ribbon_indices(len(rib) // 2), :3]]
    rot = cam3.euler_xyz(card.rot)
    for verts, idx in card_meshes(card).values():
        tris.append(verts[idx, :3].astype(np.float64) @ rot.T + card.pos)
    px, _ = cam3.project(camera, scene.width, scene.height, np.concatenate(tris))
    w, h = round(scene.width * scale), round(scene.height * scale)
    mask = Image.new("L", (w, h), 0)
    pen = ImageDraw.Draw(mask)
    for tri in (px * scale).reshape(-1, 3, 2):
        pen.polygon([tuple(p) for p in tri], fill=255)
    return np.asarray(mask.filter(ImageFilter.MaxFilter(2 * round(GROW * scale) + 1))) > 0


@pytest.mark.parametrize("scale", [1.0, 1.5, 2.0])
def test_a_flung_twisted_card_leaves_no_pixels_outside_its_outline(scenes, gl_window, scale, tmp_path):
    """Seen as a thin card-coloured sliver beside a thrown card: the composite read layer texels
    just outside the box cleared that frame, which still held an earlier frame's card. The held
    card tilts with the hand (tilt_while_held; the seed's keeps its pose), so it is turned hard."""
    level = tmp_path / "tilted.toml"
    level.write_text(resolve("lanyard").read_text().replace('kind = "lanyard"', 'kind = "lanyard"\ntilt_while_held = true'))
    s = scenes(level, size=(480, 270))
    s.step(90)
    x, y = card_pixel(s)
    off = Offscreen(gl_window.ctx, (round(480 * scale), round(270 * scale)))
    bg = np.round(np.array(s.background[:3]) * 255)
    s.pointer_down(x, y)
    path = [(x + 150 * u, y + 80 * u) for u in np.linspace(0, 1, 28)] + \
           [(x + 150 - 220 * u, y + 80 - 50 * u) for u in np.linspace(0, 1, 12)[1:]]
    twist = 0.0
    for i in range(len(path) + 20):
        if i < len(path):
            s.pointer_move(*path[i])
        elif i == len(path):
            s.pointer_up(*path[-1])
        s.step(1)
        if i < 20:
            continue                                    # from late in the drag through the fling
        off.render(s)
        stray = np.any(off.pixels()[:, :, :3] != bg, axis=-1) & ~outline(s, scale)
        assert not stray.any(), f"step {i}: {stray.sum()} px outside the outline, x {np.nonzero(stray)[1].min()}"
        twist = max(twist, float(np.abs(parts(s)[1].rot).max()))
    assert twist > 0.3                                  # the card really was turned on the way


@pytest.mark.parametrize("vp, size", [((0, 0, 480, 270), (960, 540)), ((0, 0, 960, 540), (960, 540)),
                                      ((10, 20, 720, 405), (960, 540))])
def test_the_cleared_texels_cover_every_texel_the_composite_reads(vp, size):
    for dst in [(0, 0, vp[2], vp[3]), (vp[0] + 17, vp[1] + 3, 40, 61), (vp[0] + 1, vp[1] + 1, 1, 1)]:
        x0, y0, w, h = source_box(dst, vp, size)
        sx, sy = size[0] / vp[2], size[1] / vp[3]
        # Texel footprint of the target pixels, and a bilinear tap's one-texel reach beyond it.
        assert x0 <= max(0, (dst[0] - vp[0]) * sx - 1) and y0 <= max(0, (dst[1] - vp[1]) * sy - 1)
        assert x0 + w >= min(size[0], (dst[0] + dst[2] - vp[0]) * sx + 1)
        assert y0 + h >= min(size[1], (dst[1] + dst[3] - vp[1]) * sy + 1)
        assert x0 >= 0 and y0 >= 0 and x0 + w <= size[0] and y0 + h <= size[1]


def on_screen(window, scene) -> np.ndarray:
    """Draw ``scene`` as the play window's on_draw does — into the window's own (default) framebuffer,
    cleared to the background, at the window's logical size — and read back its real pixels, uint8[h, w, 3]."""
    ctx = window.ctx
    ctx.screen.use()
    ctx.viewport = (0, 0, int(scene.width), int(scene.height))      # logical units, as arcade sets a window's
    window.clear(color=tuple(int(round(c * 255)) for c in scene.background))
    scene.draw(ctx)
    w, h = window.get_framebuffer_size()
    return np.frombuffer(ctx.screen.read(viewport=(0, 0, w, h), components=3), np.uint8).reshape(h, w, 3)[::-1]


def test_a_hidpi_windows_own_framebuffer_gets_the_card_where_a_dense_offscreen_one_does(scenes, gl_window,
                                                                                       monkeypatch):
    """A window at pixel ratio 2: arcade reports its viewport in logical units (half its real pixels),
    gl_FragCoord counts real ones; the card must land on the same pixels as in a framebuffer that dense."""
    fw, fh = gl_window.get_framebuffer_size()
    s = scenes("lanyard.toml", size=(fw // 2, fh // 2))
    s.step(SETTLE)
    off = Offscreen(gl_window.ctx, (fw, fh))
    off.render(s)
    dense = off.pixels()[:, :, :3].astype(int)
    monkeypatch.setattr(gl_window, "get_pixel_ratio", lambda: 2.0)
    hidpi = on_screen(gl_window, s).astype(int)
    monkeypatch.undo()
    gl_window.ctx.screen.use()
    gl_window.ctx.viewport = (0, 0, fw, fh)
    bg = np.round(np.array(s.background[:3]) * 255)
    assert (np.abs(dense - bg).sum(-1) > 30).sum() > 5000          # the card and strap are there
    assert np.abs(hidpi - dense).max() <= 2, f"{(np.abs(hidpi - dense).sum(-1) > 6).sum()} px differ"


@pytest.mark.parametrize("vp, layer", [((0, 0, 640, 360), (1280, 720)), ((0, 0, 1280, 720), (1280, 720)),
                                       ((40, 30, 600, 300), (1200, 600))])
def test_the_composite_writes_only_its_box_and_reads_only_this_frames_texels(scenes, gl_window, vp, layer):
    """The grey/red line left of the card in a real window: the composite was a full-viewport triangle
    cut by the target's scissor, and a window's multisampled framebuffer (GLX, a software rasteriser) let the column
    beside the scissor's edge through, showing layer texels no frame had cleared. With the scissor test
    off, the layer's stale texels opaque magenta and this frame's box `own` transparent, the window's
    framebuffer must come back unchanged: no pixel written outside `shown`, no stale texel read."""
    from pyglet.gl import GL_SCISSOR_TEST, glDisable, glEnable, glViewport
    fw, fh = gl_window.get_framebuffer_size()
    s = scenes("lanyard.toml", size=(fw, fh))
    on_screen(gl_window, s)                                          # makes the layer's GL
    layer_gl, = next(d for d in s.draws if isinstance(d, DrawLanyard))._gl.values()
    layer_gl.target(layer)
    ctx = gl_window.ctx
    shown = (vp[0] + 101, vp[1] + 37, 83, 120)
    own = source_box(shown, vp, layer)
    layer_gl.fbo.clear(color=(255, 0, 255, 255))                   # every texel stale, and loud
    layer_gl.fbo.clear(color=(0, 0, 0, 0), viewport=own)             # this frame's: nothing drawn
    ctx.screen.use()
    ctx.viewport = (0, 0, fw, fh)
    ctx.screen.clear(color=(20, 30, 40, 255))
    glDisable(GL_SCISSOR_TEST)
    try:
        ctx.screen.use(force=True)
        glViewport(*vp)
        layer_gl.composite_into(vp, shown, own, taps=2)
    finally:
        glEnable(GL_SCISSOR_TEST)
        ctx.screen.use(force=True)
    img = np.frombuffer(ctx.screen.read(viewport=(0, 0, fw, fh), components=3), np.uint8).reshape(fh, fw, 3)
    assert np.all(img == (20, 30, 40)), f"{np.any(img != (20, 30, 40), axis=-1).sum()} px changed"
    layer_gl.fbo.clear(color=(255, 0, 255, 255))                   # now the box itself is opaque magenta
    glDisable(GL_SCISSOR_TEST)
    try:
        glViewport(*vp)
        layer_gl.composite_into(vp, shown, own, taps=2)
    finally:
        glEnable(GL_SCISSOR_TEST)
        ctx.screen.use(force=True)
    img = np.frombuffer(ctx.screen.read(viewport=(0, 0, fw, fh), components=3), np.uint8).reshape(fh, fw, 3)
    changed = np.any(img != (20, 30, 40), axis=-1)                   # rows bottom-up, as GL counts them
    x, y, w, h = shown
    assert changed[y:y + h, x:x + w].all() and changed.sum() == w * h


def face_percent(scene, gl_window, rot) -> float:
    """Median brightness (% of white) of the card stock above the title, drawn as the window draws."""
    _, card, _, _ = parts(scene)
    card.rot[:] = rot
    img = on_screen(gl_window, scene).astype(float)
    x, y = card_pixel(scene)
    patch = img[int(y) - 60:int(y) - 40, int(x) - 30:int(x) + 30].reshape(-1, 3)
    return float(np.median(patch.mean(1)) / 255 * 100)


def test_the_card_is_lit_below_white_and_its_shading_turns_with_it(scenes, gl_window):
    """It read flat: 97 % at rest and at most 99.7 % toward the key, clipped. With the seed's lights
    (ambient π gives the stock as it is; key 0.8, fill 0.3, rim 0.2 add to it) the stock sits at
    ≈ 91 %, a quarter turn from the key takes ≥ 3 points off and a tilt toward it adds ≥ 3.5."""
    fw, fh = gl_window.get_framebuffer_size()
    s = scenes("lanyard.toml", size=(fw, fh))
    s.step(SETTLE)
    rest = face_percent(s, gl_window, (0.0, 0.0, 0.0))
    away = face_percent(s, gl_window, (0.3, -0.6, 0.0))
    toward = face_percent(s, gl_window, (-0.3, 0.15, 0.0))
    assert rest <= 93.0, rest
    assert rest - away >= 3.0 and toward - rest >= 3.5, (away, rest, toward)


def test_the_straps_weave_shows_at_one_to_one(scenes, gl_window, tmp_path):
    """The seed's 1 px weave every 4 px of a 2048 x 128 canvas is 0.6 px on a 20 px strap: drawn, it
    averaged away. The drawn weave has lines every ≈ 3 px that a 1:1 frame shows: along the middle of a
    strap with no print, the brightness swings by ≥ 6 levels with a period of 2.5–4 px."""
    level = tmp_path / "plain.toml"
    level.write_text((LEVELS / "lanyard.toml").read_text().replace('strap_text = "ROPEWORK"', 'strap_text = ""'))
    fw, fh = gl_window.get_framebuffer_size()
    s = scenes(level, size=(fw, fh))
    s.step(SETTLE)
    pts, _, _, _ = parts(s)
    img = on_screen(gl_window, s).astype(float).mean(-1)
    a, b = (np.array(pixel_of(s, pts.pos[k])) for k in (4, 16))
    n = int(np.linalg.norm(b - a))
    line = np.array([img[int(round(y)), int(round(x))] for x, y in np.linspace(a, b, n)])
    assert np.percentile(line, 90) - np.percentile(line, 10) >= 6, line.round()
    spectrum = np.abs(np.fft.rfft(line - line.mean()))
    period = n / (1 + np.argmax(spectrum[1:]))
    assert 2.5 <= period <= 4.0, period


# ── the same layer for fewer texture fetches ─────────────────────────────────────────────────────

EDGE_ON = (-0.2, 1.45, 0.3)   # card rotation: edge-on, so the untextured edge covers pixels


@pytest.mark.parametrize("taps, vp, size, want", [
    (2, (0, 0, 640, 360), (1280, 720), 1), (2, (10, 20, 640, 360), (1280, 720), 1),
    (2, (0, 0, 641, 360), (1280, 720), 2), (2, (0, 0, 640, 360), (1281, 720), 2),
    (4, (0, 0, 320, 180), (1280, 720), 2), (3, (0, 0, 320, 180), (960, 540), 3), (1, (0, 0, 1280, 720), (1280, 720), 1),
])
def test_the_composite_pairs_taps_only_where_texels_tile_each_pixel_exactly(taps, vp, size, want):
    assert composite_taps(taps, vp, size) == want


def test_a_paired_tap_averages_the_four_texels_as_four_taps_do(scenes, gl_window):
    """One bilinear tap where 2×2 texels meet against the 2×2 taps at their centres, over random texels:
    the sampler's fixed-point weights may round the other way, by one level, never more."""
    from ropework.systems.lanyard import draw_lanyard as dl
    fw, fh = gl_window.get_framebuffer_size()
    s = scenes("lanyard.toml", size=(fw // 2, fh // 2))
    on_screen(gl_window, s)                                          # makes the layer's GL
    layer_gl, = next(d for d in s.draws if isinstance(d, DrawLanyard))._gl.values()
    layer = (fw, fh)
    layer_gl.target(layer)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 256, (fh, fw, 1), dtype=np.uint8)
    rgba = np.concatenate([np.minimum(rng.integers(0, 256, (fh, fw, 3), dtype=np.uint8), a), a], axis=-1)
    layer_gl.fbo.color_attachments[0].write(rgba.tobytes())          # premultiplied, as the layer holds it
    vp = (0, 0, fw // 2, fh // 2)
    shown = (0, 0, fw // 2, fh // 2)
    own = source_box(shown, vp, layer)
    ctx = gl_window.ctx
    pictures = []
    for pair in (True, False):
        ctx.screen.use()
        ctx.viewport = (0, 0, fw, fh)
        ctx.screen.clear(color=(0, 0, 0, 255))
        ctx.viewport = vp
        if not pair:
            original = dl.composite_taps
            dl.composite_taps = lambda taps, vp, size: taps
        try:
            layer_gl.composite_into(vp, shown, own, taps=2)
        finally:
            if not pair:
                dl.composite_taps = original
        w, h = vp[2], vp[3]
        pictures.append(np.frombuffer(ctx.screen.read(viewport=(0, 0, w, h), components=3), np.uint8).astype(int))
    ctx.viewport = (0, 0, fw, fh)
    d = np.abs(pictures[0] - pictures[1])
    assert d.max() <= 1 and (d > 0).mean() < 0.5
    assert pictures[0].std() > 20                                    # the picture is the random texels, not flat


def posed(scenes, gl_window, level, rot, size=(640, 360)):
    """(scene, Offscreen, its picture): ``level`` stepped 60 times, its card turned to ``rot``, drawn once."""
    s = scenes(level, size=size)
    s.step(60)
    _, card, _, _ = parts(s)
    card.rot[:] = rot
    off = Offscreen(gl_window.ctx, size)
    off.render(s)
    return s, off, off.pixels().astype(int)


def test_untextured_parts_look_the_same_whatever_picture_is_bound(scenes, gl_window, monkeypatch):
    """The edge and the clip bind a 1×1 texture (the software rasteriser runs the shader's texture() either way): their
    colour must not depend on it — the same frame with the card's back picture bound there instead."""
    from ropework.systems.lanyard import draw_lanyard as dl
    s, off, blank = posed(scenes, gl_window, "badge.toml", EDGE_ON)
    layer_gl, = next(d for d in s.draws if isinstance(d, DrawLanyard))._gl.values()
    monkeypatch.setattr(dl.Shared, "blank", lambda self, ctx: layer_gl.back_tex)
    off.render(s)
    assert np.array_equal(off.pixels().astype(int), blank)


@pytest.mark.parametrize("fat", [False, True])
def test_the_card_faces_wind_counter_clockwise_seen_from_outside(fat):
    """Culling back faces keeps a face only where its triangles turn counter-clockwise to the eye:
    every front and back triangle's winding must agree with the face's outward normal."""
    for name in ("front", "back"):
        verts, idx = slab(-0.8, -2.41, 0.8, -0.16, -0.04, 0.0, 0.1, 0.035, fat=fat)[name]
        a, b, c = (verts[idx.reshape(-1, 3)[:, k], :3] for k in range(3))
        facing = np.einsum("ij,ij->i", np.cross(b - a, c - a), verts[idx.reshape(-1, 3)[:, 0], 3:6])
        assert np.all(facing > 0), name


@pytest.mark.parametrize("box, r", [((-0.8, -2.41, 0.8, -0.16), 0.1), ((-1.2, -1.0, 1.2, -0.1), 0.3),
                                    ((-0.5, -0.6, 0.5, -0.1), 0.0)])
def test_the_fat_faces_tile_the_fans_polygon_without_slivers_meeting(box, r):
    """A fat face covers what the fan from its centre covers, seamlessly: every rim segment of the
    fan is an edge of exactly one fat triangle, every other edge is shared by two (no T-junction, no
    crack), their areas add up to the fan's; and no vertex is shared by more than CORNER_STEPS + 5
    triangles (the fan's centre was shared by all of them: the software rasteriser shaded its blocks again and again)."""
    from collections import Counter

    from ropework.systems.lanyard.draw_lanyard import CORNER_STEPS
    fan_v, fan_i = slab(*box, -0.04, 0.0, r, 0.035)["front"]
    fat_v, fat_i = slab(*box, -0.04, 0.0, r, 0.035, fat=True)["front"]
    assert np.array_equal(fan_v[:, :8], fat_v[:, :8])        # the same vertices: only the triangles change

    def edges_area(v, idx, inside):
        tris = idx.reshape(-1, 3)[:inside]
        xy = v[:, :2].astype(np.float64)
        a, b, c = xy[tris[:, 0]], xy[tris[:, 1]], xy[tris[:, 2]]
        area = 0.5 * ((b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0])
        directed = Counter((int(p), int(q)) for t in tris for p, q in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])))
        return directed, area, Counter(int(k) for k in tris.reshape(-1))

    m = (len(fan_v) - 5) // 2
    band = 2 * m                                                 # the bevel band's triangles end both lists
    fan_e, fan_a, _ = edges_area(fan_v, fan_i, len(fan_i) // 3 - band)
    fat_e, fat_a, uses = edges_area(fat_v, fat_i, len(fat_i) // 3 - band)
    rim = {e for e in fan_e if 4 not in e}                      # the fan's edges not at its centre (vertex 4)
    assert all(fat_e[e] == 1 and (e[1], e[0]) not in fat_e for e in rim)
    inner = [e for e in fat_e if e not in rim]
    assert all(fat_e[e] == 1 and fat_e[(e[1], e[0])] == 1 for e in inner)
    assert np.all(fat_a >= 0) and fat_a.sum() == pytest.approx(fan_a.sum(), rel=1e-9)
    assert max(uses.values()) <= CORNER_STEPS + 5


@pytest.mark.parametrize("level, rot", [("badge.toml", (0.0, 0.0, 0.0)), ("lanyard.toml", EDGE_ON),
                                        ("lanyard.toml", (0.0, np.pi, 0.0)), ("landscape.toml", (0.9, 0.6, 0.1))])
def test_the_card_in_fat_triangles_is_the_fans_picture(scenes, gl_window, monkeypatch, level, rot):
    """The card drawn with its faces in fat triangles is the picture the fans drew, to the rounding of
    what the rasteriser interpolates: at most 2 levels, in a few dozen pixels, but for one or two where
    the clip's jaw meets the card's face at equal depth and the other one wins (the strap through the
    loop is why the clip keeps its fans). At rest, edge-on, from behind and turned (the holographic
    badge's foil pass included)."""
    from functools import partial

    from ropework.systems.lanyard import draw_lanyard as dl
    _, _, fat = posed(scenes, gl_window, level, rot)
    monkeypatch.setattr(dl, "card_meshes", partial(dl.card_meshes, fat=False))
    _, _, fan = posed(scenes, gl_window, level, rot)
    d = np.abs(fat - fan).max(axis=2)
    assert (d > 2).sum() <= 2 and (d > 0).sum() <= 60, (d.max(), (d > 2).sum(), (d > 0).sum())


@pytest.mark.parametrize("level, rot", [("badge.toml", (0.0, 0.0, 0.0)), ("badge.toml", (0.3, 2.6, 0.2)),
                                        ("lanyard.toml", EDGE_ON), ("lanyard.toml", (0.0, np.pi, 0.0))])
def test_culling_the_turned_away_face_changes_no_pixel(scenes, gl_window, monkeypatch, level, rot):
    """The card drawn with its turned-away face culled (the foil pass too) is the same picture as with
    both faces drawn and the depth test left to hide one — at rest, from behind and edge-on."""
    from contextlib import nullcontext

    from ropework.systems.lanyard import draw_lanyard as dl
    s, off, culled = posed(scenes, gl_window, level, rot)
    monkeypatch.setattr(dl, "_culled", lambda ctx: nullcontext())
    off.render(s)
    assert np.array_equal(off.pixels().astype(int), culled)


# ── the texture filter (`ewa_like`): one trilinear read with the blur of the software rasteriser's EWA ──────────────

_QUAD_VS = """
#version 330
in vec2 in_vert;
uniform mat3 u_uv;      // uv = u_uv · (pixel position 0..1, 1): a known footprint
out vec2 v_uv;
void main() { gl_Position = vec4(in_vert, 0.0, 1.0); v_uv = (u_uv * vec3(in_vert * 0.5 + 0.5, 1.0)).xy; }
"""
FILTER_PX = 96          # the test framebuffer's side, pixels


def _uv_map(texels_per_px: float, rot: float, squeeze: float, tex_size) -> np.ndarray:
    """float64[3, 3]: pixel (0..1) → uv, ``texels_per_px`` level-0 texels a pixel across x (× ``squeeze`` across y),
    turned by ``rot``, about the texture's middle."""
    span = np.array([texels_per_px, texels_per_px * squeeze]) * FILTER_PX / np.asarray(tex_size, float)
    c, s = np.cos(rot), np.sin(rot)
    lin = np.array([[c, -s], [s, c]]) @ np.diag(span)
    m = np.eye(3)
    m[:2, :2], m[:2, 2] = lin, 0.5 - lin @ [0.5, 0.5]
    return m


def _filtered(ctx, tex, m: np.ndarray, fs_body: str) -> np.ndarray:
    """int[FILTER_PX, FILTER_PX, 3]: ``tex`` drawn through ``fs_body`` (sets `o` from u_tex at v_uv) under ``m``."""
    from arcade.gl import geometry

    from ropework.systems.lanyard import draw_lanyard as dl
    fs = ("#version 330\nuniform sampler2D u_tex;\nin vec2 v_uv;\nout vec4 o;\n" + dl._FILTER_GLSL
          + "\nvoid main() { " + fs_body + " }\n")
    prog = ctx.program(vertex_shader=_QUAD_VS, fragment_shader=fs)
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((FILTER_PX, FILTER_PX), components=4)])
    with fbo.activate():
        fbo.clear()
        prog["u_uv"] = tuple(np.asarray(m, np.float32).T.reshape(-1))
        tex.use(0)
        geometry.quad_2d_fs().render(prog)
    return np.frombuffer(fbo.read(components=4), np.uint8).reshape(FILTER_PX, FILTER_PX, 4)[..., :3].astype(int)


def ewa_lod_reference(dx, dy, spread: float, share: float) -> float:
    """The LOD `ewa_lod` should give, from the EWA read's covariance by eigenvalues (numpy, no closed forms)."""
    dx, dy = np.asarray(dx, float), np.asarray(dy, float)
    level = max(np.floor(0.5 * np.log2(min(dx @ dx, dy @ dy))), 0.0)
    jac = np.stack([dx, dy], axis=1)                                  # columns: the derivatives
    cov = spread * (jac @ jac.T + 4.0 ** level * np.eye(2)) + (4.0 ** level - 1) / 12 * np.eye(2)
    minor, major = np.linalg.eigvalsh(cov)
    v = minor + share * (major - minor)
    return float(np.log((12 * v + 1) / 3) / np.log(4))             # (3·4^lod − 1)/12 = v


def test_the_ewa_spread_is_the_weights_variance_over_the_disc():
    from ropework.systems.lanyard.draw_lanyard import EWA_ALPHA, ewa_spread
    g = np.linspace(-1, 1, 801)
    x, y = np.meshgrid(g, g)
    r2 = x * x + y * y
    w = np.where(r2 < 1, np.exp(-EWA_ALPHA * r2) - np.exp(-EWA_ALPHA), 0.0)
    assert ewa_spread() == pytest.approx((x * x * w).sum() / w.sum(), rel=2e-3)


@pytest.mark.parametrize("tpp, rot, squeeze", [(0.5, 0.0, 1.0), (1.0, 0.0, 1.0), (2.7, 0.3, 1.0), (6.0, 1.1, 1.0),
                                               (1.5, 0.0, 3.0), (2.1, 0.5, 6.0), (9.0, 0.2, 1.8)])
def test_the_filters_lod_is_the_ewa_footprints(gl_window, tpp, rot, squeeze):
    # A texture whose every mip level is one grey, 28 × its level: a trilinear read shows its LOD as its value.
    from ropework.systems.lanyard import draw_lanyard as dl
    ctx = gl_window.ctx
    side = 256
    tex = ctx.texture((side, side), components=4, filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR))
    tex.build_mipmaps()
    for level in range(9):
        n = side >> level
        tex.write(np.full((n, n, 4), 28 * level, np.uint8).tobytes(), level=level, viewport=(0, 0, n, n))
    m = _uv_map(tpp, rot, squeeze, (side, side))
    got = _filtered(ctx, tex, m, "o = ewa_like(u_tex, v_uv);")[..., 0] / 28.0
    jac = m[:2, :2] * side / FILTER_PX                               # level-0 texels per pixel: columns d/dx, d/dy
    want = min(max(ewa_lod_reference(jac[:, 0], jac[:, 1], dl.EWA_SPREAD, dl.MAJOR_SHARE), 0.0), 8.0)
    assert np.median(got) == pytest.approx(want, abs=0.04)
    assert np.ptp(got) <= 0.08                                       # one footprint: one LOD over the quad


def test_the_card_art_reads_as_the_drivers_ewa_drew_it(gl_window):
    # The picture the card was tuned under (the software rasteriser's EWA: texture() with anisotropy above 1) against
    # ewa_like on the lanyard's own texture (anisotropy TEXTURE_ANISOTROPY), raw texels before the lighting
    # and the 2×2 supersampling. A faced card reads as a plain trilinear read would (one read cannot
    # draw a Gaussian: the LOD that matches its variance is trilinear's own there); a turned one — its
    # footprint long — keeps EWA's blur along it, where trilinear's LOD from the long axis blurs both.
    from ropework.systems.lanyard import art
    from ropework.systems.lanyard import draw_lanyard as dl
    ctx = gl_window.ctx
    rgba = art.card_art((1.6, 2.25, 0.02), "ropework", "verlet rope · esper · arcade", "#f2efe8", "#1c1c1e", "#e8243c")
    h, w = rgba.shape[:2]
    ours = dl.Shared().texture(ctx, ("test-art",), lambda: rgba)
    assert ours.anisotropy == dl.TEXTURE_ANISOTROPY == 1.0
    ewa = ctx.texture((w, h), components=4, data=np.ascontiguousarray(rgba).tobytes(),
                      filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR), wrap_x=ctx.CLAMP_TO_EDGE, wrap_y=ctx.CLAMP_TO_EDGE)
    ewa.build_mipmaps()
    ewa.anisotropy = ctx.info.MAX_TEXTURE_MAX_ANISOTROPY
    faced = [(0.8, 0.0, 1.0), (1.4, 0.37, 1.0), (2.7, 0.0, 1.0), (5.0, 0.2, 1.0)]
    turned = [(1.4, 0.0, 2.5), (2.7, 0.37, 4.0), (1.0, 0.2, 8.0)]
    off = {"ours": {}, "trilinear": {}}                               # mean |difference| from EWA, levels
    for pose in faced + turned:
        m = _uv_map(*pose, (w, h))
        want = _filtered(ctx, ewa, m, "o = texture(u_tex, v_uv);")
        for name, body in (("ours", "o = ewa_like(u_tex, v_uv);"), ("trilinear", "o = texture(u_tex, v_uv);")):
            off[name][pose] = float(np.abs(_filtered(ctx, ours, m, body) - want).mean())
    assert max(off["ours"].values()) < 4.5
    assert all(off["ours"][p] < off["trilinear"][p] + 0.15 for p in faced)
    assert sum(off["ours"][p] for p in turned) < 0.8 * sum(off["trilinear"][p] for p in turned)


def _level_of(tex, level: int, shape) -> np.ndarray:
    from pyglet import gl
    h, w = shape
    out = np.empty((h, w, 4), np.uint8)
    gl.glBindTexture(gl.GL_TEXTURE_2D, tex.glo)
    gl.glPixelStorei(gl.GL_PACK_ALIGNMENT, 1)
    gl.glGetTexImage(gl.GL_TEXTURE_2D, level, gl.GL_RGBA, gl.GL_UNSIGNED_BYTE, out.ctypes.data)
    return out


@pytest.mark.parametrize("shape", [(128, 2048), (855, 608), (428, 304), (7, 5)])   # the strap, the card faces
def test_the_mip_levels_made_on_the_cpu_are_the_drivers(gl_window, shape):
    """`mip_levels` against glGenerateMipmap, level by level: the same bytes where a size is even, within
    1 (and rarely) where it is odd; and `upload_mips` puts every one of them into the texture."""
    from ropework.systems.lanyard.draw_lanyard import mip_levels, upload_mips
    ctx = gl_window.ctx
    rng = np.random.default_rng(4)
    rgba = rng.integers(0, 256, (*shape, 4), dtype=np.uint8)
    rgba[: shape[0] // 3] = (230, 20, 40, 255)                  # flat print beside noise: both kinds of texel
    size = (shape[1], shape[0])
    driver = ctx.texture(size, components=4, data=rgba.tobytes(), filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR))
    driver.build_mipmaps()
    ours = ctx.texture(size, components=4, data=rgba.tobytes(), filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR))
    upload_mips(ours, rgba)
    levels = mip_levels(rgba)
    assert levels[-1].shape == (1, 1, 4) and len(levels) == int(np.log2(max(shape)))
    for k, level in enumerate(levels, 1):
        want = _level_of(driver, k, level.shape[:2]).astype(int)
        assert np.array_equal(_level_of(ours, k, level.shape[:2]), level)
        if k == 1:                                              # later levels start from our own level k-1
            off = np.abs(level.astype(int) - want)
            assert off.max() <= 1 and (off > 0).mean() < 0.01, (k, off.max(), (off > 0).mean())
            if shape[0] % 2 == 0 and shape[1] % 2 == 0:
                assert off.max() == 0
