"""Batched strokes: one triangle strip through every chain, sampled more coarsely only for huge bodies."""
import numpy as np
import pytest

from ropework.systems.services import gfx

BG = (10, 10, 10, 255)


def unpack(samples):
    x = samples[:, 0]
    return {"a": x & 0x1FFFFF, "k": (x >> 21) & 7, "first": (x >> 24) & 1, "last": (x >> 25) & 1,
            "cap": (x >> 26) & 1, "chain": samples[:, 1]}


def test_each_chain_is_framed_by_zero_width_caps_and_sampled_along_its_pieces():
    s = unpack(gfx.stroke_samples([0, 3, 5], [3, 1, 2], subdiv=2))
    # chain 0: 3 points, 2 pieces -> cap, start, 2 samples per piece, cap; chain 1 (1 point) draws nothing
    assert list(s["chain"]) == [0] * 7 + [2] * 5
    assert list(s["a"][:7]) == [0, 0, 0, 0, 1, 1, 1]
    assert list(s["k"][:7]) == [0, 0, 1, 2, 1, 2, 2]
    assert list(s["cap"]) == [1, 0, 0, 0, 0, 0, 1] + [1, 0, 0, 0, 1]
    assert list(s["first"][:7]) == [1, 1, 1, 1, 0, 0, 0] and list(s["last"][:7]) == [0, 0, 0, 0, 1, 1, 1]
    # a two-point chain is one piece, both first and last: a straight run
    assert set(s["first"][7:]) == set(s["last"][7:]) == {1} and set(s["a"][7:]) == {5}


def test_samples_per_piece_fall_to_one_chord_only_past_the_budget():
    assert gfx.stroke_subdiv(66) == gfx.STROKE_SUBDIV             # the seed's three ropes
    assert gfx.stroke_subdiv(600) == gfx.STROKE_SUBDIV            # tendrils
    assert gfx.stroke_subdiv(97_500) == 1                         # 2,500 ropes x 40 points
    counts = [gfx.stroke_subdiv(n) for n in range(1, 60_000, 97)]
    assert counts == sorted(counts, reverse=True)
    assert len(gfx.stroke_samples([0], [1_000], gfx.stroke_subdiv(999))) == 999 * gfx.stroke_subdiv(999) + 3


def test_a_body_past_the_index_bits_is_refused():
    with pytest.raises(ValueError):
        gfx.stroke_samples([0], [1 << gfx.PIECE_BITS], 1)


def draw(gl_window, pos, start, count, width=3.0, size=(200, 100)):
    ctx = gl_window.ctx
    fbo = ctx.framebuffer(color_attachments=[ctx.texture(size, components=4)])
    strokes = gfx.Strokes(ctx)
    strokes.upload(np.asarray(pos, np.float32), np.asarray(start), np.asarray(count),
                   np.array([[1.0, 0.0, 0.0, 1.0]] * len(start), np.float32), np.full(len(start), width, np.float32))
    with fbo.activate():
        ctx.viewport = (0, 0, *size)
        fbo.clear(color=BG)
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.BLEND_DEFAULT
        strokes.draw(size)
    img = np.frombuffer(fbo.read(components=4), np.uint8).reshape(size[1], size[0], 4)[::-1]
    return img.astype(int)


def test_chains_are_drawn_where_they_are_and_nothing_joins_them(gl_window):
    # two vertical chains, one bent, and a lone point: the strip must not bridge from one to the next
    left = [(40, 10 + 10 * i) for i in range(9)]
    right = [(160 - (i % 2) * 6, 90 - 10 * i) for i in range(9)]
    img = draw(gl_window, left + right + [(100, 50)], [0, 9, 18], [9, 9, 1])
    red = (img[..., 0] > 120) & (img[..., 1] < 60)
    assert red[50, 38:43].any() and red[50, 152:163].any()
    assert not red[:, 60:140].any()                  # nothing between them, not even the lone point
    assert not red[:5].any() and not red[96:].any()  # nor past the chains' ends


def test_a_straight_stroke_has_its_width_and_smooth_edges(gl_window):
    img = draw(gl_window, [(20, 50), (60, 50), (100, 50), (140, 50), (180, 50)], [0], [5], width=4.0)
    column = img[:, 100, 0]
    full = np.flatnonzero(column > 250)
    assert len(full) in (3, 4, 5)                   # 4 px wide: fully covered rows ...
    assert column[full.min() - 1] < 250 or column[full.max() + 1] < 250   # ... and anti-aliased edges
    assert (img[:, 100, 0] == BG[0]).sum() >= 100 - 7


def light(gl_window, pos, start, count, width, pair, size=(200, 100), gain=1.0):
    """float[h, w, 3]: a glow (× 6 wide, alpha 0.14) and a core (alpha 0.85) added into a float buffer, as
    the tendrils add them: by two draws, or by one `draw_pair`."""
    ctx = gl_window.ctx
    fbo = ctx.framebuffer(color_attachments=[ctx.texture(size, components=4, dtype="f4")])
    strokes = gfx.Strokes(ctx)
    strokes.gain = gain
    strokes.upload(np.asarray(pos, np.float32), np.asarray(start), np.asarray(count),
                   np.array([[0.1, 0.95, 1.0, 1.0]] * len(start), np.float32), np.full(len(start), width, np.float32))
    glow, core = (6.0, 0.14, None), (1.0, 0.85, None)
    with fbo.activate():
        ctx.viewport = (0, 0, *size)
        fbo.clear()
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.SRC_ALPHA, ctx.ONE
        if pair:
            strokes.draw_pair(size, glow, core)
        else:
            strokes.draw(size, *glow)
            strokes.draw(size, *core)
        assert ctx.blend_func == (ctx.SRC_ALPHA, ctx.ONE)
        ctx.blend_func = ctx.BLEND_DEFAULT
    tex = fbo.color_attachments[0]
    return np.frombuffer(tex.read(), np.float32).reshape(size[1], size[0], 4)[::-1, :, :3].copy()


def test_a_pair_adds_what_its_two_strokes_add_in_turn(gl_window):
    """A straight rope, a wavy one and a hairpin tighter than the glow's half-width (where the glow's strip
    folds over itself, the core's does not): one pass adds the same light as the glow then the core, to
    within a sliver of the core's anti-aliased edge, and the fold does not count the core twice."""
    straight = [(10 + 12 * i, 20) for i in range(15)]
    wavy = [(10 + 9 * i, 50 + 6 * np.sin(i)) for i in range(20)]
    hairpin = [(60 + 8 * i, 80) for i in range(6)] + [(100 + 4 * np.sin(a), 84 - 4 * np.cos(a)) for a in (0.8, 1.6, 2.4)] \
        + [(100 - 8 * i, 88) for i in range(6)]
    pos = straight + wavy + hairpin
    start, count = [0, 15, 35], [15, 20, 15]
    two = light(gl_window, pos, start, count, 2.0, pair=False)
    one = light(gl_window, pos, start, count, 2.0, pair=True)
    assert two.max() > 0.8 and np.isfinite(one).all()
    diff = np.abs(one - two).max(axis=2)
    assert diff[:35].max() < 1e-4                      # straight: the same light (float sums in another order)
    assert diff[35:65].max() < 0.02                    # curved: the core within 2 % of full white
    assert diff[65:].max() < 0.02                      # folded: counted once (twice over would be 0.85 more)
    assert np.abs(one.sum() - two.sum()) < 0.001 * two.sum()


def links_picture(gl_window, pos, a, b, width=3.0, size=(200, 100), viewport=None):
    """(uint8[h, w, 4], links sent): the links drawn red over BG into a framebuffer of ``size``."""
    ctx = gl_window.ctx
    fbo = ctx.framebuffer(color_attachments=[ctx.texture(size, components=4)])
    links = gfx.Links(ctx)
    with fbo.activate():
        ctx.viewport = (0, 0, *size)
        fbo.clear(color=BG)
        ctx.viewport = viewport or (0, 0, *size)
        ctx.enable(ctx.BLEND)
        ctx.blend_func = ctx.BLEND_DEFAULT
        links.upload(np.asarray(pos, np.float32), np.asarray(a, np.int32), np.asarray(b, np.int32))
        links.draw(size, (1.0, 0.0, 0.0, 0.8), width)
    img = np.frombuffer(fbo.read(components=4), np.uint8).reshape(size[1], size[0], 4)[::-1]
    return img.astype(int), links.count


def every_link_sent(monkeypatch):
    """What drawing did before the cull: `outcodes` answers "every point inside"."""
    monkeypatch.setattr(gfx, "outcodes", lambda pos, box: None)


EDGE_LINKS = [((-50, 50), (250, 50)),     # across the whole window, both ends outside (left and right)
              ((-10, 20), (20, -10)),     # across the top-left corner, its ends beyond two different sides
              ((-1.2, 30), (-1.2, 70)),   # wholly left of the window, yet its soft edge lights column 0
              ((60, 150), (140, 100.8))]  # below the window, its end 0.8 px past the last row: reaches it


def test_links_beyond_the_viewport_are_not_sent_and_the_picture_is_the_same(gl_window, monkeypatch):
    rng = np.random.default_rng(7)
    ends = rng.uniform((-600, -600), (800, 700), (3000, 1, 2)) + rng.uniform(-20, 20, (3000, 2, 2))  # short links
    pos = np.concatenate([ends.reshape(-1, 2), np.array(EDGE_LINKS).reshape(-1, 2)])   # a 200 × 100 scene: most
    a = np.arange(0, len(pos), 2)                                                      # of them are off it
    b = a + 1
    culled, sent = links_picture(gl_window, pos, a, b)
    every_link_sent(monkeypatch)
    drawn, total = links_picture(gl_window, pos, a, b)
    assert total == len(a) and sent < total // 5      # only the few that reach the window go up ...
    assert np.array_equal(culled, drawn)              # ... and they are all that showed
    assert (drawn[..., 1] != BG[1]).any()             # (something did show)


@pytest.mark.parametrize("end", range(len(EDGE_LINKS)))
def test_a_link_that_reaches_the_window_is_kept_wherever_its_ends_are(gl_window, end):
    (p, q) = EDGE_LINKS[end]
    img, sent = links_picture(gl_window, [p, q], [0], [1])
    assert sent == 1 and (img[..., 1] != BG[1]).any()


def test_a_band_sends_the_links_of_its_rows_and_draws_them_as_the_whole_picture_would(gl_window):
    """An Offscreen band's viewport is the picture shifted past the band (ropework.render): the cull is
    to the band's rows, and the band's pixels are the same as the whole picture's there."""
    ys = np.linspace(2, 98, 49)
    pos = np.stack([np.tile([20.0, 180.0], len(ys)), np.repeat(ys, 2)], 1)      # 49 horizontal links, 2 px apart
    a = np.arange(0, 98, 2)
    whole, n = links_picture(gl_window, pos, a, a + 1)
    band, sent = links_picture(gl_window, pos, a, a + 1, viewport=(0, -60, 200, 100))   # the picture's rows 0..39
    assert n == 49 and 20 <= sent <= 24               # 40 rows of links 2 px apart, and the ones within reach
    assert np.array_equal(band[60:], whole[:40])      # the band's rows are the picture's ...
    assert (band[:60] == BG).all()                    # ... and nothing else was drawn


def test_a_chain_that_leaves_the_view_and_comes_back_is_sent_as_two_runs_framed_by_caps():
    """Points 0-3 in view, 4-7 beyond the right side, 8-11 back in view: the samples of the pieces out
    there go, each run left is framed by zero-width copies of its ends, and a body wholly in view is
    sent as it is (the same array)."""
    samples = gfx.stroke_samples([0], [12], subdiv=2)
    code = np.zeros(12, np.uint8)
    assert gfx.visible_samples(samples, code) is samples
    code[4:8] = 2
    s = unpack(gfx.visible_samples(samples, code))
    caps = np.flatnonzero(s["cap"])
    assert len(caps) == 4 and caps[0] == 0 and caps[-1] == len(s["cap"]) - 1     # two runs, two caps each
    run1, run2 = slice(caps[0] + 1, caps[1]), slice(caps[2] + 1, caps[3])
    assert s["a"][run1].max() == 3                               # piece 3 (points 3-5) is the last touching the view
    assert (s["a"][run2][0], s["k"][run2][0]) == (5, 2)          # run two starts where piece 5 ends and piece 6,
    assert s["a"][run2][1:].min() == 6                           # the first reaching point 8 again, begins
    for i in caps:                                               # a cap is its neighbour with the cap bit
        j = i + 1 if i in (caps[0], caps[2]) else i - 1
        assert (s["a"][i], s["k"][i], s["first"][i], s["last"][i]) == (s["a"][j], s["k"][j], s["first"][j], s["last"][j])
    whole = unpack(samples)
    kept = set(zip(s["a"][~s["cap"].astype(bool)], s["k"][~s["cap"].astype(bool)]))
    assert kept < set(zip(whole["a"], whole["k"]))


def wander(rng, ropes=60, points=30):
    """Random-walk chains from all over a 1,000 × 700 px area around a 200 × 100 scene: most pieces are off it."""
    steps = rng.normal(0, 6, (ropes, points, 2)) + rng.normal(0, 4, (ropes, 1, 2))
    pos = rng.uniform((-400, -300), (600, 400), (ropes, 1, 2)) + np.cumsum(steps, axis=1)
    pos[0] = np.stack([np.linspace(-80, 280, points), np.full(points, 50.0)], 1)   # across the whole scene
    return pos.reshape(-1, 2), np.arange(ropes) * points, np.full(ropes, points)


def test_strokes_beyond_the_viewport_are_not_sent_and_the_picture_is_the_same(gl_window, monkeypatch):
    """On the GPU (the CPU painter clips as it paints): one draw, and a pair of additive ones."""
    monkeypatch.setattr(gfx, "STROKES", "gpu")
    pos, start, count = wander(np.random.default_rng(3))
    ctx = gl_window.ctx
    strokes = gfx.Strokes(ctx)
    strokes.upload(pos.astype(np.float32), start, count, np.ones((len(start), 4), np.float32),
                   np.full(len(start), 3.0, np.float32))
    fbo = ctx.framebuffer(color_attachments=[ctx.texture((200, 100), components=4)])
    with fbo.activate():
        ctx.viewport = (0, 0, 200, 100)
        strokes.draw((200, 100))
    assert 0 < strokes.sent < strokes.n_samples // 4               # a few stretches of a few ropes go up
    culled = [light(gl_window, pos, start, count, 2.0, pair=False), light(gl_window, pos, start, count, 2.0, pair=True),
              draw(gl_window, pos, start, count)]
    monkeypatch.setattr(gfx, "outcodes", lambda pos, box: None)    # the draw before the cull: every sample
    every = [light(gl_window, pos, start, count, 2.0, pair=False), light(gl_window, pos, start, count, 2.0, pair=True),
             draw(gl_window, pos, start, count)]
    for c, e in zip(culled, every):
        assert np.array_equal(c, e)
    assert culled[2][50, 100, 0] > 200                              # the rope across the scene is drawn


@pytest.mark.parametrize("path", ["gpu", "cpu"])
def test_the_gain_scales_the_light_every_path_adds(gl_window, monkeypatch, path):
    """`Strokes.gain` 0.25 (the tendrils' light over its range): a quarter of the light, drawn in turn or as a
    pair, on the GPU or painted on the CPU (there the composite takes the gain)."""
    monkeypatch.setattr(gfx, "STROKES", path)
    pos = [(10 + 9 * i, 50 + 6 * np.sin(i)) for i in range(20)]
    for pair in (False, True):
        full = light(gl_window, pos, [0], [20], 2.0, pair)
        quarter = light(gl_window, pos, [0], [20], 2.0, pair, gain=0.25)
        assert full.max() > 0.5 and np.abs(quarter - 0.25 * full).max() < 1e-4, (path, pair)
