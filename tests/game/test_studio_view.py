"""The studio panel's layout and widget rules, headless (arcade.gui itself needs a real window:
tests/game/test_studio_window.py drives it)."""
from __future__ import annotations

import pytest

from ropework import level
from ropework.scene import Scene
from ropework.schema import Key
from ropework.studio import Studio
from ropework.studio_view import FONT, ROW, WIDTH, _parse, body_length, fitted, plan, rounded, slider_range, unit


@pytest.mark.parametrize("name", [p.name for p in level.shipped()])
def test_every_key_of_every_layer_gets_a_row_within_the_panel(tmp_path, name):
    size = (1280, 720)
    st = Studio(Scene.load(name, size=size))
    try:
        for sel in range(-1, len(st.layers())):
            seen, scroll = [], 0
            while scroll < body_length(st, sel):
                rows = plan(st, *size, selected=sel, scroll=scroll)
                body = [r for r in rows if r.kind in ("key", "entry", "add_entry")]
                assert body, "every scroll position shows something"
                for r in rows:
                    assert size[0] - WIDTH <= r.x and r.x + r.w <= size[0] and r.y >= 4 * ROW, r
                seen += [(r.where, r.name) for r in body if r.kind == "key"]
                scroll += len(body)
            where = () if sel < 0 else (sel,)
            want = [(where, k) for k in st.schema(where).keys if k != "kind"]
            if sel >= 0:
                for arr, (sub, *_r) in st.schema(where).arrays.items():
                    for j, _ in enumerate(st.layers()[sel].get(arr) or []):
                        want += [((sel, arr, j), k) for k in sub.keys]
            assert seen == want
    finally:
        st.scene.close()


def test_sliders_span_a_useful_range_and_hold_the_value():
    passes = Key("passes", "int", 14, "", lo=1, hi=500)
    assert slider_range(passes, 14) == (1, 56)             # not 1..500: 14 → 2 is a real drag
    assert slider_range(passes, 300) == (1, 300)
    damping = Key("damping", "float", 0.995, "", lo=0.0, hi=1.0)
    assert slider_range(damping, 0.5) == (0.0, 1.0)
    gravity = Key("gravity", "float", 900.0, "", lo=-1e5, hi=1e5)
    assert slider_range(gravity, 900.0) == (-3600.0, 3600.0)
    assert rounded(gravity, 123.456789, -3600, 3600) == 123.0 and rounded(damping, 0.123456, 0, 1) == 0.123
    assert rounded(passes, 13.6, 1, 56) == 14


def test_units_come_from_the_docs_and_typed_text_is_refused_as_validate_would():
    assert unit("downward acceleration, px/s²") == "px/s²" and unit("fraction of velocity kept per step") == ""
    passes = Key("passes", "int", 14, "", lo=1, hi=500)
    assert _parse(passes, " 7 ") == 7 and _parse(passes, "7x") == "7x"
    assert _parse(Key("s", "names", [], ""), "a, b ,") == ["a", "b"]


def test_a_text_too_long_for_its_row_is_cut_to_fit_with_an_ellipsis(gl_window):
    import arcade

    def px(t):
        return arcade.Text(t, 0, 0, font_size=FONT, bold=True).content_width
    width = WIDTH - 20
    assert fitted("studio · rope.toml", width, bold=True) == "studio · rope.toml"
    long = "studio · tendrils.toml  (unsaved)  (shipped: Ctrl+S saves a copy)"
    cut = fitted(long, width, bold=True)
    kept = cut[:-1]
    assert cut.endswith("…") and long.startswith(kept) and px(cut) <= width
    assert px(long[:len(kept) + 1].rstrip() + "…") > width        # the longest cut that fits
