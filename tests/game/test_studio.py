"""The studio's model, headless: every key type edits, validates, undoes and saves;
a save is a round trip; live keys reach the running body in place, the rest rebuild one layer."""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import io
import os

import esper
import numpy as np
import pytest
import tomlkit

from ropework import cli, kinds, level, plugins
from ropework.components import Constraints, Layer, Pins, Points, Ropes
from ropework.components.collider import Colliders
from ropework.controller import Controller
from ropework.scene import Scene
from ropework.schema import LevelError
from ropework.studio import Studio, atomic_write, layer_schema
from tests.conftest import LEVELS

SIZE = (800, 600)

HEADER = """# python -m ropework levels/NAME.toml      (a header a person wrote, kept byte for byte)
#
#   - comments with odd    spacing, tabs\tand trailing blanks   
#   - an   "inline string"   and = signs = everywhere
## another style of comment

"""  # noqa: W291  (the trailing blanks are part of the header under test)


def copy_level(tmp_path, name: str, header: str = "") -> os.PathLike:
    """The shipped level ``name`` (with ``header`` before it) in ``tmp_path``, beside copies of the
    pictures and models the shipped levels name from their folder."""
    text = (LEVELS / name).read_text("utf-8")
    for asset in LEVELS.iterdir():
        if asset.suffix in (".png", ".glb") and f'"{asset.name}"' in text:
            (tmp_path / asset.name).write_bytes(asset.read_bytes())
    path = tmp_path / name
    path.write_text(header + text, "utf-8")
    return path


def studio_on(path, size=SIZE, seed=1) -> Studio:
    return Studio(Scene.load(path, size=size, seed=seed))


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """(old line, new line) pairs of a diff in which lines were only replaced, one for one."""
    sm = difflib.SequenceMatcher(a=before.splitlines(True), b=after.splitlines(True), autojunk=False)
    out = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        assert tag == "replace" and i2 - i1 == j2 - j1, (tag, before[i1:i2], after[j1:j2])
        out += list(zip(sm.a[i1:i2], sm.b[j1:j2]))
    return out


def validate_says(path, text: str) -> str:
    """What `ropework validate PATH` prints for a file holding ``text`` (the file is restored after)."""
    keep = path.read_bytes()
    path.write_text(text, "utf-8")
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            assert cli.validate([str(path)]) == cli.EXIT_BAD_INPUT
    finally:
        path.write_bytes(keep)
    return out.getvalue().strip()


# ── every key type: edit, refuse, undo, save ─────────────────────────────────
# (level, where, key, good value, bad value, the text the bad value has in a file)
TYPES = [
    ("rope.toml", (0,), "passes", 2, 0, "0"),                             # int
    ("rope.toml", (0,), "gravity", 450.5, 1e9, "1e9"),                    # float
    ("rope.toml", (0,), "rail", False, 1, "1"),                           # bool, spelled out anew
    ("rope.toml", (0,), "grab_pins", True, "yes", '"yes"'),               # bool
    ("rope.toml", (0, "rope", 1), "colour", "#123456", "blue", '"blue"'),  # colour
    ("cloth.toml", (0,), "pin", "corners", "sides", '"sides"'),           # choice
    ("lanyard.toml", (0,), "card_title", "studio", "x" * 61, '"' + "x" * 61 + '"'),  # str
    ("rope.toml", (), "theme", "dark", "grey", '"grey"'),                 # top-level choice
    ("rope.toml", (), "systems", ["orbit"], ["nope"], '["nope"]'),        # names
]


@pytest.mark.parametrize("name, where, key, good, bad, bad_text", TYPES, ids=[f"{t[2]}" for t in TYPES])
def test_every_key_type_edits_validates_undoes_and_saves(tmp_path, name, where, key, good, bad, bad_text):
    path = copy_level(tmp_path, name)
    original = path.read_text("utf-8")
    st = studio_on(path)
    before = st.value(where, key)
    assert st.set(where, key, good), st.error
    assert st.value(where, key) == good and st.dirty

    # refused: the scene, the document and the history stay; the message is validate's
    text, history, scene_level = st.text, len(st.history), st.scene.level
    assert not st.set(where, key, bad)
    assert st.text == text and len(st.history) == history and st.scene.level is scene_level
    assert st.error and "\n" not in st.error
    typed = tomlkit.parse(st.text)                    # the same value typed into the file:
    Studio._table(typed, where)[key] = bad             # validate prints the same line
    assert st.error == validate_says(path, typed.as_string())

    # undo and redo are exact
    assert st.undo() and st.value(where, key) == before and st.text == original
    assert st.redo() and st.value(where, key) == good

    # saved: only the edited key's line changed (or one line added), and the file loads
    st.save()
    saved = path.read_text("utf-8")
    assert saved == st.text and not st.dirty
    lv = level.load(path, SIZE)
    cfg = lv.layers[where[0]] if where else {"theme": lv.theme, "systems": lv.systems}
    if len(where) == 3:
        cfg = cfg[where[1]][where[2]]
    assert cfg[key] == good
    diff = [d for d in difflib.ndiff(original.splitlines(), saved.splitlines()) if d[:1] in "+-"]
    assert 1 <= len(diff) <= 2 and all(key in d for d in diff), diff


def test_a_refused_number_in_a_rope_entry_names_its_path(tmp_path):
    st = studio_on(copy_level(tmp_path, "rope.toml"))
    assert not st.set((0, "rope", 2), "anchor", 1.5)
    assert st.error == f"{st.path}: layer[0].rope[2].anchor: expected a number in 0..1, found float 1.5"


# ── round trips ──────────────────────────────────────────────────────────────
@pytest.mark.parametrize("name", [p.name for p in level.shipped()])
def test_every_shipped_level_round_trips(tmp_path, name):
    path = copy_level(tmp_path, name, HEADER)
    original = path.read_bytes()
    st = studio_on(path)
    st.save()
    assert path.read_bytes() == original, "an unchanged document must save byte for byte"

    # one edit: a live key of the first layer that the file spells out, else any live key
    cfg = st.layers()[0]
    schema = layer_schema(cfg["kind"])
    written = [n for n, k in schema.keys.items() if k.live is not None and st.written((0,), n)
               and k.type in ("int", "float")]
    key = written[0] if written else next(n for n, k in schema.keys.items() if k.type == "float" and k.live)
    k = schema.keys[key]
    new = k.lo + (k.hi - k.lo) * 0.25 if k.type == "float" else min(k.hi, cfg[key] + 1)
    new = round(new, 3) if k.type == "float" else new
    assert st.set((0,), key, new), st.error
    st.save()
    after = path.read_text("utf-8")
    text = original.decode("utf-8")
    assert after.startswith(HEADER), "the header's comments are kept"
    if written:
        pairs = changed_lines(text, after)
        assert len(pairs) == 1, pairs
        old_line, new_line = pairs[0]
        assert old_line.startswith(f"{key} = ") and new_line.startswith(f"{key} = ")
        if "#" in old_line:   # its comment stays, at the same column
            assert new_line[new_line.index("#"):] == old_line[old_line.index("#"):]
            assert new_line.index("#") == old_line.index("#") or len(new_line.split("#")[0].rstrip()) + 1 >= old_line.index("#")
    else:   # the key was not in the file: exactly one line is added
        added = [d for d in difflib.ndiff(text.splitlines(), after.splitlines()) if d[:1] in "+-"]
        assert added == [f"+ {key} = {new!r}"]
    assert level.load(path, SIZE).layers[0][key] == new


def test_a_key_set_back_to_its_default_is_not_spelled_out(tmp_path):
    path = copy_level(tmp_path, "rope.toml")
    st = studio_on(path)
    original = st.text
    assert not st.written((0,), "tip_radius")
    st.set((0,), "tip_radius", 3.0)
    assert st.written((0,), "tip_radius") and st.changed((0,), "tip_radius")
    st.set((0,), "tip_radius", 4.5)                    # the default again
    assert st.text == original and not st.changed((0,), "tip_radius")
    st.set((0,), "passes", 14)                          # the file writes its default: it stays written
    assert st.text == original and st.written((0,), "passes")


def test_save_then_load_gives_the_scene_on_screen_after_a_reset(tmp_path):
    path = copy_level(tmp_path, "moeru.toml")
    st = studio_on(path, seed=5)
    scene = st.scene
    scene.pointer_down(400, 300)
    scene.step(20)
    assert st.set((0,), "gap", 40.0)                    # rebuild
    assert st.set((1,), "passes", 3)                    # live
    assert st.set((1,), "card_title", "studio")         # rebuild
    assert st.set((), "theme", "light")                 # live
    assert st.add_layer("ropes")
    assert st.set((2, "rope", 0), "colour", "#abcdef")
    scene.step(30)
    st.save()
    scene.reset()
    loaded = Scene.load(path, size=SIZE, seed=5)
    try:
        assert loaded.state_hash() == scene.state_hash()
        loaded.step(40)
        scene.step(40)
        assert loaded.state_hash() == scene.state_hash()
    finally:
        loaded.close()
        scene.close()


# ── apply rules: live in place, else rebuild only that layer ─────────────────
def _other(k, current):
    if k.type == "bool":
        return not current
    if k.type == "colour":
        return "#123456" if current != "#123456" else "#654321"
    if k.type == "choice":
        return next(c for c in k.choices if c != current)
    if k.type == "str":
        return "x" if current != "x" else "y"
    if k.type == "int":
        return current + 1 if current + 1 <= k.hi else current - 1
    if k.name == "near":                 # the camera checks far > near: a nearer clip, not 37 % of the range
        return current / 2
    if k.type == "pair":
        v = round(k.lo + (k.hi - k.lo) * 0.37, 4)
        return [v, v] if [v, v] != current else [v / 2, v]
    if k.type == "pairs":                # a triangle
        return [[0.0, -10.0], [10.0, 10.0], [-10.0, 10.0]]
    v = round(k.lo + (k.hi - k.lo) * 0.37, 4)
    return v if v != current else round(k.lo + (k.hi - k.lo) * 0.61, 4)


def _live_keys():
    kinds.load_builtin()
    plugins.autoload()
    out = []
    for kname in sorted(kinds.KINDS):
        sch = kinds.KINDS[kname].schema
        out += [(kname, (), n) for n, k in sch.keys.items() if k.live is not None]
        for arr, (sub, *_rest) in sch.arrays.items():
            out += [(kname, (arr, 0), n) for n, k in sub.keys.items() if k.live is not None]
    return out


def _base_text(kind_name: str) -> str:
    if kind_name == "ropes":
        return ('[[layer]]\nkind = "ropes"\n\n[[layer.rope]]\nanchor = 0.4\n\n[[layer.rope]]\nanchor = 0.7\n'
                '\n[[layer.collider]]\nshape = "circle"\nat = [0.3, 0.6]\n')
    if "collider" in kinds.KINDS[kind_name].schema.arrays:     # cloth and the composites: one collider to edit
        return f'[[layer]]\nkind = "{kind_name}"\n\n[[layer.collider]]\nshape = "circle"\nat = [0.3, 0.6]\n'
    if kind_name == "lanyard":
        return '[[layer]]\nkind = "lanyard"\n\n[[layer.light]]\nx = 1\n'
    if kind_name == "tendrils":
        return '[[layer]]\nkind = "tendrils"\n\n[[layer.palette]]\ncolour = "#ff0000"\n'
    return f'[[layer]]\nkind = "{kind_name}"\n'


def _fields(comp):
    for f in dataclasses.fields(comp):
        if f.compare:
            yield f.name, getattr(comp, f.name)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a, float), np.asarray(b, float)
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6 * max(1.0, float(np.abs(b).max(initial=0))))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


STATE = {("DotGrid", "colour")}   # chases its target colour each step: the new base is reached by easing


@pytest.mark.parametrize("kind_name, where, key", _live_keys(), ids=lambda v: str(v))
def test_a_live_key_changes_the_running_body_exactly_as_a_fresh_spawn_would(tmp_path, kind_name, where, key):
    """Applied in place, every component parameter equals a scene spawned afresh with the new
    value, and nothing was rebuilt: same entity, same points."""
    path = tmp_path / "lv.toml"
    path.write_text(_base_text(kind_name), "utf-8")
    st = studio_on(path)
    at = (0, *where)
    k = st.key(at, key)
    new = _other(k, st.value(at, key))
    with st.scene.active():
        before = sorted(esper.get_entities())
    own = where[:1] == ("collider",) and [len(c.shape) for _, c in st.scene.find(Colliders)] != \
        [len(st.layers()[0]["collider"])]          # the kind adds shapes of its own (a cradle's balls)
    assert st.set(at, key, new), st.error
    if own:                                        # a collider key of such a kind rebuilds the layer
        assert st.last_applied == [f"rebuilt {st.layers()[0]['name']}"], st.last_applied
    else:
        assert st.last_applied == [f"live {st.layers()[0]['name']}.{key}"], st.last_applied
        assert st.scene.entities() == before, "a live key must not rebuild"
    st.save()
    fresh = Scene.load(path, size=SIZE, seed=1)
    try:
        def comps(scene):
            out = {}
            with scene.active():
                for ent in sorted(esper.get_entities()):
                    if esper.has_component(ent, Layer):
                        for c in esper.components_for_entity(ent):
                            out[type(c).__name__] = c
            return out
        got, want = comps(st.scene), comps(fresh)
        assert got.keys() == want.keys()
        for cname, comp in want.items():
            if cname == "Points":        # state; only the pinned points are laid out by keys
                pin = comp.inv_mass == 0
                assert np.allclose(got[cname].pos[pin], comp.pos[pin]), cname
                continue
            for fname, value in _fields(comp):
                if (cname, fname) not in STATE:
                    assert _same(getattr(got[cname], fname), value), f"{cname}.{fname}"
    finally:
        fresh.close()


def test_passes_apply_while_a_rope_is_held_and_it_stretches(tmp_path):
    """The seed's lesson by hand: 14 passes read as rope, 2 as elastic — changed mid-drag, no reset."""
    st = studio_on(copy_level(tmp_path, "rope.toml"))
    scene = st.scene
    (ent, pts), = scene.find(Points)
    con, ropes = scene.component(ent, Constraints), scene.component(ent, Ropes)
    scene.pointer_down(400, 290)                 # the middle rope's tip, pulled 160 px down
    for y in range(290, 450, 10):
        scene.pointer_move(400, y)
        scene.step()
    scene.step(60)
    middle = slice(int(ropes.start[1]), int(ropes.start[1] + ropes.count[1] - 1))

    def stretch():
        """The held rope's mean segment length over its rest length."""
        d = np.linalg.norm(pts.pos[con.b[middle]] - pts.pos[con.a[middle]], axis=1)
        return float(d.mean() / con.rest[0])
    stiff, steps = stretch(), scene.frame.steps
    assert st.set((0,), "passes", 2)
    assert st.last_applied == ["live ropes.passes"]
    scene.step(60)
    assert scene.frame.steps == steps + 60 and scene.find(Points)[0][0] == ent, "no reset, no rebuild"
    assert scene.component(ent, Constraints).passes == 2
    assert stretch() > stiff + 0.05, (stiff, stretch())      # measured: 1.38 → 1.49


def test_a_rebuild_touches_only_its_layer(tmp_path):
    st = studio_on(copy_level(tmp_path, "moeru.toml"))
    scene = st.scene
    scene.step(30)
    badge = next(e for e, lay in scene.find(Layer) if lay.name == "badge")
    strap = scene.component(badge, Points).pos.copy()
    dots = next(e for e, lay in scene.find(Layer) if lay.name == "dots")
    assert st.set((0,), "gap", 30.0)
    assert st.last_applied == ["rebuilt dots"]
    assert esper_exists(scene, badge) and not esper_exists(scene, dots)
    assert np.array_equal(scene.component(badge, Points).pos, strap), "the badge runs on untouched"
    assert [lay.name for lay in scene.layers] == ["dots", "badge"]


def esper_exists(scene, ent) -> bool:
    with scene.active():
        return esper.entity_exists(ent)


def test_z_reorders_the_layers_live(tmp_path):
    st = studio_on(copy_level(tmp_path, "moeru.toml"))
    assert st.move_layer(0, 5) and st.last_applied == ["live dots.z"]
    assert [lay.name for lay in st.scene.layers] == ["badge", "dots"]
    assert st.text.count("z = 5 ") == 1
    st.undo()
    assert [lay.name for lay in st.scene.layers] == ["dots", "badge"]


def test_a_layer_of_every_registered_kind_can_be_added_and_removed(tmp_path):
    path = copy_level(tmp_path, "rope.toml")
    st = studio_on(path)
    original = st.text
    kinds.load_builtin()
    plugins.autoload()
    for i, name in enumerate(sorted(kinds.KINDS), 1):
        assert st.add_layer(name), st.error
        assert st.layers()[i]["kind"] == name and st.last_applied == [f"added {name}-{i}"]
        assert {s.name for s in st.scene.systems()} >= set(kinds.KINDS[name].systems)
    st.scene.step(3)
    st.save()
    assert len(level.load(path, SIZE).layers) == len(kinds.KINDS) + 1
    while len(st.layers()) > 1:
        assert st.remove_layer(1)
    assert st.text == original
    assert not st.remove_layer(0), "a level keeps at least one layer"
    assert st.error.endswith("layer: expected 1..32 layers, found 0")


def test_a_click_on_the_rail_hangs_a_rope_and_an_anchor_drags(tmp_path):
    st = studio_on(copy_level(tmp_path, "rope.toml"))
    scene = st.scene
    rail = 6.5                                   # anchor_y + 0.5
    assert not st.press(300, 200), "off the rail the press is the scene's"
    assert st.press(240, rail + 3)               # 0.3 of 800 px
    assert st.last_applied == ["rebuilt ropes"] and len(st.layers()[0]["rope"]) == 4
    assert st.layers()[0]["rope"][3]["anchor"] == 0.3
    (ent, pins), = scene.find(Pins)
    assert 240.0 in scene.component(ent, Points).pos[pins.index, 0]
    st.release()

    assert st.press(400 + 5, rail)               # on the middle anchor: drag it
    for x in range(405, 520, 15):
        assert st.drag(x, rail + 40)              # follows x only
    assert st.release()
    assert st.layers()[0]["rope"][1]["anchor"] == round(510 / 800, 4)
    assert st.last_applied == ["live ropes.anchor"]
    (ent, pins), = scene.find(Pins)
    assert scene.component(ent, Points).pos[pins.index[1]].tolist() == [510.0, 6.0]
    st.undo()                                    # the whole drag is one step
    assert st.layers()[0]["rope"][1]["anchor"] == 0.5
    st.undo()
    assert len(st.layers()[0]["rope"]) == 3 and st.text == (LEVELS / "rope.toml").read_text("utf-8")
    assert st.remove_rope(0, 0) and len(st.layers()[0]["rope"]) == 2


def test_a_slider_drag_is_one_undo_step(tmp_path):
    st = studio_on(copy_level(tmp_path, "rope.toml"))
    for v in range(13, 1, -1):
        st.set((0,), "passes", v)
    st.end_gesture()
    st.set((0,), "passes", 5)
    assert len(st.history) == 2
    st.undo()
    assert st.value((0,), "passes") == 2
    st.undo()
    assert st.value((0,), "passes") == 14 and not st.dirty


# ── saving ───────────────────────────────────────────────────────────────────
def test_a_shipped_level_is_saved_as_a_copy_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = level.LEVELS_DIR / "rope.toml"
    original = shipped.read_bytes()
    (tmp_path / "rope.toml").write_text("# someone's own file\n", "utf-8")
    st = Studio(Scene.load("rope", size=SIZE))
    assert st.shipped()
    st.set((0,), "passes", 6)
    saved = st.save()
    assert saved == tmp_path / "rope-2.toml" and shipped.read_bytes() == original
    assert (tmp_path / "rope.toml").read_text("utf-8") == "# someone's own file\n"
    assert level.load(saved).layers[0]["passes"] == 6
    st.set((0,), "passes", 7)
    assert st.save() == saved, "after the copy, Ctrl+S writes the copy"


def test_save_as_refuses_bad_paths_with_one_line(tmp_path):
    st = studio_on(copy_level(tmp_path, "rope.toml"))
    for bad, says in [(tmp_path / "x.txt", "expected a path ending in .toml"),
                      (tmp_path / "no" / "x.toml", "expected an existing folder"),
                      (level.LEVELS_DIR / "mine.toml", "outside the package's shipped levels")]:
        with pytest.raises(LevelError) as e:
            st.save(bad)
        assert says in str(e.value) and "\n" not in str(e.value)
    target = st.save(tmp_path / "new.toml")
    assert target == tmp_path / "new.toml" and st.path == target and level.load(target)


def test_writing_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "lv.toml"
    path.write_text("old\n", "utf-8")

    def crash(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        atomic_write(path, "new\n")
    assert path.read_text("utf-8") == "old\n" and [p.name for p in tmp_path.iterdir()] == ["lv.toml"]
    monkeypatch.undo()
    atomic_write(path, "new\n")
    assert path.read_text("utf-8") == "new\n" and [p.name for p in tmp_path.iterdir()] == ["lv.toml"]


# ── the controller: keys, hot reload ─────────────────────────────────────────
def test_keys_open_the_studio_undo_and_save(tmp_path):
    import arcade
    k = arcade.key
    path = copy_level(tmp_path, "rope.toml")
    ctl = Controller(Scene.load(path, size=SIZE), out_dir=tmp_path)
    try:
        ctl.press(k.E)
        assert ctl.show_studio and ctl.studio.path == path
        ctl.studio.set((0,), "passes", 3)
        ctl.press(k.S, k.MOD_ACCEL)
        assert "passes = 3 " in path.read_text("utf-8") and not list(tmp_path.glob("*.png"))
        ctl.studio.set((0,), "damping", 0.9)
        ctl.press(k.Z, k.MOD_ACCEL)
        assert ctl.studio.value((0,), "damping") == 0.995
        ctl.press(k.Y, k.MOD_ACCEL)
        assert ctl.studio.value((0,), "damping") == 0.9
        for _ in range(10):                      # our own save is not reloaded as an outside edit
            ctl.update(0.3)
        assert ctl.studio.value((0,), "damping") == 0.9 and ctl.studio.history
        ctl.press(k.S, k.MOD_ACCEL | k.MOD_SHIFT)
        assert ctl.save_prompt
        assert ctl.save_level(tmp_path / "other.toml") and not ctl.save_prompt
        assert ctl.watcher.path == tmp_path / "other.toml"
        ctl.press(k.E)
        assert not ctl.show_studio
    finally:
        ctl.close()


def test_hot_reload_and_the_studio_agree(tmp_path):
    path = copy_level(tmp_path, "rope.toml")
    ctl = Controller(Scene.load(path, size=SIZE), out_dir=tmp_path)
    try:
        ctl.toggle_studio()
        st = ctl.studio
        text = path.read_text("utf-8")
        path.write_text(text.replace("passes = 14", "passes = 9"), "utf-8")
        os.utime(path, ns=(1, 1))
        ctl.update(0.3)
        assert ctl.studio is st and st.scene is ctl.scene and st.value((0,), "passes") == 9
        scene = ctl.scene
        path.write_text(text.replace("passes = 14", "passes = 0"), "utf-8")     # a bad outside edit
        os.utime(path, ns=(2, 2))
        ctl.update(0.3)
        assert ctl.scene is scene and st.value((0,), "passes") == 9 and "layer[0].passes" in ctl.error
        assert st.set((0,), "passes", 4) and ctl.scene.component(ctl.scene.find(Constraints)[0][0], Constraints).passes == 4
    finally:
        ctl.close()


def test_nothing_is_saved_over_a_directory_or_lost_on_a_failed_write(tmp_path):
    path = copy_level(tmp_path, "rope.toml")
    st = studio_on(path)
    st.set((0,), "passes", 3)
    (tmp_path / "d.toml").mkdir()
    with pytest.raises(LevelError):
        st.save(tmp_path / "d.toml")
    assert st.dirty and st.value((0,), "passes") == 3


def _digest(scene) -> str:
    from ropework import snapshot
    return snapshot.combined(snapshot.digests(scene))


def test_undoing_a_structural_edit_brings_the_bodies_back_as_they_were(tmp_path):
    path = copy_level(tmp_path, "rope.toml")
    st, straight = studio_on(path), Scene.load(path, size=SIZE, seed=1)
    for sc in (st.scene, straight):              # a rope swung by hand, still moving when the edit comes
        sc.pointer_down(400, 200)
        sc.step(5)
        sc.pointer_move(560, 320)
        sc.step(20)
        sc.pointer_up(560, 320)
        sc.step(3)
    moving = _digest(st.scene)
    assert st.remove_rope(0, 1) and st.last_applied == ["rebuilt ropes"]
    st.scene.step(40)
    after = _digest(st.scene)
    assert st.undo() and _digest(st.scene) == moving   # the ropes where they were, swinging, not hung afresh
    st.scene.step(17)
    straight.step(17)
    assert _digest(st.scene) == _digest(straight)      # and they swing on as if never edited
    assert st.redo() and _digest(st.scene) == after    # redo: the state the undo left
    assert st.set((0,), "passes", 3) and st.last_applied == ["live ropes.passes"]
    st.scene.step(4)
    running = st.scene.frame.steps
    assert st.undo() and st.scene.frame.steps == running   # a live key's undo is the key alone
    straight.close()
