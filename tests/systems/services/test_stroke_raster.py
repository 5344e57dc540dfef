"""The CPU stroke painter draws the GPU strip's picture, the same bits on one thread or two, and the
cost model leaves every shipped level on the GPU."""
from __future__ import annotations

import numpy as np
import pytest

from ropework import level
from ropework.components import Points
from ropework.render import Offscreen
from ropework.systems.services import gfx, split
from ropework.testing import drive

SIZE = (480, 270)


def curtain(tmp_path, ropes: int, points: int, width: float) -> str:
    """``ropes`` ropes side by side, the seed's colours in turn, as the benchmark's big scenes (small)."""
    rows = [f'[[layer.rope]]\nanchor = {(i + 0.5) / ropes!r}\npoints = {points}\n'
            f'colour = "{("#ff6600", "#00d4ff", "#c5ff3b80")[i % 3]}"\nwidth = {width}' for i in range(ropes)]
    path = tmp_path / f"curtain{ropes}.toml"
    path.write_text('[[layer]]\nkind = "ropes"\nsegment = 6.0\nfit = 100.0\ntip_radius = 0\nanchor_radius = 0\n'
                    + "\n".join(rows) + "\n")
    return str(path)


def played(scenes, lvl, steps=140, size=SIZE):
    """The scene after the scripted hand's first grab and circles: ropes bent and crossing."""
    scene = scenes(lvl, size=size, seed=1)
    hand = drive.Hand(*size)
    for f in range(steps):
        hand.apply(scene, f)
        scene.step()
    return scene


def pictures(ctx, scene, band_rows=None):
    """The scene drawn with its strokes on the GPU and painted on the CPU: uint8[h, w, 4] each."""
    out = {}
    for path in ("gpu", "cpu"):
        gfx.STROKES = path
        try:
            off = Offscreen(ctx, (scene.width, scene.height), band_rows=band_rows)
            off.render(scene)
            out[path] = off.pixels()[..., :3].astype(int)
        finally:
            gfx.STROKES = "auto"
    return out["gpu"], out["cpu"]


def strokes(scene):
    (draw,) = [d for d in scene.draws if type(d).__name__ == "DrawRopes"]
    return [s for s, _ in draw._gl.values()]


@pytest.mark.parametrize("lvl, kw", [("rope.toml", {}), ("curtain", {"ropes": 60, "points": 40, "width": 1.2}),
                                     ("curtain", {"ropes": 12, "points": 30, "width": 7.0})])
def test_the_painted_strokes_are_the_gpu_strokes(gl_window, scenes, tmp_path, lvl, kw):
    """Bent, crossing, translucent and overlapping ropes: the painter's picture is the strip's, up to
    the GPU's 8-bit rounding between blends (no pixel off by more than 2/255)."""
    scene = played(scenes, curtain(tmp_path, **kw) if kw else lvl)
    gpu, cpu = pictures(gl_window.ctx, scene)
    assert all(s.painted for s in strokes(scene))              # the last draw was the painter's
    d = np.abs(gpu - cpu).max(axis=2)
    drawn = (gpu != gpu[0, 0]).any(axis=2).mean()
    assert drawn > 0.005                                       # there are strokes in the picture
    assert d.max() <= 2, np.argwhere(d > 2)[:5]
    assert (d > 0).mean() < 0.5 * drawn


def test_tendrils_passes_paint_as_drawn(gl_window, scenes):
    """Width and alpha scales and an override colour (the tendrils' glow and core passes)."""
    scene = played(scenes, "tendrils.toml", steps=90)
    gpu, cpu = pictures(gl_window.ctx, scene)
    assert np.abs(gpu - cpu).max() <= 3


def test_bands_and_threads_change_no_bit(gl_window, scenes, tmp_path, monkeypatch):
    """Painted on one thread, the picture is the two-thread picture, bit for bit; drawn in Offscreen
    bands (each maps scene rows from its own origin, so coordinates round differently) it is within 1/255."""
    scene = played(scenes, curtain(tmp_path, 90, 30, 1.5))
    _, whole = pictures(gl_window.ctx, scene)
    _, banded = pictures(gl_window.ctx, scene, band_rows=64)
    monkeypatch.setattr(split, "threads", lambda: 1)
    _, one = pictures(gl_window.ctx, scene)
    assert (one == whole).all()
    assert np.abs(banded - whole).max() <= 1


def test_the_cost_model_keeps_shipped_levels_on_the_gpu(gl_window, scenes, tmp_path):
    """Every shipped level's strokes, mid-play, at a small window, at 1280×720 and at 4K stay GPU
    triangles (their pixels unchanged, banded or not); a scene of thousands of ropes is painted."""
    for size in ((320, 200), (1280, 720), (3840, 2160)):
        for path in level.shipped():
            scene = played(scenes, path, steps=90, size=size)
            Offscreen(gl_window.ctx, size, band_rows=256).render(scene)
            for s in (s for d in scene.draws for s in _all_strokes(d)):
                assert s.n_samples and not s.painted, (size, path.name, s.n_samples)
                assert not gfx.cpu_paints(s.n_samples, size[0] * size[1], 2), (size, path.name, s.n_samples)
    assert gfx.cpu_paints(105_000, 1280 * 720, 1) and gfx.cpu_paints(105_000, 1280 * 720, 2)
    scene = played(scenes, curtain(tmp_path, 1000, 20, 1.2), steps=3, size=(1280, 720))
    Offscreen(gl_window.ctx, (1280, 720)).render(scene)
    assert all(s.painted for s in strokes(scene))


def _all_strokes(draw):
    found = []
    for v in vars(draw).values():
        items = v.values() if isinstance(v, dict) else [v]
        for x in items:
            for y in (x if isinstance(x, tuple) else (x,)):
                if isinstance(y, gfx.Strokes):
                    found.append(y)
                elif hasattr(y, "strokes") and isinstance(y.strokes, gfx.Strokes):
                    found.append(y.strokes)
    return found



def test_look_alike_ropes_closer_than_a_pixel_are_left_out(gl_window, scenes, tmp_path):
    """A curtain of one-colour ropes 0.05 px apart (bands of colour, as the million-point scene):
    inside a run most ropes are left out, the ends of every run and the rope the hand drags are
    painted — every rope near a band's start, and near its end where no band follows — and the
    picture is still the GPU's within 2/255."""
    from ropework.systems.services import stroke_raster
    bands_ = [("#ff6600", 0), ("#00d4ff", 1), ("#c5ff3b", 2)]
    per, gap = 400, 0.05 / SIZE[0]                     # ropes a band (20 px wide), anchor step (0.05 px)
    rows = [f'[[layer.rope]]\nanchor = {0.45 + (b * per + 0.5) * gap!r}\ncount = {per}\nevery = {gap!r}\n'
            f'points = 30\ncolour = "{c}"\nwidth = 1.2' for c, b in bands_]
    path = tmp_path / "dense.toml"
    path.write_text('[[layer]]\nkind = "ropes"\nsegment = 6.0\nfit = 100.0\ntip_radius = 0\nanchor_radius = 0\n'
                    + "\n".join(rows) + "\n")
    scene = scenes(str(path), size=SIZE, seed=1)
    scene.pointer_move(0.45 * SIZE[0] + 11, 100)       # grab a rope in the middle band and pull it aside
    scene.step(5)
    scene.pointer_down(0.45 * SIZE[0] + 11, 100)
    for i in range(40):
        scene.pointer_move(0.45 * SIZE[0] + 11 + 3 * i, 100 + i)
        scene.step()
    kept = {}
    real = stroke_raster.keep_ropes

    def spy(gaps, over, gap_, edge, close, keep):
        real(gaps, over, gap_, edge, close, keep)
        kept["keep"] = keep.copy()
    stroke_raster.keep_ropes = spy
    try:
        gpu, cpu = pictures(gl_window.ctx, scene)
    finally:
        stroke_raster.keep_ropes = real
    keep = kept["keep"]
    from ropework.components import Grab, Ropes
    (_, grab), = scene.find(Grab)
    (_, ropes), = scene.find(Ropes)
    held_rope = int(np.searchsorted(ropes.start, grab.held, side="right") - 1)
    assert grab.held >= 0 and keep[held_rope]
    assert all(keep[[b * per, b * per + per - 1]].all() for b in range(3))   # every run's ends
    assert all(keep[b * per:b * per + 30].all() for b in range(3))   # near ends: over what came before
    assert keep[3 * per - 30:].all()                                 # the last band's far end: over the page
    assert not keep[per - 30:per - 1].all()        # band 0's far end lies under band 1's near end: thinned
    assert keep.sum() < 0.35 * keep.size                                 # most ropes left out
    assert np.abs(gpu - cpu).max() <= 2
    # The kept ropes' samples are packed at the start of the painter's buffers: a frame writes as many
    # rows as it keeps (one block, in order), and the rows past them are never touched.
    (stroke,) = strokes(scene)
    V, C = stroke.canvas._work[0], stroke.canvas._work[1]
    V[:], C[:] = np.nan, np.nan
    gfx.STROKES = "cpu"
    try:
        Offscreen(gl_window.ctx, (scene.width, scene.height)).render(scene)
    finally:
        gfx.STROKES = "auto"
    n = int(((ropes.count[keep] - 1) * stroke.subdiv + 3).sum())     # each kept rope's samples (gfx.stroke_samples)
    assert np.isfinite(V[:n]).all() and np.isfinite(C[:n]).all()
    assert np.isnan(V[n:]).all() and np.isnan(C[n:]).all()


def test_only_the_rectangles_holding_strokes_are_composited(gl_window, scenes, tmp_path):
    """The band composites through scissors: every pixel the painter touched lies in one of its
    rectangles, and a rope hanging below a curtain does not make the whole band's width composite."""
    scene = scenes(curtain(tmp_path, 60, 12, 1.2), size=(480, 360), seed=1)    # a curtain 66 px tall
    scene.step(30)
    tip = scene.find(Points)[0][1].pos[30 * 12 + 11, :2]                       # the middle rope's last point
    scene.pointer_move(*tip)
    scene.pointer_down(*tip)
    for i in range(60):                                                        # pulled down to y = 300
        scene.pointer_move(tip[0], tip[1] + (300 - tip[1]) * (i + 1) / 60)
        scene.step()
    gfx.STROKES = "cpu"
    try:
        Offscreen(gl_window.ctx, (scene.width, scene.height)).render(scene)
    finally:
        gfx.STROKES = "auto"
    (band,) = [s.canvas for s in strokes(scene)]
    x, y, w, h = band.view.rect
    inside = np.zeros((h, w), bool)
    for px, py, pw, ph in band.parts:
        assert x <= px and px + pw <= x + w and y <= py and py + ph <= y + h
        inside[py - y:py - y + ph, px - x:px - x + pw] = True
    painted = band.image[..., 3] > 0
    assert painted.any() and not (painted & ~inside).any()
    assert h > 200 and inside.sum() < 0.5 * inside.size                      # the band reaches the pulled tip


def test_into_an_offscreen_the_band_composites_its_rows_by_read_back(gl_window, scenes, tmp_path, monkeypatch):
    """Into an Offscreen's RGBA8 texture the band is composited by one read-back and blend of the rows
    its strokes reach (`Canvas._blit` over those rows), not by a blended quad per part: the picture is
    the quads' but for a level at rounding, and the rows outside stay as they were."""
    from ropework.systems.services import stroke_raster
    scene = played(scenes, curtain(tmp_path, 60, 12, 1.2), steps=60)
    ctx = gl_window.ctx
    out = {}
    for way in ("read-back", "quads"):
        if way == "quads":
            monkeypatch.setattr(stroke_raster.Band, "_direct", staticmethod(lambda target: None))
        gfx.STROKES = "cpu"
        try:
            off = Offscreen(ctx, (scene.width, scene.height))
            off.render(scene)
            out[way] = off.pixels()[..., :3].astype(int)
        finally:
            gfx.STROKES = "auto"
        (band,) = [s.canvas for s in strokes(scene)]
        assert band.blits == (1 if way == "read-back" else 0)
        band.blits = 0
        x, y, w, h = band.view.rect
        assert h < scene.height                     # a band over the top rows only
    d = np.abs(out["read-back"] - out["quads"])
    assert d.max() <= 1 and (d > 0).mean() < 1e-3
    assert (out["quads"] != out["quads"][-1, -1]).any()
