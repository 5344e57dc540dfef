"""A level that draws ropes compiles, as it opens, the kernels a drawn rope brings (a body's
attachments and pins), so the first rope drawn is not the frame that compiles them."""
from __future__ import annotations

from ropework.compile import kernels_called
from ropework.compile.warming import drawn_variant
from ropework.level import load

LEVEL = '[[layer]]\nkind = "ropes"\ndraw = {draw}\n\n[[layer.rope]]\nanchor = 0.5\n'
DRAWN = ('\n[[layer.rope]]\nanchor = 0.3\npoints = 4\npin = "end"\npath = [[0.3, 0.4], [0.35, 0.4]]\n'
         '\n[[layer.attach]]\nfrom = 1\nfrom_at = 0.0\nto = 0\nat = 0.5\n')


def test_a_drawing_level_warms_what_a_drawn_rope_calls(tmp_path):
    paths = {}
    for name, text in (("plain", LEVEL.format(draw="false")), ("draws", LEVEL.format(draw="true")),
                       ("drawn", LEVEL.format(draw="false") + DRAWN)):
        paths[name] = tmp_path / f"{name}.toml"
        paths[name].write_text(text)
    plain, draws, drawn = (set(kernels_called(load(paths[n]))) for n in ("plain", "draws", "drawn"))
    assert drawn - plain, "a drawn, attached rope calls kernels a plain rope does not"
    assert drawn <= draws                          # all of them warmed for the level that draws
    assert drawn_variant(load(paths["plain"])) is None
