"""A corpus of bad level files: each is refused with one line, and nothing else ever escapes.

Every key of `ropework.level.TOP` and of every registered kind's schema gets a value of every
wrong TOML type, out-of-range, NaN and infinite numbers, over-long strings and malformed
colours (tests/levelgen.py builds them from the declarations, so a new kind is covered with
no edit here); beside them: TOML syntax errors, invalid UTF-8, binary garbage, deep
nesting, huge files, unknown keys, kinds and system names, counts past the point caps and
image paths leading out of the level's folder. Hypothesis adds generated ones.

For all of them `ropework.level.load` raises `LevelError` whose text is one line starting with
the file (and, for a bad key, naming the key path, what was expected and what was found);
a sample also goes through the real command line, which must exit 2 with that one line.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ropework import kinds, level
from ropework.schema import LevelError
from tests import levelgen as g
from tests.conftest import ROOT

ALLOC_BUDGET = 64 << 20   # bytes a refused level may allocate while being read: caps come before arrays
BUILD_POINTS = 20_000     # a mutated level that loads is also built and stepped when it is this small
MESSAGE_MAX = 1200        # characters in one error line beyond the file name: a line, not a dump

_TMP = tempfile.TemporaryDirectory(prefix="ropework-bad-levels-")
TMP = Path(_TMP.name)
_counter = iter(range(10**9))


def write(content, name: str | None = None, folder: Path = TMP) -> Path:
    """Write a level file (str, bytes or a document dict) under a fresh name."""
    path = folder / (name or f"bad-{next(_counter)}.toml")
    if isinstance(content, dict):
        content = g.dumps(content)
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


def refused(path: Path, size=(1280, 720), key: str | None = None, *words: str) -> str:
    """Load ``path``; it must raise LevelError (nothing else) with one line naming the file
    and, when given, the key path with what was expected and found. Returns the line."""
    with pytest.raises(LevelError) as e:
        level.load(path, size)
    msg = str(e.value)
    assert len(msg.splitlines()) == 1, msg
    assert msg.startswith(str(path) + ":"), msg
    assert len(msg) - len(str(path)) <= MESSAGE_MAX, msg[:300]
    if key is not None:
        assert msg.startswith(f"{path}: {key}: "), msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


# ── the baseline: what the corpus corrupts is valid ──────────────────────────
@pytest.mark.parametrize("kind", g.kind_names())
def test_the_minimal_level_of_every_kind_loads(kind):
    level.load(write(g.minimal_level(kind)))


# ── wrong values at every key of every kind ──────────────────────────────────
KEY_CASES = [(kind, prefix, name, where) for kind, prefix, table, where in g.key_sites() for name in table.keys
             if not (where == ("layer", 0) and name == "kind")]


@pytest.mark.parametrize("kind,prefix,name,where", KEY_CASES,
                         ids=[f"{k}:{p + '.' if p else ''}{n}" for k, p, n, _ in KEY_CASES])
def test_every_bad_value_at_every_key_is_one_line(kind, prefix, name, where):
    table = dict((p, t) for k, p, t, _ in g.key_sites() if k == kind)[prefix]
    bad = g.bad_values(table.keys[name])
    assert len(bad) >= 5, "each key has a handful of wrong values"
    for _label, value in bad:
        doc = g.doc_for(kind, where)
        g.at(doc, where)[name] = value
        refused(write(doc), (1280, 720), f"{prefix}.{name}" if prefix else name, "expected", "found")


def test_the_corpus_is_large():
    files = sum(len(g.bad_values(t.keys[n])) for k, p, t, w in g.key_sites() for n in t.keys)
    assert files >= 200, files


@pytest.mark.parametrize("kind,prefix,arr", [(k, p, a) for k, p, t, w in g.key_sites() if len(w) == 2
                                             for a in t.arrays])
def test_bad_sub_table_arrays(kind, prefix, arr):
    sub, lo, hi, _ = g.layer_schema(kind).arrays[arr]
    cases = [(5, "expected an array of tables"), ("x", "expected an array of tables"),
             ([1, 2], "expected an array of tables"), ([[{}]], "expected an array of tables"),
             ([g.minimal(sub)] * (hi + 1), f"expected {lo}..{hi} entries, found {hi + 1}"),
             ([{**g.minimal(sub), "bogus_key": 1}], "unknown key")]
    if lo > 0:
        cases.append(([], f"expected {lo}..{hi} entries, found 0"))
        cases.append((None, f"missing; expected {lo}..{hi} [[layer.{arr}]] tables"))   # no [[layer.rope]] at all
    for value, words in cases:
        doc = g.minimal_level(kind)
        doc["layer"][0][arr] = value
        if value is None:
            del doc["layer"][0][arr]
        key = f"{prefix}.{arr}" + ("[0].bogus_key" if words == "unknown key" else "")
        refused(write(doc), (1280, 720), key, words)


# ── unknown keys, kinds and system names ─────────────────────────────────────
WEIRD_NAMES = ["gravty", "os.system", "__import__('os')", "../x", "/etc/passwd", "ropework.kinds.ropes:spawn",
               "subprocess:run", "builtins.eval", "__class__", "ropes; rm -rf /", "ROPES", "ropes ", "",
               "a\nb", "x" * 5000, "é", "\u2028", "${HOME}", "$(id)", "`id`", "file:///etc/passwd"]


@pytest.mark.parametrize("site", [s[1] or "<top>" for s in g.key_sites()])
def test_unknown_keys_everywhere(site):
    kind, prefix, _t, where = next(s for s in g.key_sites() if (s[1] or "<top>") == site)
    for name in WEIRD_NAMES:
        if not name:
            continue
        doc = g.doc_for(kind, where)
        g.at(doc, where)[name] = 1
        msg = refused(write(doc), (1280, 720), None, "unknown key")
        assert "\n" not in msg


@pytest.mark.parametrize("name", WEIRD_NAMES + ["rope", "cloths", "Dotgrid"])
def test_unknown_kinds_and_systems(name):
    refused(write({"layer": [{"kind": name}]}), (1280, 720), "layer[0].kind", "unknown entity kind")
    doc = g.minimal_level("ropes")
    doc["systems"] = [name]
    if not name or len(name) > 64:
        refused(write(doc), (1280, 720), "systems", "expected an array of at most")
    else:
        refused(write(doc), (1280, 720), "systems[0]", "unknown system")


STRUCTURE = [
    ({"title": "x"}, "layer", "expected at least one [[layer]]"),
    ({"layer": 3}, "layer", "expected an array of tables"),
    ({"layer": "ropes"}, "layer", "expected an array of tables"),
    ({"layer": [1, 2]}, "layer", "expected an array of tables"),
    ({"layer": []}, "layer", "expected at least one [[layer]]"),
    ({"layer": [g.minimal_layer("ropes")] * 33}, "layer", "expected 1..32 layers, found 33"),
    ({"layer": {"kind": "ropes"}}, "layer", "expected an array of tables"),
    ({"layer": [{}]}, "layer[0].kind", "missing; expected one of"),
    ({"layer": [{"kind": 5}]}, "layer[0].kind", "unknown entity kind 5"),
    ({"layer": [{"kind": ["ropes"]}]}, "layer[0].kind", "unknown entity kind ['ropes']"),
    ({"layer": [{"kind": {"name": "ropes"}}]}, "layer[0].kind", "unknown entity kind"),
    ({"layer": [{**g.minimal_layer("ropes"), "name": "a"}, {**g.minimal_layer("cloth"), "name": "a"}]},
     "layer[1].name", "expected a unique layer name, found 'a' twice"),
    ({"layer": [g.minimal_layer("ropes"), {**g.minimal_layer("cloth"), "name": "ropes"}]},
     "layer[1].name", "expected a unique layer name"),
    ({"systems": "relax", "layer": [g.minimal_layer("ropes")]}, "systems", "expected an array"),
]


@pytest.mark.parametrize("i", range(len(STRUCTURE)))
def test_bad_structure(i):
    doc, key, words = STRUCTURE[i]
    refused(write(doc), (1280, 720), key, words)


# ── TOML syntax, encodings, garbage, nesting, size ───────────────────────────
ROPE = '[[layer]]\nkind = "ropes"\n[[layer.rope]]\nanchor = 0.5\n'
SYNTAX = [
    '[[layer]\nkind = "ropes"\n', 'title = "unterminated\n' + ROPE, "title = 'x' 'y'\n" + ROPE,
    'title = "a"\ntitle = "b"\n' + ROPE, ROPE.replace('kind = "ropes"', 'kind = "ropes"\nkind = "ropes"'),
    "layer = 1\n" + ROPE, "= 1\n" + ROPE, "title = \n" + ROPE, 'title = "x"\n[layer\n', "x = [1, 2\n" + ROPE,
    "x = {a = 1\n" + ROPE, "x = 1979-13-45\n" + ROPE, "x = 0x\n" + ROPE, "x = 1__0\n" + ROPE, "x = .5\n" + ROPE,
    "x = +nan0\n" + ROPE, 'x = """\n' + ROPE, "x = '''abc\n" + ROPE, 'x = "\\q"\n' + ROPE, 'x = "\\uD800"\n' + ROPE,
    "[a]\n[a]\n" + ROPE, "x = 1 2\n" + ROPE, ROPE.replace('"ropes"', "ropes"), "x = tru\n" + ROPE,
    "\x00\n" + ROPE, 'title = "a\x01b"\n' + ROPE, 'title = "x"\r\n\r' + ROPE, "a.b = 1\na = 2\n" + ROPE,
    "x = {a = 1,\n b = 2}\n" + ROPE, "x = {a = 1,}\n" + ROPE, "x = [1,,2]\n" + ROPE, "[[layer.rope]]\nanchor=0\nlayer = 3\n",
    "[[layer]]\nkind = \"ropes\"\n[layer.rope]\nanchor = 0.5\n[[layer.rope]]\nanchor = 0.5\n",
    "x = 99999999999999999999999999999999999999 = 1\n" + ROPE, "\ufeff\ufeff" + ROPE, "[]\n" + ROPE, "[[]]\n" + ROPE,
]


@pytest.mark.parametrize("i", range(len(SYNTAX)))
def test_toml_syntax_errors(i):
    refused(write(SYNTAX[i]))


INVALID_UTF8 = [b"\xff", b"\xfe\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82", b"\x80",
                b"\xf4\x90\x80\x80", b"\xc3\x28", b"\xa0\xa1"]


@pytest.mark.parametrize("i", range(len(INVALID_UTF8)))
def test_invalid_utf8_anywhere(i):
    seq = INVALID_UTF8[i]
    for content in (seq + ROPE.encode(), b"# " + seq + b"\n" + ROPE.encode(), b'title = "' + seq + b'"\n' + ROPE.encode(),
                    ROPE.encode() + seq, b'"k' + seq + b'" = 1\n' + ROPE.encode()):
        refused(write(content), (1280, 720), None, "expected UTF-8")


@pytest.mark.parametrize("seed", range(12))
def test_binary_garbage(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200_000))
    data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
    refused(write(data))


@pytest.mark.parametrize("depth", [10, 100, 1000, 100_000])
def test_deep_nesting(depth):
    for open_, close in (("[", "]"), ("{a = ", "}")):
        text = ROPE.replace("anchor", f"points = {open_ * depth}1{close * depth}\nanchor")
        refused(write(text))
        text = f"x = {open_ * depth}1{close * depth}\n" + ROPE
        refused(write(text))


def test_huge_files():
    cap = level.MAX_FILE_BYTES
    refused(write("# " + "x" * cap + "\n" + ROPE), (1280, 720), None, f"at most {cap} bytes")
    refused(write(ROPE + "\n" * (cap + 1)), (1280, 720), None, f"at most {cap} bytes")
    # just under the cap, still bad: a long comment, a huge array, an enormous string, a huge key
    refused(write("#" + "x" * (cap - 200) + "\n" + ROPE.replace("0.5", "2.5")), (1280, 720),
            "layer[0].rope[0].anchor", "expected a number in 0..1")
    refused(write("junk = [" + "0," * ((cap - 200) // 2) + "]\n" + ROPE), (1280, 720), "junk", "unknown key")
    refused(write(f'description = "{"y" * (cap - 200)}"\n' + ROPE), (1280, 720), "description",
            "expected a string of at most 300 characters")
    refused(write(f'"{"k" * (cap - 200)}" = 1\n' + ROPE), (1280, 720), None, "unknown key")
    refused(write("[[layer]]\n" * 40), (1280, 720), "layer", "expected 1..32 layers")


def test_empty_and_not_a_file(tmp_path):
    for content in ("", "   \n\n", "# only a comment\n"):
        refused(write(content))
    refused(tmp_path, (1280, 720), None, "expected a level file")
    refused(tmp_path / "missing.toml", (1280, 720), None, "no such level file")
    refused(tmp_path / ("x" * 300 + ".toml"), (1280, 720), None, "expected a readable level file")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.toml")
        refused(tmp_path / "pipe.toml", (1280, 720), None, "expected a level file")
    refused(Path("/proc/self/pagemap"), (1280, 720), None, "at most")


# ── counts past the caps are refused before anything is allocated ───────────
CAPS = [  # (document, window size, key path, words)
    ({"layer": [{"kind": "dotgrid", "gap": 1.0}]}, (8192, 8192), "layer[0]", "points"),
    ({"layer": [{"kind": "cloth", "cols": 1000, "rows": 1000, "name": f"c{i}"} for i in range(3)]},
     (1280, 720), "layer[2]", "points"),
    ({"layer": [{"kind": "cloth", "cols": 1001, "rows": 2}]}, (1280, 720), "layer[0].cols", "expected an integer"),
    ({"layer": [{"kind": "tendrils", "ropes": 10_000, "points": 10_000}]}, (1280, 720), "layer[0]", "points"),
    ({"layer": [{"kind": "tendrils", "narrow_ropes": 10_000, "narrow_points": 10_000}]}, (400, 300),
     "layer[0]", "points"),
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.5, "points": 100_000}] * 21}]}, (1280, 720),
     "layer[0]", "points"),
    ({"layer": [{"kind": "ropes", "min_points": 100_000, "rope": [{"anchor": 0.5, "points": 2}] * 100}]},
     (1280, 720), "layer[0]", "points"),
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.5}] * 10_001}]}, (1280, 720), "layer[0].rope",
     "expected 1..10000 entries"),
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.0, "count": 50_000, "every": 1e-6, "points": 41}]}]},
     (1280, 720), "layer[0]", "points"),     # one table repeated past the cap: counted, never expanded
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.5, "count": 50_000, "points": 2}] * 10_000}]},
     (1280, 720), "layer[0]", "points"),
    ({"layer": [{"kind": "ropes", "min_points": 2, "rope": [{"anchor": 0.0, "count": 50_000, "every": 1e-6,
                                                            "points": 2}] * 20}]},
     (1280, 720), "layer[0]", "ropes counted in points' worth of memory"),   # 2,000,000 points, but a million ropes
    ({"layer": [{"kind": "ropes", "min_points": 2, "name": f"r{i}",
                 "rope": [{"anchor": 0.0, "count": 50_000, "every": 2e-5, "points": 2}]} for i in range(5)]},
     (1280, 720), "layer[4]", "points"),      # each 100,000 points and 40,000 weighed ropes
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.5, "count": 50_001}]}]}, (1280, 720),
     "layer[0].rope[0].count", "expected an integer in 1..50000"),
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.5}, {"anchor": 0.9, "count": 3, "every": 0.1}]}]},
     (1280, 720), "layer[0].rope[1].every", "expected the last of 3 anchors (anchor + (count - 1) · every) in 0..1, found 1.1"),
    ({"layer": [{"kind": "ropes", "rope": [{"anchor": 0.1, "count": 5, "every": -0.05}]}]},
     (1280, 720), "layer[0].rope[0].every", "found -0.1"),
    ({"layer": [{"kind": "dotgrid", "gap": 1.0, "name": f"d{i}"} for i in range(32)]}, (1280, 720),
     "layer[2]", "points"),
]


@pytest.mark.parametrize("i", range(len(CAPS)))
def test_counts_are_capped_before_allocation(i):
    doc, size, key, words = CAPS[i]
    path = write(doc)
    tracemalloc.start()
    try:
        refused(path, size, key, words)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < ALLOC_BUDGET, f"{peak / 2**20:.0f} MB allocated reading a refused level"


def test_every_kind_caps_its_points_at_load():
    """Each kind's declared point count for a huge but in-range configuration is refused at load.

    Every int key is set to its maximum: whatever the kind, that must exceed the scene cap
    or be small enough to allocate (bounded by the schema itself)."""
    for name in g.kind_names():
        k = kinds.KINDS[name]
        doc = g.minimal_level(name)
        layer_ = doc["layer"][0]
        for key_name, key in k.schema.keys.items():
            if key.type == "int":
                layer_[key_name] = int(key.hi)
        path = write(doc)
        tracemalloc.start()
        try:
            try:
                lv = level.load(path, (8192, 8192))
            except LevelError as e:
                assert len(str(e).splitlines()) == 1
                lv = None
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < ALLOC_BUDGET, (name, peak)
        if lv is not None:
            assert sum(kinds.KINDS[c["kind"]].points(c, 8192, 8192) for c in lv.layers) <= level.MAX_POINTS


def test_tendrils_cap_holds_for_every_width():
    refused(write({"layer": [{"kind": "tendrils", "ropes": 10_000, "points": 10_000}]}), (400, 300),
            "layer[0]", "points")


# ── file paths in levels stay inside the level's folder ──────────────────────
def path_keys() -> list[tuple[str, str]]:
    """(kind, key) for every key that names a file relative to the level."""
    return [(name, key) for name in g.kind_names() for key, k in kinds.KINDS[name].schema.keys.items()
            if "relative to the level" in k.doc or key.endswith(("image", "_path", "_file"))]


def tiny_png(path: Path, size=(4, 4)) -> Path:
    from PIL import Image
    Image.new("RGB", size, (200, 10, 10)).save(path)
    return path


def test_there_are_path_keys_to_check():
    assert ("lanyard", "card_image") in path_keys()


@pytest.mark.parametrize("kind,key", path_keys())
def test_file_paths_cannot_leave_the_level_folder(tmp_path, kind, key):
    folder = tmp_path / "levels"
    (folder / "art").mkdir(parents=True)
    outside = tiny_png(tmp_path / "outside.png")
    tiny_png(folder / "art" / "inside.png")
    (folder / "link.png").symlink_to(outside)
    (folder / "linkdir").symlink_to(tmp_path)
    (folder / "dir.png").mkdir()
    (folder / "text.png").write_text("not a png")
    (folder / "empty.png").write_bytes(b"")
    from PIL import Image
    Image.new("RGB", (4, 4)).save(folder / "photo.png", format="JPEG")
    tiny_png(folder / "wide.png", (5000, 2))
    escapes = [str(outside), "/etc/passwd", "../outside.png", "art/../../outside.png", "link.png",
               "linkdir/outside.png", "~/outside.png", "file:///etc/passwd", "dir.png", "text.png", "empty.png",
               "photo.png", "wide.png", "missing.png", "art", ".", "..", "/", "//etc/passwd",
               "art/inside.png/..", "\\..\\outside.png", str(tmp_path / "levels" / ".." / "outside.png")]
    for raw in escapes:
        doc = g.minimal_level(kind)
        doc["layer"][0][key] = raw
        refused(write(doc, folder=folder), (1280, 720), f"layer[0].{key}", "expected", "found")
    good = "art/inside.png"
    if key.endswith("_model"):                      # a model key takes a GLB, not a picture
        from ropework.systems.lanyard import gltf
        good = "art/inside.glb"
        gltf.write(folder / good, [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [0, 1, 2])
    doc = g.minimal_level(kind)
    doc["layer"][0][key] = good
    lv = level.load(write(doc, folder=folder))
    assert Path(lv.layers[0][key]).resolve() == (folder / good).resolve()


def test_a_too_long_image_name_is_one_line(tmp_path):
    doc = g.minimal_level("lanyard")
    doc["layer"][0]["card_image"] = "a" * 290 + ".png"
    refused(write(doc, folder=tmp_path), (1280, 720), "layer[0].card_image")


def test_a_decompression_bomb_image_is_one_line(tmp_path):
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    (tmp_path / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000,
                                        8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b""))
    doc = g.minimal_level("lanyard")
    doc["layer"][0]["card_image"] = "bomb.png"
    refused(write(doc, folder=tmp_path), (1280, 720), "layer[0].card_image")


# ── generated (hypothesis) ────────────────────────────────────────────────────
SITES = [(kind, prefix, table, where, name) for kind, prefix, table, where in g.key_sites() for name in table.keys
         if not (where == ("layer", 0) and name == "kind")]

scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.text(max_size=40), st.datetimes(min_value=g.WHEN.replace(year=1900)))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(min_size=1, max_size=8), inner,
                                                                       max_size=3)), max_leaves=8)
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@SETTINGS
@given(site=st.sampled_from(SITES), value=values)
def test_generated_bad_values(site, value):
    kind, prefix, table, where, name = site
    assume(not g.accepts(table.keys[name], value))
    doc = g.doc_for(kind, where)
    g.at(doc, where)[name] = value
    refused(write(doc), (1280, 720), f"{prefix}.{name}" if prefix else name, "expected", "found")


@SETTINGS
@given(data=st.binary(min_size=1, max_size=4096))
def test_generated_garbage(data):
    assume(b"layer" not in data)
    refused(write(data))


@SETTINGS
@given(level_path=st.sampled_from(level.shipped()), cuts=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 40),
                                                                             st.binary(max_size=12)), min_size=1,
                                                                   max_size=4))
def test_mutated_shipped_levels_load_or_refuse(level_path, cuts):
    """Cut and splice shipped levels at random: the result either loads or is refused with one line."""
    data = bytearray(level_path.read_bytes())
    for where, n, insert in cuts:
        i = int(where * len(data))
        data[i:i + n] = insert
    path = write(bytes(data), folder=TMP)
    try:
        lv = level.load(path, (640, 480))
    except LevelError as e:
        msg = str(e)
        assert len(msg.splitlines()) == 1 and msg.startswith(str(path))
        return
    assert lv.layers
    if sum(kinds.KINDS[c["kind"]].points(c, 640, 480) for c in lv.layers) <= BUILD_POINTS:
        from ropework.scene import Scene
        scene = Scene(lv, (640, 480))   # what loads must also build and step
        try:
            scene.step(2)
        finally:
            scene.close()


# ── through the real command line ────────────────────────────────────────────
def cli_sample() -> list[tuple[Path, str]]:
    """One file of each family, with a word its error line must hold."""
    doc = g.minimal_level("ropes")
    doc["layer"][0]["gravity"] = math.nan
    sample = [
        (write(doc), "layer[0].gravity: expected a number"),
        (write(SYNTAX[0]), "TOML syntax error"),
        (write(b"\xff\xfe" + ROPE.encode()), "expected UTF-8"),
        (write(np.random.default_rng(1).integers(0, 256, 5000, dtype=np.uint8).tobytes()), ""),
        (write("x = " + "[" * 100_000 + "]" * 100_000 + "\n" + ROPE), "nested too deeply"),
        (write("# " + "x" * level.MAX_FILE_BYTES), "bytes"),
        (write({"layer": [{"kind": "os.system"}]}), "unknown entity kind 'os.system'"),
        (write({"systems": ["__import__('os')"], "layer": [g.minimal_layer("ropes")]}), "unknown system"),
        (write({"layer": [{"kind": "cloth", "cols": 1000, "rows": 1000, "name": f"c{i}"} for i in range(3)]}),
         "points"),
        (write({"layer": [{"kind": "lanyard", "card_image": "../../../../etc/passwd"}]}), "leads outside"),
    ]
    return sample


def test_the_command_line_exits_2_with_one_line(tmp_path):
    env = {**os.environ, "ARCADE_HEADLESS": "1"}
    runs = []
    for path, words in cli_sample():
        out = tmp_path / f"{path.stem}.png"
        runs.append((path, words, out, subprocess.Popen(
            [sys.executable, "-m", "ropework", str(path), "--record", str(out), "--frames", "1"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    for path, words, out, proc in runs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 2, (path, stderr)
        lines = stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"ropework: {path}:"), stderr[:500]
        assert words in lines[0] and "Traceback" not in stderr and not stdout
        assert not out.exists()


# ── in range but extreme: loads, builds and steps without a non-finite value ─
CROSS_KEY = ("points", "steps in at most", "starts with at most",   # the caps (points, work)
             "expected far > near",                 # the lanyard's far plane past its near one
             "more than twice `point_radius`", "one spoke a rim point",   # a composite's size against its
             "inside the", "a hub at least",        # points', and against where it is in the default scene
             "balls that overlap at rest")


def extreme_doc(kind: str, picks: list[int]) -> dict:
    """The kind's minimal level with each numeric key at its default, its low or its high end."""
    doc = g.minimal_level(kind)
    layer_ = doc["layer"][0]
    for (name, key), pick in zip(sorted(kinds.KINDS[kind].schema.keys.items()), picks):
        if key.type in ("int", "float") and pick:
            layer_[name] = key.lo if pick == 1 else key.hi
    return doc


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(g.kind_names()), picks=st.lists(st.sampled_from([0, 0, 1, 2]), min_size=80, max_size=80),
       size=st.sampled_from([(1, 1), (640, 480), (3, 2000)]))
def test_extreme_valid_levels_build_and_step(kind, picks, size):
    from ropework.scene import Scene
    path = write(extreme_doc(kind, picks))
    try:
        lv = level.load(path, size)
    except LevelError as e:
        assert any(m in str(e) for m in CROSS_KEY), e   # only the caps (points, work) and cross-key checks refuse
        return
    assume(sum(kinds.KINDS[c["kind"]].points(c, *size) for c in lv.layers) <= BUILD_POINTS)
    scene = Scene(lv, size)
    try:
        scene.pointer_move(size[0] / 2, size[1] / 2)
        scene.pointer_down(size[0] / 2, size[1] / 2)
        scene.step(3)
        scene.pointer_up(0, 0)
        scene.step(2)
        for _ent, comps in scene.arrays().items():
            for cname, arrs in comps.items():
                for fname, a in arrs.items():
                    if a.dtype.kind == "f":
                        assert np.isfinite(a).all(), (kind, cname, fname)
    finally:
        scene.close()
