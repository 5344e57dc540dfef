"""Level files: defaults from the seed, and one clear line for each kind of bad file."""
import subprocess
import sys
from pathlib import Path

import pytest

from ropework import level
from ropework.schema import LevelError
from tests.conftest import LEVELS, ROOT


def test_rope_level_is_the_seed_scene():
    lv = level.load(LEVELS / "rope.toml")
    (ropes,) = lv.layers
    assert [r["anchor"] for r in ropes["rope"]] == [0.18, 0.5, 0.82]
    assert [r["points"] for r in ropes["rope"]] == [20, 27, 22]
    assert [r["colour"] for r in ropes["rope"]] == ["#ff6600", "#00d4ff", "#c5ff3b"]
    assert (ropes["gravity"], ropes["damping"], ropes["passes"], ropes["segment"], ropes["grab_radius"]) == \
        (900, 0.995, 14, 11, 46)


def test_counts_fit_the_height_as_the_seed(scenes):
    from ropework.components import Ropes
    (_, r), = scenes("rope.toml", size=(800, 200)).find(Ropes)
    assert r.count.tolist() == [14, 14, 14]        # floor(200·0.82/11) = 14
    (_, r), = scenes("rope.toml", size=(800, 60)).find(Ropes)
    assert r.count.tolist() == [8, 8, 8]           # never below 8
    (_, r), = scenes("rope.toml", size=(800, 2000)).find(Ropes)
    assert r.count.tolist() == [20, 27, 22]


ROPE = '[[layer]]\nkind = "ropes"\n[[layer.rope]]\nanchor = 0.5\n'

BAD = {
    "missing": (None, "no such level file"),
    "empty": ("", "empty file"),
    "garbage": ("\x00\x01\x02 not toml at all", "TOML syntax error"),
    "syntax": ('title = "x"\n[[layer]\nkind = "ropes"\n', "TOML syntax error"),
    "unknown_key": (ROPE.replace("kind", "gravty = 3\nkind"), "layer[0].gravty: unknown key; did you mean 'gravity'?"),
    "unknown_top": ("titel = 'x'\n" + ROPE, "titel: unknown key; did you mean 'title'?"),
    "wrong_type": (ROPE + 'points = "many"\n', "layer[0].rope[0].points: expected an integer in 2..100000, found string 'many'"),
    "negative": (ROPE + "points = -3\n", "layer[0].rope[0].points: expected an integer in 2..100000, found int -3"),
    "nan": (ROPE.replace("kind", "gravity = nan\nkind"), "layer[0].gravity: expected a number in -100000..100000, found float nan"),
    "inf": (ROPE.replace("kind", "segment = inf\nkind"), "layer[0].segment: expected a number in 0.5..1000, found float inf"),
    "absurd": (ROPE + "points = 1000000000\n", "layer[0].rope[0].points: expected an integer"),
    "bool_for_int": (ROPE.replace("kind", "passes = true\nkind"), "layer[0].passes: expected an integer in 1..500, found boolean true"),
    "colour": (ROPE + 'colour = "orange"\n', "layer[0].rope[0].colour: expected a colour"),
    "no_layer": ('title = "x"\n', "layer: expected at least one [[layer]]"),
    "unknown_kind": ('[[layer]]\nkind = "rpoes"\n', "layer[0].kind: unknown entity kind 'rpoes'; did you mean 'ropes'?"),
    "module_path": ('[[layer]]\nkind = "os.system"\n', "layer[0].kind: unknown entity kind 'os.system'"),
    "anchor_range": (ROPE.replace("0.5", "1.5"), "layer[0].rope[0].anchor: expected a number in 0..1, found float 1.5"),
    "layer_not_table": ('layer = 3\n', "layer: expected an array of tables"),
    "too_many_points": ('[[layer]]\nkind = "ropes"\n' + '[[layer.rope]]\nanchor = 0.5\npoints = 100000\n' * 21,
                        "expected at most 2000000 points"),
    "invalid_utf8": (b"title = '\xff\xfe'\n", "expected UTF-8"),
    "huge": ("# " + "x" * (level.MAX_FILE_BYTES + 10) + "\n", "at most 1048576 bytes"),
    "missing_anchor": ('[[layer]]\nkind = "ropes"\n[[layer.rope]]\npoints = 3\n',
                       "layer[0].rope[0].anchor: missing; expected a number in 0..1"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_level_gives_one_line(tmp_path, case):
    text, expected = BAD[case]
    path = tmp_path / f"{case}.toml"
    if text is not None:
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    with pytest.raises(LevelError) as e:
        level.load(path)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(str(path))
    assert expected in msg


def test_syntax_errors_name_the_line(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('title = "x"\n\n[[layer]\n')
    with pytest.raises(LevelError) as e:
        level.load(path)
    assert str(e.value).startswith(f"{path}:3: TOML syntax error")


@pytest.mark.parametrize("case", ["syntax", "unknown_key", "nan", "missing"])
def test_cli_exits_2_with_one_line_and_no_traceback(tmp_path, case):
    text, expected = BAD[case]
    path = tmp_path / f"{case}.toml"
    if text is not None:
        path.write_text(text)
    r = subprocess.run([sys.executable, "-m", "ropework", str(path), "--record", str(tmp_path / "o.png"), "--frames", "1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "o.png").exists()


def test_every_shipped_level_loads():
    assert level.shipped()
    for path in level.shipped():
        assert path.read_text().startswith(f"# python -m ropework levels/{path.name}")
        level.load(path)


def test_a_shipped_level_by_the_names_a_user_types(tmp_path, monkeypatch):
    """Its file name or stem as --list prints it, its number there, its header's run line; a real file wins."""
    monkeypatch.chdir(tmp_path)
    rope = level.LEVELS_DIR / "rope.toml"
    number = level.shipped().index(rope) + 1
    for name in ("rope", "rope.toml", str(number), "levels/rope.toml"):
        assert level.resolve(name) == rope, name
    (tmp_path / "rope.toml").write_text("# mine\n")
    assert level.resolve("rope.toml") == Path("rope.toml")        # the user's own file comes first
    assert level.resolve("nope") == Path("nope")                  # loading it says no such level file
    assert level.resolve(str(len(level.shipped()) + 1)) == Path(str(len(level.shipped()) + 1))
