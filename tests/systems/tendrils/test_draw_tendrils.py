"""Draw tendrils: the light buffers stay within MAX_LIGHT_PIXELS, a coarse light still shows, and fading and
showing only the lit tiles draws what fading and showing every texel did."""
import numpy as np
import pytest

from ropework.render import Offscreen
from ropework.systems.tendrils import draw_tendrils
from ropework.systems.tendrils.draw_tendrils import MAX_LIGHT_PIXELS, light_size


def test_light_is_one_texel_a_pixel_until_the_scene_would_pass_the_cap():
    assert light_size((1280, 720), 1) == (1280, 720)
    assert light_size((1280, 720), 9) == (1280, 720)          # 9 bundles at 1280×720 fit
    w, h = light_size((8192, 8192), 1)
    assert w * h <= MAX_LIGHT_PIXELS and w * h > 0.99 * MAX_LIGHT_PIXELS and abs(w / h - 1) < 0.01
    w, h = light_size((1280, 720), 31)
    assert 31 * w * h <= MAX_LIGHT_PIXELS and abs(w / h - 16 / 9) < 0.01


def test_a_coarse_light_is_drawn_smoothed_where_the_full_one_is(scenes, gl_window, monkeypatch):
    """With the cap at a quarter of the picture, the light buffers have half the texels a side and the
    picture keeps the tendrils where they were: the same bright pixels, within a blur."""
    def picture():
        scene = scenes("tendrils.toml", size=(320, 200))
        scene.pointer_move(160, 100)
        scene.step(30)
        off = Offscreen(gl_window.ctx, (320, 200))
        off.render(scene)
        drawer = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))
        sizes = {t.size for t in drawer._trails.values()}
        return off.pixels()[:, :, :3].astype(int).sum(axis=2), sizes
    full, full_sizes = picture()
    monkeypatch.setattr(draw_tendrils, "MAX_LIGHT_PIXELS", 320 * 200 // 4)
    coarse, coarse_sizes = picture()
    assert full_sizes == {(320, 200)} and coarse_sizes == {(160, 100)}
    lit = full > full.max() / 2
    assert lit.sum() > 200
    assert (coarse[lit] > coarse.max() / 8).mean() > 0.9          # where the light was, it still is
    assert abs(coarse.sum() / full.sum() - 1) < 0.35             # about as much light in all


def whip(scene, frames, draw, size=(640, 360)):
    """Swing the pointer across the scene and back (sparks fly), hold it to electrify, then let go and
    rest; ``draw()`` after every step."""
    w, h = size
    for i in range(frames):
        t = i / frames
        x = w * (0.15 + 0.7 * abs(((3 * t) % 2) - 1))               # there and back, three times
        y = h * (0.25 + 0.3 * t)
        scene.pointer_move(x, y)
        if i == frames // 2:
            scene.pointer_down(x, y)
        if i == frames // 2 + 20:
            scene.pointer_up(x, y)
        scene.step(1)
        draw(i)


@pytest.mark.parametrize("backdrop", ["opaque", "added"])
def test_fading_and_showing_only_the_lit_tiles_draws_what_the_whole_window_did(scenes, gl_window, monkeypatch, backdrop):
    """Whipped, electrified and left to rest, frame after frame: the light faded and shown over its lit tiles
    only (the rest cleared to the backdrop, or nothing added onto the layers below) is the light faded and
    shown over every texel (all but a rare pixel identical, that one within a level); while whipped the lit
    tiles are well under their bounding box."""
    size = (640, 360)
    pictures = {}
    shares = []
    for mode in ("box", "all"):
        if mode == "all":
            monkeypatch.setattr(draw_tendrils.DrawTendrils, "_added_boxes",      # every frame lights every tile
                                staticmethod(lambda frame, *a: np.array([[0.0, 0.0, frame.width, frame.height]])))
        scene = scenes("tendrils.toml", size=size)
        if backdrop == "added":
            for _, look in scene.find(draw_tendrils.TendrilLook):
                look.backdrop = (*look.backdrop[:3], 0.0)
        off = Offscreen(gl_window.ctx, size)
        shots = []

        def draw(i):
            if i % 9 == 0 or i > 150:
                off.render(scene)
                shots.append(off.pixels()[:, :, :3].copy())
                if mode == "box" and i < 100:
                    (t,) = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))._trails.values()
                    x0, y0, x1, y1 = t.box
                    shares.append(t.held.sum() * draw_tendrils.LIT_TILE ** 2 / ((x1 - x0) * (y1 - y0)))
        whip(scene, 200, draw)
        pictures[mode] = shots
        drawer = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))
        if mode == "box":
            (trail,) = drawer._trails.values()
            x0, y0, x1, y1 = trail.box
            assert 0 < (x1 - x0) * (y1 - y0) < 0.8 * size[0] * size[1]   # at rest the box is part of the window
    assert len(pictures["box"]) == len(pictures["all"]) > 60
    assert np.median(shares) < 0.8                                        # the tiles leave out much of the box
    # A tile's light is dropped once it is below LIT_FLOOR (an eighth of a level); new light landing on what was
    # dropped can round to the next level where the kept remainder would not have: 1 level, at a rare pixel.
    # The light's steps are 1/8192 of white (15 bits over LIGHT_RANGE 4), and a texel's last two steps do not
    # fade (x · 0.78 rounds back to x): lighting every tile keeps that remainder for good where the lit tiles
    # drop it, so new light lands on it a level up at a few dozen pixels of 230,400 (58 the most seen).
    for i, (a, b) in enumerate(zip(pictures["box"], pictures["all"])):
        diff = np.abs(a.astype(int) - b).max(axis=2)
        assert diff.max() <= 1 and (diff > 0).sum() <= 100, (i, int(diff.max()), int((diff > 0).sum()))
    assert max(int(p.max()) for p in pictures["box"]) > 200               # the light was there to compare


def test_light_outside_the_lit_tiles_is_zero_and_an_old_trail_fades_to_nothing(scenes, gl_window):
    """Whipped across the window and then held still at the left: the trail left on the right fades, its
    texels end exactly 0 (no ghost below the 8-bit floor is kept), and the lit tiles shrink to the ropes."""
    size = (1280, 720)
    scene = scenes("tendrils.toml", size=size)
    off = Offscreen(gl_window.ctx, size)
    whip(scene, 90, lambda i: off.render(scene), size)
    drawer = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))
    (trail,) = drawer._trails.values()
    wide = trail.box
    for _ in range(180):                                                  # 3 s still, far left: the sparks die
        scene.pointer_move(100, 80)
        scene.step(1)
        off.render(scene)
    light = trail.light()
    x0, y0, x1, y1 = trail.box
    assert wide[2] > 0.9 * size[0] and x1 < 0.75 * size[0], (wide, trail.box)   # lit on the right, now not
    tile = draw_tendrils.LIT_TILE
    lit = np.repeat(np.repeat(trail.held, tile, 0), tile, 1)[:size[1], :size[0]]
    assert lit.sum() > 0 and not lit[:y0].any() and not lit[y1:].any() and not lit[:, x1:].any()
    assert (~lit).sum() > 0.25 * lit.size
    assert not light[~lit][:, :3].any()                                   # exactly 0, not merely dim
    assert light[lit][:, :3].max() > 0.5                                  # the ropes still glow inside


def test_tiles_cover_what_each_frame_adds(scenes, gl_window):
    """Frame after frame of a whip, electrified too, sparks flying: every texel the frame's strokes, sparks and
    pointer glow lit (light that was not there after the fade) is in a lit tile."""
    size = (640, 360)
    scene = scenes("tendrils.toml", size=size)
    off = Offscreen(gl_window.ctx, size)
    faded = []
    real = draw_tendrils._draw_runs

    def spy(trail, code, keeps, program):                                # after the fade, before the adds
        lit_runs = real(trail, code, keeps, program)
        if keeps[0] == 0.0 and len(keeps) == 3:
            faded.append(trail.light())
        return lit_runs
    draw_tendrils._draw_runs = spy
    try:
        checked = []

        def draw(i):
            faded.clear()
            off.render(scene)
            (trail,) = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))._trails.values()
            if not faded:
                return
            after = trail.light()
            added = (after[:, :, :3].astype(np.float32) > faded[0][:, :, :3].astype(np.float32)).any(axis=2)
            tile = draw_tendrils.LIT_TILE
            lit = np.repeat(np.repeat(trail.held, tile, 0), tile, 1)[:size[1], :size[0]]
            assert not (added & ~lit).any(), i
            checked.append(added.sum())
        whip(scene, 120, draw, size)
    finally:
        draw_tendrils._draw_runs = real
    assert len(checked) > 100 and min(checked) > 500


def test_a_trail_that_hardly_fades_keeps_its_tiles_lit(scenes, gl_window):
    """trail_keep = 0.999, the schema's most (light kept ~2 minutes): the lit tiles, a grid of fixed size,
    still cover every place the bundle has been."""
    size = (640, 360)
    scene = scenes("tendrils.toml", size=size)
    for _, look in scene.find(draw_tendrils.TendrilLook):
        look.keep = 0.999
    off = Offscreen(gl_window.ctx, size)
    seen = []
    for i in range(150):
        x = 40 + 560 * (i / 149)
        scene.pointer_move(x, 80)
        scene.step(1)
        off.render(scene)
        seen.append(x)
    drawer = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))
    (trail,) = drawer._trails.values()
    tile = draw_tendrils.LIT_TILE
    assert trail.left.shape == (-(-size[1] // tile), -(-size[0] // tile))
    row = trail.held[(size[1] - 80) // tile]             # the tiles the pointer's path crossed
    assert row[int(min(seen) - 20) // tile: int(max(seen) + 20) // tile + 1].all()
    x0, _, x1, _ = trail.box
    assert x0 <= min(seen) - 20 and x1 >= max(seen) + 20                 # where it started and where it is


def test_drawing_leaves_gl_scissor_state_as_arcade_keeps_it(scenes, gl_window):
    """arcade enables the scissor test once and never again: a tendrils frame that left it off made
    every later scissored draw (the stroke painter's composites) unclipped. After a frame, the test is
    on and the box is what it was."""
    from pyglet import gl as raw
    size = (320, 180)
    scene = scenes("tendrils.toml", size=size)
    off = Offscreen(gl_window.ctx, size)
    whip(scene, 20, lambda i: off.render(scene), size)                  # light only in part of the window
    box = (raw.GLint * 4)()
    raw.glGetIntegerv(raw.GL_SCISSOR_BOX, box)
    before = tuple(box)
    assert raw.glIsEnabled(raw.GL_SCISSOR_TEST)
    off.render(scene)
    raw.glGetIntegerv(raw.GL_SCISSOR_BOX, box)
    assert raw.glIsEnabled(raw.GL_SCISSOR_TEST)
    assert tuple(box) == before


def test_the_fade_clamps_the_light_to_white_and_keeps_its_share(scenes, gl_window):
    """Electrified, the light passes white where the strokes cross (the light holds up to LIGHT_RANGE); each
    frame's fade leaves min(light, 1) × keep in the lit tiles, exactly where last frame's strokes made it pass 1
    as well as elsewhere, and 0 in the tiles no longer lit."""
    size = (640, 360)
    scene = scenes("tendrils.toml", size=size)
    off = Offscreen(gl_window.ctx, size)
    faded = []
    real = draw_tendrils._draw_runs

    def spy(trail, code, keeps, program):                                # after the fade, before the adds
        out = real(trail, code, keeps, program)
        if keeps[0] == 0.0 and len(keeps) == 3:
            faded.append((trail.light(), keeps[2]))
        return out
    draw_tendrils._draw_runs = spy
    tile = draw_tendrils.LIT_TILE
    step = draw_tendrils.LIGHT_RANGE / 32767                              # one step of the 16-bit signed light
    over = []
    try:
        before = None

        def draw(i):
            nonlocal before
            faded.clear()
            (trail,) = (next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))._trails.values()
                        or [None])
            held = None if trail is None else trail.held.copy()
            off.render(scene)
            (trail,) = next(d for d in scene.draws if isinstance(d, draw_tendrils.DrawTendrils))._trails.values()
            if before is not None and faded:
                light, keep = faded[0]
                lit = np.repeat(np.repeat(trail.held, tile, 0), tile, 1)[:size[1], :size[0]]
                was = np.repeat(np.repeat(held, tile, 0), tile, 1)[:size[1], :size[0]]
                want = np.minimum(np.maximum(before[:, :, :3], 0.0), 1.0) * keep
                got = np.maximum(light[:, :, :3], 0.0)
                assert keep == pytest.approx(0.78, abs=1e-6)
                assert np.abs(got - want)[lit].max() <= 2 * step, i
                assert not light[was & ~lit][:, :3].any(), i               # dropped: exactly 0
                over.append(int((before[:, :, :3] > 1.05).any(axis=2).sum()))
            before = trail.light()
        whip(scene, 80, draw, size)
    finally:
        draw_tendrils._draw_runs = real
    assert max(over) > 1000                                               # light well past white was clamped


def test_a_clamp_that_fails_leaves_the_blend_equation_as_it_found_it(scenes, gl_window, monkeypatch):
    """The clamp draws with GL_MIN, which arcade does not track: if its draw raises, the equation is
    back to GL_FUNC_ADD, so the window's next frames (and every other layer) still add."""
    from pyglet import gl as raw
    size = (320, 180)
    scene = scenes("tendrils.toml", size=size)
    off = Offscreen(gl_window.ctx, size)
    whip(scene, 20, lambda i: off.render(scene), size)
    real = draw_tendrils._draw_runs

    def fail_in_min(trail, code, keeps, program):
        eq = raw.GLint()
        raw.glGetIntegerv(raw.GL_BLEND_EQUATION_RGB, eq)
        if eq.value == raw.GL_MIN:
            raise RuntimeError("a draw failed")
        return real(trail, code, keeps, program)
    monkeypatch.setattr(draw_tendrils, "_draw_runs", fail_in_min)
    raised = False
    for _ in range(10):                       # until a frame clamps (last frame's adds may pass white)
        scene.step(1)
        try:
            off.render(scene)
        except RuntimeError:
            raised = True
            break
    assert raised
    eq = raw.GLint()
    raw.glGetIntegerv(raw.GL_BLEND_EQUATION_RGB, eq)
    assert eq.value == raw.GL_FUNC_ADD
