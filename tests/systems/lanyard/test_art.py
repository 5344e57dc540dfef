"""The generated strap texture is the seed's: base, weave, red borders, repeated bold text."""
import numpy as np
import pytest

from ropework.systems.lanyard.art import card_art, strap_texture

RED = [0xD9, 0x04, 0x29]
BASE = [0x11, 0x11, 0x13]


def test_the_strap_texture_has_the_seeds_size_base_weave_and_red_border_rows():
    t = strap_texture("ROPEWORK")
    assert t.shape == (128, 2048, 4) and t.dtype == np.uint8 and np.all(t[..., 3] == 255)
    assert np.all(t[:6, :, :3] == RED) and np.all(t[-6:, :, :3] == RED)
    assert not np.any(np.all(t[6:-6, :, :3] == RED, axis=-1))
    # Between the prints: base, and 4 % white lines every 4 px both ways (crossings get both).
    gap = t[:, 300:340, :3].astype(int)                         # x 300..339 lies between two prints
    assert gap[10, 1].tolist() == BASE                          # x 301, y 10: off the weave
    line = np.round(np.array(BASE) + (255 - np.array(BASE)) * 0.04)
    assert gap[10, 0].tolist() == line.tolist()                 # x 300: a vertical line
    assert gap[12, 1].tolist() == line.tolist()                 # y 12: a horizontal line
    cross = np.round(line + (255 - (np.array(BASE) + (255 - np.array(BASE)) * 0.04)) * 0.04)
    assert np.abs(gap[12, 0] - cross).max() <= 1


def test_the_text_is_printed_every_360_px_from_x_120():
    t = strap_texture("ROPEWORK")
    white = (t[..., :3].min(axis=-1) > 200)[6:-6]               # bright print, inside the borders
    cols = white.any(axis=0)
    for cx in range(120, 2048, 360):
        assert cols[cx - 40:cx + 40].sum() > 30                 # ink around each print centre
        rows = np.flatnonzero(white[:, cx - 60:cx + 60].any(axis=1)) + 6
        assert abs((rows.min() + rows.max()) / 2 - 66) <= 4     # centred 2 px below the middle
    assert not cols[300:340].any()                              # and not between prints
    assert not np.array_equal(strap_texture("MOERU AI"), t)     # the level's text is what is printed


def test_card_art_has_the_cards_proportions_and_its_colours():
    a = card_art((1.6, 2.25, 0.04), "ropework", "sub", "#e2e0da", "#111113", "#d90429")
    h, w = a.shape[:2]
    assert abs(w / h - 1.6 / 2.25) < 0.01
    assert a[h // 2, 2, :3].tolist() == [0xE2, 0xE0, 0xDA] and a[-3, w // 2, :3].tolist() == RED


@pytest.mark.parametrize("title", ["moeru", "ropework", "Badge"])
def test_the_dotted_field_stops_clear_of_the_title(title):
    """A dot touching the top of a letter drew a small dark speck on the card face (over moeru's e)."""
    stock, ink = "#d6d3cb", "#111113"
    a = card_art((1.6, 2.25, 0.04), title, "sub", stock, ink, "#d90429")[..., :3].astype(int)
    u = a.shape[1] / 100
    inky = (np.abs(a - [0x11, 0x11, 0x13]).sum(-1) < 60).any(axis=1)
    top = int(np.flatnonzero(inky[int(0.3 * a.shape[0]):])[0]) + int(0.3 * a.shape[0])   # the title's first ink row
    band = a[int(top - 3 * u):top]
    assert np.all(band == [0xD6, 0xD3, 0xCB]), "dots reach into the title's clear band"
    assert not np.all(a[int(top - 12 * u):top] == [0xD6, 0xD3, 0xCB])                 # the field is still there above


@pytest.mark.parametrize("size", [(1.6, 2.25, 0.04), (2.25, 1.6, 0.04)], ids=["portrait", "landscape"])
def test_the_subtitle_sits_above_the_accent_band(size):
    """The landscape card (levels/landscape.toml) put its subtitle under the band."""
    stock, ink = "#9aa4b4", "#111113"
    a = card_art(size, "ropework", "all access", stock, ink, "#d90429")[..., :3].astype(int)
    h = a.shape[0]
    red = np.all(a[:, 1] == RED, axis=-1)                       # the band, read down its left edge
    band = int(np.flatnonzero(red)[0])
    assert red[band:].all() and band > h // 2
    inky = (np.abs(a - [0x11, 0x11, 0x13]).sum(-1) < 60).any(axis=1)
    rows = np.flatnonzero(inky)
    u = a.shape[1] / 100
    assert band - rows.max() > 1.5 * u      # the subtitle whole, clear of the band (drawn after it, the band hid its foot)
    assert (np.diff(rows) > 1).any()                            # title and subtitle are two blocks of ink
