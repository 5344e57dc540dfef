"""Level files: defaults from the seed, and one clear line for each kind of bad file."""
import subprocess
import sys
from pathlib import Path

import numpy as np
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


def test_a_repeated_rope_table_is_its_ropes_written_out(tmp_path):
    """``count``/``every`` declare the same ropes as one table each: same arrays, same state after
    play (the order too: a table's ropes in place, in anchor order, before the next table's)."""
    from ropework.scene import Scene
    from ropework.testing import drive
    head = '[[layer]]\nkind = "ropes"\n'
    tables = [(0.1, 4, 0.05, 12, "#ff6600", 1.5), (0.9, 1, 0.0, 9, "#00d4ff", 2.4), (0.8, 3, -0.2, 15, "#c5ff3b", 3.0)]
    compact = head + "".join(f'[[layer.rope]]\nanchor = {a}\ncount = {n}\nevery = {e}\npoints = {p}\n'
                             f'colour = "{c}"\nwidth = {w}\n' for a, n, e, p, c, w in tables)
    written = head + "".join(f'[[layer.rope]]\nanchor = {a + i * e!r}\npoints = {p}\ncolour = "{c}"\nwidth = {w}\n'
                             for a, n, e, p, c, w in tables for i in range(n))
    (tmp_path / "compact.toml").write_text(compact)
    (tmp_path / "written.toml").write_text(written)
    assert level.load(tmp_path / "compact.toml").layers[0]["rope"][0]["count"] == 4
    runs = []
    for name in ("compact", "written"):
        scene = Scene.load(tmp_path / f"{name}.toml", size=(640, 360), seed=1)
        try:
            first = scene.arrays()
            hand = drive.Hand(640, 360)
            for step in range(120):      # past the hand's first grab (step 60), so a rope is dragged
                hand.apply(scene, step)
                scene.step()
            runs.append((first, scene.arrays(), scene.state_hash()))
        finally:
            scene.close()
    (a0, a1, ah), (b0, b1, bh) = runs
    (pos,) = [c["Points"]["pos"] for c in a0.values() if "Points" in c]
    assert len(pos) == 4 * 12 + 9 + 3 * 15
    for x, y in ((a0, b0), (a1, b1)):
        assert x.keys() == y.keys()
        for e in x:
            for comp in x[e]:
                for f in x[e][comp]:
                    np.testing.assert_array_equal(x[e][comp][f], y[e][comp][f], err_msg=f"{comp}.{f}")
    assert ah == bh

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
