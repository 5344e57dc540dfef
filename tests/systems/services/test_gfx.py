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
