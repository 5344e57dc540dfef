"""The solve keys of a ropes or cloth layer refuse bad input with one line, and cost nothing unset."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ropework import level
from ropework.schema import LevelError

ROPES = '[[layer]]\nkind = "ropes"\n{layer}[[layer.rope]]\nanchor = 0.3\n{rope}[[layer.rope]]\nanchor = 0.6\n{tail}'


def write(tmp_path, layer="", rope="", tail=""):
    f = tmp_path / "bad.toml"
    f.write_text(ROPES.format(layer=layer, rope=rope, tail=tail))
    return f


ATTACH = "[[layer.attach]]\nfrom = {f}\nfrom_at = {fa}\nto = {t}\nat = {a}\n"


@pytest.mark.parametrize("parts, where, says", [
    (dict(layer="compliance = -0.1\nsubsteps = 4\n"), "layer[0].compliance", "0..1000000"),
    (dict(rope="compliance = -2\n"), "layer[0].rope[0].compliance", "0..1000000"),
    (dict(layer="substeps = 65\n"), "layer[0].substeps", "0..64"),
    (dict(layer="bend = 1.5\n"), "layer[0].bend", "0..1"),
    (dict(tail=ATTACH.format(f=2, fa=1, t=0, a=0.5)), "layer[0].attach[0].from", "0..1"),
    (dict(tail=ATTACH.format(f=0, fa=1, t=7, a=0.5)), "layer[0].attach[0].to", "0..1"),
    (dict(tail=ATTACH.format(f=0, fa=1, t=1, a=1.5)), "layer[0].attach[0].at", "0..1"),
    (dict(tail=ATTACH.format(f=0, fa=-0.5, t=1, a=0.5)), "layer[0].attach[0].from_at", "0..1"),
    (dict(tail=ATTACH.format(f=0, fa=1, t=0, a=1)), "layer[0].attach[0]", "cannot be solved"),
    (dict(tail=ATTACH.format(f=0, fa=0, t=1, a=0)), "layer[0].attach[0]", "cannot be solved"),
])
def test_bad_solve_keys_are_refused_with_one_line(tmp_path, parts, where, says):
    f = write(tmp_path, **parts)
    with pytest.raises(LevelError) as e:
        level.load(f)
    text = str(e.value)
    assert "\n" not in text and where in text and says in text and str(f) in text


def test_validate_exits_2_with_the_line(tmp_path):
    f = write(tmp_path, layer="substeps = 100\n")
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and "layer[0].substeps" in r.stdout + r.stderr and "Traceback" not in r.stderr


def test_unset_keys_make_no_extras(tmp_path):
    from ropework.components.solve import Extras
    from ropework.scene import Scene
    s = Scene.load("rope", size=(800, 600), seed=1)
    assert s.find(Extras) == []
    s.close()
    f = write(tmp_path, layer="bend = 0.5\n")
    s = Scene.load(str(f), size=(800, 600), seed=1)
    assert len(s.find(Extras)) == 1
    s.close()
