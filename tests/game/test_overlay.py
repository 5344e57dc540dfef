"""The window's overlay: its dark panels are drawn in the text's batch, and an overlay told what it already
shows does nothing."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.controller import Controller
from ropework.stats import count_draws
from ropework.window import PAD, PANEL, Overlay


@pytest.fixture
def ctl(scenes, tmp_path):
    c = Controller(scenes("rope.toml", size=(480, 270)), out_dir=tmp_path)
    yield c
    c.finish()


def test_the_panels_are_drawn_behind_their_text_in_the_one_batch(ctl, gl_window):
    """With F on, the statistics' panel covers its text's box and PAD around it, 70 % dark over what is below,
    and drawing the overlay makes no draw call of arcade's own (the panels are in the text's pyglet batch)."""
    ctx = gl_window.ctx
    w, h = gl_window.get_size()
    ctl.toggle_stats()
    ov = Overlay()
    ov.update(ctl, w, h)
    x, y = ov.stats.position
    rect = ov.panels["stats"]
    assert rect.visible and not ov.panels["help"].visible
    assert (rect.x, rect.y) == pytest.approx((x - PAD, y - ov.stats.content_height - PAD))
    assert (rect.width, rect.height) == pytest.approx((ov.stats.content_width + 2 * PAD,
                                                      ov.stats.content_height + 2 * PAD))
    ctx.screen.use()
    gl_window.default_camera.use()
    ctx.viewport, ctx.scissor = (0, 0, w, h), None                        # whatever an earlier test left
    gl_window.clear(color=(255, 255, 255, 255))
    ctx.enable(ctx.BLEND)
    ctx.blend_func = ctx.BLEND_DEFAULT
    with count_draws() as calls:
        ov.draw()
    assert calls[0] == 0
    pixels = np.frombuffer(ctx.screen.read(viewport=(0, 0, w, h), components=3), np.uint8).reshape(h, w, 3)
    row, right = int(y) - PAD, int(x + ov.stats.content_width)          # GL rows: y up, as the overlay's
    inside, outside = pixels[row, right + PAD // 2], pixels[row, right + 2 * PAD]   # in the pad; past it
    assert abs(int(inside[0]) - round(255 * (1 - PANEL[3] / 255))) <= 2 and tuple(outside) == (255, 255, 255)


def test_an_overlay_told_what_it_shows_looks_at_nothing_again(ctl, gl_window, monkeypatch):
    """Every frame tells the overlay the controller's texts: while they are the ones shown, no text is
    compared or laid out; a change (F) is shown."""
    w, h = gl_window.get_size()
    ov = Overlay()
    ov.update(ctl, w, h)
    looked = []
    real = Overlay._set
    monkeypatch.setattr(Overlay, "_set", staticmethod(lambda t, value: looked.append(value) or real(t, value)))
    ov.update(ctl, w, h)
    assert looked == []
    ctl.toggle_stats()
    ov.update(ctl, w, h)
    assert ov.stats.visible and ov.stats.text == ctl.stats and looked


def test_the_help_keeps_its_key_names_clear_of_their_descriptions_and_the_banner_clear_of_it(ctl, gl_window):
    """Every key name ends before its description begins (Ctrl+Shift+S is wider than the key column's
    least width), the rows stay inside the help's panel, and a level's banner is hidden while the help is
    open (its heading carries the title) and back when it closes."""
    w, h = 1280, 720
    ov = Overlay()
    ov.update(ctl, w, h)
    assert ov.banner.visible
    ctl.toggle_help()
    ov.update(ctl, w, h)
    assert not ov.banner.visible and not ov.panels["banner"].visible
    rows = [(k, d) for k, d in ov.help_rows if k.visible]
    assert rows and max(k.content_width for k, _ in rows) > 90       # there is a key name wider than 90 px
    panel = ov.panels["help"]
    for k, d in rows:
        assert k.position[0] + k.content_width < d.position[0], k.text
        assert d.position[0] + d.content_width <= panel.x + panel.width - PAD + 0.5, d.text
    ctl.toggle_help()
    ov.update(ctl, w, h)
    assert ov.banner.visible
