"""The studio's model: the open level as a document, its edits, undo and redo, saving,
and how each edit reaches the running scene — all headless; the panel (E) is
ropework/studio_view.py, a thin view over this.

    studio = Studio(scene)                      # the scene's level file, as a document
    studio.set((0,), "passes", 2)               # layer 0's passes: live, on the next step
    studio.add_rope(0, 0.3)                     # a rope hung at 30 % of the width: rebuilds layer 0
    studio.undo(); studio.redo()
    studio.save()                               # the same file, or a copy for a shipped level

The document is tomlkit's, so a save is a round trip: the file's comments, key
order and formatting stay, only edited values are rewritten, and a key the file
did not spell out is written only when it differs from its default. Every edit
is validated by `level.build` — the path `ropework validate` takes — before it
is kept; a refused edit leaves the document, the scene and the history as they
were and sets ``error`` to the one line `validate` would print.

Applying (`apply`): keys declared ``live=`` in their kind's schema (ropework.live)
are written into the running components, so the next step uses them with
nothing reset; any other change rebuilds only the layers it touches (their
entities spawn again; the rest run on); a new seed or system list rebuilds the
scene. Undo and redo restore whole document texts, so they are exact.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import esper
import numpy as np
import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError

from ropework import kinds, level, snapshot
from ropework.components import Layer
from ropework.components.body import Pins, Points
from ropework.components.collider import PLANE, Colliders
from ropework.components.render import Rail
from ropework.live import Rebuild
from ropework.schema import TEMP_NAME_CHARS, Key, LevelError, Table, key_name, printable
from ropework.systems import pipeline
from ropework.systems.services.contact import outline
from ropework.systems.services.hitquery import shape_at

RAIL_REACH = 8.0     # px above or below a rail (or a plane's surface) that a studio click counts as on it
TURN = 5.0           # degrees a collider turns per notch of the mouse wheel
ANCHOR_REACH = 12.0  # px from an anchor that a press on the rail takes the anchor instead of hanging a rope
ANCHOR_DIGITS = 4    # decimals of a dragged or clicked anchor fraction: 0.1 px on a 1280 px window


# ── applying a level to a running scene ─────────────────────────────────────
class Body:
    """What a `Key.live` applier sees: one layer's components (``get``) and the scene's frame."""

    def __init__(self, scene, name: str | None, before: dict | None = None):
        self.scene, self.frame, self.name = scene, scene.frame, name
        self.before = before     # the layer's keys before this change (an applier may compare)

    def get(self, cls):
        """The layer's ``cls`` component (the first entity of the layer that has one), or None."""
        for ent, comp in esper.get_component(cls):
            lay = esper.try_component(ent, Layer)
            if lay is not None and lay.name == self.name:
                return comp
        return None

    def _body(self) -> int | None:
        for ent, lay in esper.get_component(Layer):
            if lay.name == self.name and esper.has_component(ent, Points):
                return ent
        return None

    def put(self, comp) -> None:
        """Give the layer's body (its entity with `Points`) a component it had not."""
        esper.add_component(self._body(), comp)

    def drop(self, cls) -> None:
        """Take a component off the layer's body."""
        esper.remove_component(self._body(), cls)


def layer_schema(kind_name: str) -> Table:
    k = kinds.KINDS[kind_name]
    return Table({**{c.name: c for c in level.LAYER_COMMON}, **k.schema.keys}, k.schema.arrays)


def _appliers(schema: Table, old: dict, new: dict, skip=()) -> list[tuple[Key, str]] | None:
    """The live appliers that take ``old`` to ``new``; None when a change needs a rebuild."""
    out: list[tuple[Key, str]] = []
    seen = set()

    def take(key: Key, name: str) -> bool:
        if key.live is None:
            return False
        if (id(key.live), name) not in seen:
            seen.add((id(key.live), name))
            out.append((key, name))
        return True

    for name, key in schema.keys.items():
        if name not in skip and old.get(name) != new.get(name) and not take(key, name):
            return None
    for name, (sub, _, _, _) in schema.arrays.items():
        a, b = old.get(name) or [], new.get(name) or []
        if len(a) != len(b) or (name in old) != (name in new):
            return None
        for ea, eb in zip(a, b):
            for sname, key in sub.keys.items():
                if ea.get(sname) != eb.get(sname) and not take(key, sname):
                    return None
    return out


def _remove_layer(scene, name: str) -> None:
    for ent, lay in list(esper.get_component(Layer)):
        if lay.name == name:
            esper.delete_entity(ent, immediate=True)
    scene.layers = [lay for lay in scene.layers if lay.name != name]


def _spawn_layer(scene, cfg: dict) -> None:
    lay = Layer(cfg["name"], cfg["kind"], cfg["z"])
    scene.layers.append(lay)
    kinds.KINDS[cfg["kind"]].spawn(cfg, lay, scene.frame)


CARRIED = ("rope", "attach", "draw", "collider", "bend")   # a ropes layer's keys whose change keeps its ropes in motion
RESHAPED = ("pin", "path", "colour", "width", "bend")      # a rope's keys whose change keeps it in motion


def _state(scene, name: str):
    """(pos, prev) copies of a layer's points before it is rebuilt, or None."""
    pts = Body(scene, name).get(Points)
    return None if pts is None else (pts.pos.copy(), pts.prev.copy())


def _carry(scene, old: dict, new: dict, state) -> None:
    """A ropes layer rebuilt for a rope drawn, removed or pinned: its ropes that are still there
    (the leading ropes of the same length and keys) go on from where they were, not from where
    they were laid; their pins hold them as the new level says."""
    if state is None or new["kind"] != "ropes" or \
            any(old.get(k) != new.get(k) for k in set(old) | set(new) if k not in CARRIED):
        return
    from ropework.kinds.ropes import fitted_counts
    h = scene.frame.height
    a = [t for t in old["rope"] for _ in range(t["count"])]
    b = [t for t in new["rope"] for _ in range(t["count"])]
    ca, cb = fitted_counts(old, h), fitted_counts(new, h)
    same = 0
    for ta, tb, na, nb in zip(a, b, ca, cb):
        if na != nb or any(ta[k] != tb[k] for k in ta if k not in RESHAPED):
            break
        same += 1
    m = int(cb[:same].sum())
    body = Body(scene, new["name"])
    pts, pins = body.get(Points), body.get(Pins)
    if not m or pts is None or len(state[0]) < m:
        return
    pts.pos[:m], pts.prev[:m] = state[0][:m], state[1][:m]
    if pins is not None:
        pts.pos[pins.index] = pins.anchor
        pts.prev[pins.index] = pins.anchor


def apply(scene, lv: level.Level) -> list[str]:
    """Bring the running ``scene`` to level ``lv`` with the least disturbance; return what was done
    ("live NAME.KEY", "rebuilt NAME", "added NAME", "removed NAME", "rebuilt the scene")."""
    old = scene.level
    done: list[str] = []
    old_top = {"title": old.title, "description": old.description, "theme": old.theme, "seed": old.seed,
               "reduced_motion": old.reduced_motion, "systems": old.systems, "interpolate": old.interpolate}
    new_top = {"title": lv.title, "description": lv.description, "theme": lv.theme, "seed": lv.seed,
               "reduced_motion": lv.reduced_motion, "systems": lv.systems, "interpolate": lv.interpolate}
    top = _appliers(level.TOP, old_top, new_top)
    if top is None:                      # a new seed or system list: the whole scene starts again
        if lv.seed != old.seed and scene.seed == old.seed:
            scene.seed = lv.seed         # (a --seed override stays)
        scene.level = lv
        scene.reset()
        return ["rebuilt the scene"]
    with scene.active():
        for key, name in top:
            key.live(Body(scene, None), new_top, name)
            done.append(f"live {name}")
        new_names = {c["name"] for c in lv.layers}
        old_by = {c["name"]: c for c in old.layers}
        for name in old_by:
            if name not in new_names:
                _remove_layer(scene, name)
                done.append(f"removed {name}")
        scene.level = lv
        for cfg in lv.layers:
            prev = old_by.get(cfg["name"])
            if prev is None or prev["kind"] != cfg["kind"]:
                if prev is not None:
                    _remove_layer(scene, cfg["name"])
                _spawn_layer(scene, cfg)
                done.append(f"added {cfg['name']}")
                continue
            live = _appliers(layer_schema(cfg["kind"]), prev, cfg, skip=("name",))
            if live is None:
                state = _state(scene, cfg["name"])
                _remove_layer(scene, cfg["name"])
                _spawn_layer(scene, cfg)
                _carry(scene, prev, cfg, state)
                done.append(f"rebuilt {cfg['name']}")
                continue
            body = Body(scene, cfg["name"], prev)
            try:
                for key, name in live:
                    key.live(body, cfg, name)
                    done.append(f"live {cfg['name']}.{name}")
            except Rebuild:                      # an applier found more running than the keys say
                state = _state(scene, cfg["name"])
                _remove_layer(scene, cfg["name"])
                _spawn_layer(scene, cfg)
                _carry(scene, prev, cfg, state)
                done.append(f"rebuilt {cfg['name']}")
        order = {c["name"]: i for i, c in enumerate(lv.layers)}
        scene.layers.sort(key=lambda lay: (lay.z, order[lay.name]))   # as a fresh build sorts them
        specs = scene.systems()
        if [s.name for s in specs] != [getattr(p, "system_name", None) for p in scene.processors] + \
                [getattr(d, "system_name", None) for d in scene.draws]:
            for proc in scene.processors:
                esper.remove_processor(type(proc))
            scene.processors, scene.draws = pipeline.install(specs, reuse=(*scene.processors, *scene.draws))
    return done


# ── the document ────────────────────────────────────────────────────────────
def is_default(value, key: Key) -> bool:
    """``value`` equals the key's default, and is of its kind (``1`` is not ``true``)."""
    d = key.default
    if d is None or isinstance(value, bool) != isinstance(d, bool):
        return False
    if isinstance(value, (int, float)) != isinstance(d, (int, float)):
        return False
    return value == d


def _value_item(value, like=None):
    """A tomlkit item for ``value``; an integral float stays an integer where the file wrote one."""
    if isinstance(value, float) and value.is_integer() and isinstance(like, int) and not isinstance(like, bool):
        value = int(value)
    if isinstance(value, list):
        arr = tomlkit.array()
        arr.extend(value)
        return arr
    return tomlkit.item(value)


def _item(tbl, name: str):
    """The tomlkit item (value with its trivia: comment, spacing) of key ``name``."""
    return (tbl if isinstance(tbl, Container) else tbl.value).item(name)


def _replace(tbl, name: str, value) -> None:
    """Set an existing key in place: its comment stays, at the same column where it can."""
    old = _item(tbl, name)
    width = len(old.as_string())
    new = _value_item(value, old.unwrap())
    tbl[name] = new
    item = _item(tbl, name)
    tr = item.trivia
    if tr.comment:
        tr.comment_ws = " " * max(1, len(tr.comment_ws) + width - len(item.as_string()))


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename,
    so a crash leaves the old file or the new one, never half of either."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:TEMP_NAME_CHARS]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_document(path: Path):
    """The level file as a tomlkit document; LevelError (one line) if it cannot be read."""
    level.parse(path)                                   # the loader's checks: size, UTF-8, TOML
    try:
        return tomlkit.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, TOMLKitError) as e:
        raise LevelError(path, "", f"expected a TOML level file, found {type(e).__name__}: {e}".splitlines()[0]) from None


@dataclass
class Edit:
    label: str
    before: str
    after: str
    merge: tuple | None = None   # consecutive edits of the same key (a slider's drag) are one undo step
    # the scene's state before the edit (snapshot.State), held when the edit rebuilt, added or removed
    # a layer, so its undo brings the bodies back as they were, moving, not spawned afresh
    state: object = None
    redo_state: object = None    # the state an undo left, which its redo brings back


UNDO_BYTES = 64 << 20   # bytes of scene states the undo history holds at most (older edits undo their keys only)


class Studio:
    """The open level's document, bound to the running scene it edits."""

    def __init__(self, scene):
        self.scene = scene
        self.history: list[Edit] = []
        self.future: list[Edit] = []
        self.error = ""          # the last refused edit's message (as `validate` prints it), until the next edit
        self.revision = 0        # +1 on every change of the document (the view refreshes its widgets)
        self._merge_open: tuple | None = None
        self._anchor_drag: tuple[int, int] | None = None
        self._collider_drag: tuple[int, int, float, float] | None = None   # layer, collider, grip x, y (px)
        self._open(scene)

    def _open(self, scene) -> None:
        self.scene = scene
        self.path = Path(scene.level.path)
        self.doc = read_document(self.path)
        self._text = self.doc.as_string()
        self.saved_text = self._text
        self._saved = tomlkit.parse(self.saved_text)
        self.level = scene.level

    def reopen(self, scene) -> None:
        """The scene was replaced (another level opened, or the file reloaded after an outside
        edit): read its file again. The history belongs to the old document and is dropped."""
        self._open(scene)
        self.history.clear()
        self.future.clear()
        self.error = ""
        self._merge_open = self._anchor_drag = self._collider_drag = None
        self.revision += 1

    # ── reading ──────────────────────────────────────────────────────────────
    @property
    def text(self) -> str:
        """The document as the file would hold it (kept beside the document: every change goes
        through `_edit` or `_restore`, so a drag's frame serialises the document once, not thrice)."""
        return self._text

    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    def data(self) -> dict:
        return self.doc.unwrap()

    def layers(self) -> list[dict]:
        """The validated layers (defaults filled, names resolved), in file order."""
        return self.level.layers

    def schema(self, where: tuple) -> Table:
        """The keys of a table: () the level's top, (i,) layer i, (i, ARRAY, j) entry j of layer i's ARRAY."""
        if not where:
            return level.TOP
        cfg = self.level.layers[where[0]]
        sch = layer_schema(cfg["kind"])
        return sch if len(where) == 1 else sch.arrays[where[1]][0]

    def key(self, where: tuple, name: str) -> Key:
        return self.schema(where).keys[name]

    def value(self, where: tuple, name: str):
        """The key's value as the scene runs it (the default when the file leaves it out)."""
        cfg = self._cfg(where)
        if not where:
            return self.data().get(name, level.TOP.keys[name].default)
        return cfg[name]

    def written(self, where: tuple, name: str) -> bool:
        """Whether the file spells the key out."""
        tbl = self._table(self.doc, where)
        return tbl is not None and name in tbl

    def changed(self, where: tuple, name: str) -> bool:
        """Whether the value differs from the key's default (the panel marks it)."""
        k = self.key(where, name)
        if name == "z":
            return self.value(where, name) != where[0]
        if name == "name":
            return self.written(where, name)
        return k.default is not None and self.value(where, name) != k.default

    def _cfg(self, where: tuple) -> dict:
        if not where:
            return {}
        cfg = self.level.layers[where[0]]
        return cfg if len(where) == 1 else cfg[where[1]][where[2]]

    @staticmethod
    def _table(doc, where: tuple):
        try:
            if not where:
                return doc
            lay = doc["layer"][where[0]]
            return lay if len(where) == 1 else lay[where[1]][where[2]]
        except (KeyError, IndexError, TypeError):
            return None

    def path_name(self, where: tuple, name: str) -> str:
        """The key path as `validate` names it: ``layer[0].rope[2].anchor``."""
        parts = [f"layer[{where[0]}]"] if where else []
        if len(where) == 3:
            parts.append(f"{key_name(where[1])}[{where[2]}]")
        return ".".join([*parts, key_name(name)])

    # ── editing ──────────────────────────────────────────────────────────────
    def _edit(self, label: str, mutate, merge: tuple | None = None) -> bool:
        """Run ``mutate(doc)``; keep it if the level still validates, else restore. True if kept."""
        before = self.text
        try:
            mutate(self.doc)
        except (TOMLKitError, ValueError, TypeError, KeyError, IndexError) as e:
            self.doc = tomlkit.parse(before)
            self.error = f"{self.path}: {label}: {type(e).__name__}: {e}".splitlines()[0]
            return False
        after = self.doc.as_string()
        if after == before:
            self.error = ""
            return True
        try:
            lv = level.build(self.data(), self.path, (self.scene.width, self.scene.height))
        except LevelError as e:
            self.doc = tomlkit.parse(before)
            self.error = str(e)
            return False
        self.error = ""
        self._text = after
        continued = merge is not None and merge == self._merge_open and self.history
        state = None if continued else snapshot.capture(self.scene)   # before a gesture's first change
        self._adopt(lv)
        if continued:
            self.history[-1].after = after
        else:
            structural = any(not d.startswith("live ") for d in self.last_applied)
            self.history.append(Edit(label, before, after, merge, state if structural else None))
            self._bound_states()
        self._merge_open = merge
        self.future.clear()
        return True

    def _bound_states(self) -> None:
        """Hold at most UNDO_BYTES of states: the oldest edits' go first (they undo their keys only)."""
        total = 0
        for e in reversed(self.history + self.future):
            for name in ("state", "redo_state"):
                st = getattr(e, name)
                if st is not None:
                    total += st.nbytes
                    if total > UNDO_BYTES:
                        setattr(e, name, None)

    def _adopt(self, lv: level.Level) -> None:
        self.last_applied = apply(self.scene, lv)
        self.scene.document = self._text if self.dirty else None   # what a snapshot keeps of the edits
        self.level = lv
        self.revision += 1

    def end_gesture(self) -> None:
        """A drag ended: the next change of the same key is a new undo step."""
        self._merge_open = None

    def _in_saved(self, where: tuple, name: str) -> bool:
        tbl = self._table(self._saved, where)
        return tbl is not None and name in tbl

    def set(self, where: tuple, name: str, value) -> bool:
        """Give a key a new value. A key the file leaves out is written only when the value
        differs from its default; one the studio added goes again when set back to it."""
        key = self.key(where, name)
        keep_default = name in ("z", "name", "kind") or key.default is None

        def mutate(doc):
            tbl = self._table(doc, where)
            if name in tbl:
                if is_default(value, key) and not keep_default and not self._in_saved(where, name):
                    del tbl[name]
                else:
                    _replace(tbl, name, value)
            elif not is_default(value, key) or keep_default:
                tbl[name] = _value_item(value)
        return self._edit(f"{self.path_name(where, name)} = {value!r}", mutate, merge=(where, name))

    def undo(self) -> bool:
        """Go back one edit: its keys, and, for a structural edit, the scene's state from just before it."""
        if not self.history:
            return False
        e = self.history.pop()
        if e.state is not None:
            e.redo_state = snapshot.capture(self.scene)
        self._restore(e.before, e.state)
        self.future.append(e)
        return True

    def redo(self) -> bool:
        if not self.future:
            return False
        e = self.future.pop()
        self._restore(e.after, e.redo_state)
        self.history.append(e)
        return True

    def _restore(self, text: str, state=None) -> None:
        """The document ``text`` again, and the scene's ``state`` (a `snapshot.State` taken while the
        level was that text) where one is held."""
        self.doc = tomlkit.parse(text)
        self._text = text
        self._merge_open = None
        self.error = ""
        self._adopt(level.build(self.data(), self.path, (self.scene.width, self.scene.height)))
        if state is not None:
            try:
                snapshot.rebuild(self.scene, state)
            except LevelError as e:          # a state of another size: the keys are back, the bodies spawn anew
                self.error = str(e)

    # ── layers and ropes ─────────────────────────────────────────────────────
    def _new_entry(self, schema: Table, values: dict | None = None):
        """A table with the schema's required keys (mid-range numbers) and its required array entries."""
        tbl = tomlkit.table()
        tbl.trivia.indent = "\n"                          # a blank line before each new [[...]] header
        for name, k in schema.keys.items():
            if values and name in values:
                tbl[name] = values[name]
            elif k.default is None and k.type in ("int", "float"):
                mid = (k.lo + k.hi) / 2
                tbl[name] = int(mid) if k.type == "int" else mid
            elif k.default is None and k.type == "choice":      # a collider's shape: the first
                tbl[name] = k.choices[0]
            elif k.default is None and k.type == "pair":        # a collider's place: the middle
                tbl[name] = _value_item([(k.lo + k.hi) / 2] * 2)
        for name, (sub, lo, _, _) in schema.arrays.items():
            if lo and any(k.default is None for k in sub.keys.values()):   # entries the kind needs (a rope's anchor)
                aot = tomlkit.aot()
                for _ in range(lo):
                    aot.append(self._new_entry(sub))
                tbl[name] = aot
        return tbl

    def add_layer(self, kind_name: str) -> bool:
        """A new layer of a registered kind (a plugin's too), on top of the others."""
        if kind_name not in kinds.KINDS:
            self.error = f"{self.path}: layer: unknown entity kind {kind_name!r}"
            return False
        used = {c["name"] for c in self.level.layers}
        n = len(self.level.layers)
        values = {"kind": kind_name}
        default_name = kind_name if n == 0 else f"{kind_name}-{n}"
        if default_name in used:                          # a name the file already took
            i = n
            while f"{kind_name}-{i}" in used:
                i += 1
            values["name"] = f"{kind_name}-{i}"
        top = max([c["z"] for c in self.level.layers], default=-1)
        if top >= n:                                      # explicit z's: put it above them
            values["z"] = top + 1
        schema = layer_schema(kind_name)

        def mutate(doc):
            entry = self._new_entry(Table({**schema.keys}, schema.arrays), values)
            if "layer" not in doc:
                doc["layer"] = tomlkit.aot()
            doc["layer"].append(entry)
        return self._edit(f"add a {kind_name} layer", mutate)

    def remove_layer(self, i: int) -> bool:
        def mutate(doc):
            del doc["layer"][i]
        return self._edit(f"remove layer[{i}]", mutate)

    def move_layer(self, i: int, dz: int) -> bool:
        """Change layer ``i``'s z by ``dz`` (draw order, and which layer a press is offered first)."""
        return self.set((i,), "z", self.level.layers[i]["z"] + dz)

    def add_entry(self, i: int, array: str, values: dict | None = None) -> bool:
        schema = self.schema((i,))
        if array not in schema.arrays:
            self.error = f"{self.path}: layer[{i}]: the {self.level.layers[i]['kind']} kind has no [[{array}]] entries"
            return False
        sub = schema.arrays[array][0]

        def mutate(doc):
            lay = doc["layer"][i]
            if array not in lay:
                lay[array] = tomlkit.aot()
            lay[array].append(self._new_entry(sub, values))
        return self._edit(f"add layer[{i}].{array}", mutate)

    def remove_entry(self, i: int, array: str, j: int) -> bool:
        def mutate(doc):
            aot = doc["layer"][i][array]
            del aot[j]
            if not len(aot):
                del doc["layer"][i][array]
        return self._edit(f"remove layer[{i}].{array}[{j}]", mutate)

    def add_rope(self, i: int, anchor: float) -> bool:
        """Hang a new rope on rope layer ``i``, its anchor at ``anchor`` of the width."""
        return self.add_entry(i, "rope", {"anchor": round(min(max(anchor, 0.0), 1.0), ANCHOR_DIGITS)})

    def remove_rope(self, i: int, j: int) -> bool:
        return self.remove_entry(i, "rope", j)

    # ── drawn ropes (ropework.draw lays them; here they become the level's rope entries) ──
    def add_drawn(self, i: int, rope: dict, attach: list[dict] = ()) -> bool:
        """A drawn rope: one ``[[layer.rope]]`` entry at the end of layer ``i``'s ropes, and its
        ``[[layer.attach]]`` entries, in one undo step. Refused (``error``) as any edit, e.g. past the
        scene's point budget."""
        def mutate(doc):
            lay = doc["layer"][i]
            for array, values in (("rope", [rope]), ("attach", list(attach))):
                if not values:
                    continue
                if array not in lay:
                    lay[array] = tomlkit.aot()
                for v in values:
                    tbl = tomlkit.table()
                    for k, x in v.items():
                        tbl[k] = _value_item(x)
                    tbl.add(tomlkit.nl())          # a blank line after it, before what follows
                    lay[array].append(tbl)
        return self._edit(f"draw a rope on layer[{i}]", mutate)

    def drawn(self, i: int) -> list[int]:
        """Layer ``i``'s rope tables that are drawn ropes (with a path), in order."""
        return [j for j, t in enumerate(self.level.layers[i]["rope"]) if t["path"]]

    def remove_drawn(self, i: int) -> bool:
        """Remove layer ``i``'s last drawn rope and the attachments that hold it or hang on it (the
        others are renumbered past it). False if it has none."""
        tables = self.drawn(i)
        if not tables:
            return False
        j = tables[-1]
        r = sum(t["count"] for t in self.level.layers[i]["rope"][:j])     # its index among the layer's ropes

        def mutate(doc):
            lay = doc["layer"][i]
            del lay["rope"][j]
            if "attach" in lay:
                aot = lay["attach"]
                for k in reversed(range(len(aot))):
                    a = aot[k]
                    if r in (a.get("from"), a.get("to")):
                        del aot[k]
                        continue
                    for end in ("from", "to"):
                        if a.get(end, -1) > r:
                            a[end] = a[end] - 1
                if not len(aot):
                    del lay["attach"]
        return self._edit(f"remove the drawn layer[{i}].rope[{j}]", mutate)

    def pin_drawn(self, i: int, j: int, pin: str, path: list) -> bool:
        """Set drawn rope ``j``'s `pin` and lay its `path` where it is now, so the file holds the rope
        pinned where it was pinned."""
        def mutate(doc):
            tbl = doc["layer"][i]["rope"][j]
            tbl["pin"] = pin
            tbl["path"] = _value_item(path)
        return self._edit(f"layer[{i}].rope[{j}].pin = {pin!r}", mutate)

    # ── the pointer over the scene (rails and anchors) ───────────────────────
    def _rails(self):
        """(layer index, rail y, {rope table: anchor x}) of each rope layer with a rail, topmost first;
        a drawn rope (a path) has no anchor on the rail."""
        index = {c["name"]: i for i, c in enumerate(self.level.layers)}
        out = []
        with self.scene.active():
            for _ent, (rail, lay) in esper.get_components(Rail, Layer):
                if lay.name in index:
                    tables = self.level.layers[index[lay.name]]["rope"]
                    xs = {j: t["anchor"] * self.scene.width for j, t in enumerate(tables) if not t["path"]}
                    out.append((lay.z, index[lay.name], rail.y, xs))
        return [(i, y, xs) for _, i, y, xs in sorted(out, key=lambda r: -r[0])]

    def collider_at(self, x: float, y: float) -> tuple[int, int] | None:
        """(layer index, collider index) of the collider under scene point (x, y), topmost layer first;
        a plane only near its surface (below it is most of the scene)."""
        index = {c["name"]: i for i, c in enumerate(self.level.layers)}
        found = []
        with self.scene.active():
            for _ent, (col, lay) in esper.get_components(Colliders, Layer):
                if lay.name not in index:
                    continue
                w, h = self.scene.width, self.scene.height
                solid = [k for k in range(len(col.shape)) if col.shape[k] != PLANE]
                k = shape_at([outline(col, k, w, h) for k in solid], x, y) if solid else -1
                if k >= 0:
                    found.append((lay.z, index[lay.name], solid[k]))
                    continue
                for k in np.flatnonzero(col.shape == PLANE):
                    ax, ay = col.axis[k]
                    if abs((x - col.centre[k, 0]) * ay - (y - col.centre[k, 1]) * ax) <= RAIL_REACH:
                        found.append((lay.z, index[lay.name], int(k)))
                        break
        return max(found)[1:] if found else None

    def press(self, x: float, y: float) -> bool:
        """A press on the scene while the studio is open: on a rail, near an anchor, takes the
        anchor (drag it); elsewhere on a rail, hangs a new rope there; on a collider, takes it (drag
        it). True if the studio took it."""
        hit = self.collider_at(x, y)
        if hit is not None:
            i, k = hit
            at = self.level.layers[i]["collider"][k]["at"]
            self._collider_drag = (i, k, at[0] * self.scene.width - x, at[1] * self.scene.height - y)
            self.end_gesture()
            return True
        for i, ry, xs in self._rails():
            if abs(y - ry) > RAIL_REACH:
                continue
            if xs:
                j = min(xs, key=lambda j: abs(xs[j] - x))
                if abs(xs[j] - x) <= ANCHOR_REACH:
                    self._anchor_drag = (i, j)
                    self.end_gesture()
                    return True
            self.add_rope(i, x / self.scene.width)
            return True
        return False

    def drag(self, x: float, y: float) -> bool:
        """The pointer moved with the button down: a held anchor follows it along the rail, a held
        collider follows it (its grip kept)."""
        if self._collider_drag is not None:
            i, k, gx, gy = self._collider_drag
            at = [round(min(max((x + gx) / self.scene.width, 0.0), 1.0), ANCHOR_DIGITS),
                  round(min(max((y + gy) / self.scene.height, 0.0), 1.0), ANCHOR_DIGITS)]
            self.set((i, "collider", k), "at", at)
            return True
        if self._anchor_drag is None:
            return False
        i, j = self._anchor_drag
        self.set((i, "rope", j), "anchor", round(min(max(x / self.scene.width, 0.0), 1.0), ANCHOR_DIGITS))
        return True

    def release(self) -> bool:
        held = self._anchor_drag or self._collider_drag
        self._anchor_drag = self._collider_drag = None
        self.end_gesture()
        return held is not None

    def turn(self, x: float, y: float, notches: float) -> bool:
        """The mouse wheel over a collider turns it by `TURN` degrees a notch (one undo step a run)."""
        hit = self.collider_at(x, y)
        if hit is None:
            return False
        i, k = hit
        angle = self.level.layers[i]["collider"][k]["angle"] + TURN * notches
        angle = (angle + 180.0) % 360.0 - 180.0                      # kept in -180 .. 180
        self.set((i, "collider", k), "angle", round(angle, 3))
        return True

    def remove_at(self, x: float, y: float) -> bool:
        """Delete: remove the collider under the pointer."""
        hit = self.collider_at(x, y)
        return hit is not None and self.remove_entry(hit[0], "collider", hit[1])

    # ── saving ───────────────────────────────────────────────────────────────
    def shipped(self) -> bool:
        """Whether the open file is one of the package's levels (saved as a copy, never over it)."""
        try:
            return self.path.resolve().parent == level.LEVELS_DIR.resolve()
        except OSError:
            return False

    def save_target(self) -> Path:
        """Where Ctrl+S writes: the open file; for a shipped level a copy of the same name in the
        current folder (NAME-2.toml, NAME-3.toml, … if that name is taken)."""
        if not self.shipped():
            return self.path
        cwd = Path.cwd()
        target, n = cwd / self.path.name, 1
        while target.exists() and target.resolve() != self.path.resolve():
            n += 1
            target = cwd / f"{self.path.stem}-{n}{self.path.suffix}"
        return target

    def save(self, path=None) -> Path:
        """Write the document (to ``path``, else `save_target`) atomically; the studio then edits
        that file. Raises LevelError naming the path when it cannot be written."""
        target = Path(path) if path is not None else self.save_target()
        if path is not None:
            target = Path(os.path.expanduser(str(path)))
            if target.suffix != ".toml":
                raise LevelError(target, "", "expected a path ending in .toml")
            try:
                if target.is_dir():
                    raise LevelError(target, "", "expected a file path, found a directory")
                if not target.parent.is_dir():
                    raise LevelError(target, "", f"expected an existing folder, found no folder "
                                                 f"{printable(target.parent)!r}")
                if target.resolve().parent == level.LEVELS_DIR.resolve():
                    raise LevelError(target, "", "expected a path outside the package's shipped levels")
            except OSError as e:    # a name the system refuses (a component over 255 bytes), a loop of links
                raise LevelError(target, "", f"cannot write here: {e.strerror or type(e).__name__}") from None
        text = self.text
        try:
            atomic_write(target, text)
        except OSError as e:
            raise LevelError(target, "", f"could not write: {e.strerror or type(e).__name__}") from None
        target = target.resolve() if not target.is_absolute() else target
        if target != self.path:
            self.path = target
            self.level.path = target
        self.scene.level.path = target
        self.saved_text = text
        self._saved = tomlkit.parse(text)
        self._merge_open = None
        self.revision += 1
        return target
