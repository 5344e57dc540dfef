"""Level files made from the declarations: a valid minimal level per kind, bad values per key, a TOML writer.

Everything here walks `game.level.TOP`, `game.level.LAYER_COMMON` and each registered
kind's schema, so a new kind or key is covered by the bad-level corpus with no edit.
"""
from __future__ import annotations

import datetime
import json
import math

from ropework import kinds, level
from ropework.schema import Key, Table

WHEN = datetime.datetime(1979, 5, 27, 7, 32)   # a TOML datetime: a type no level key takes
BIG_INT = 2**63 - 1                              # the largest integer TOML can write


# ── TOML ──────────────────────────────────────────────────────────────────────
def toml_str(s: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except DEL must be escaped too."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_key(k: str) -> str:
    return k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k) else toml_str(k)


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return toml_str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(e)}" for k, e in v.items()) + "}"
    raise TypeError(type(v))


def dumps(doc: dict) -> str:
    """A level document as TOML: top keys, then one ``[[layer]]`` table per layer (sub-tables inline)."""
    lines = ["# a generated level (tests/levelgen.py)"]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in doc.items() if k != "layer"]
    layers = doc.get("layer", [])
    if isinstance(layers, list) and all(isinstance(t, dict) for t in layers):
        for t in layers:
            lines.append("[[layer]]")
            lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in t.items()]
    elif "layer" in doc:
        lines.append(f"layer = {toml_value(layers)}")
    return "\n".join(lines) + "\n"


# ── valid values ──────────────────────────────────────────────────────────────
def good(key: Key):
    """A value the key accepts: its default, or for a required key the low end of its range."""
    if key.default is not None:
        return key.default
    return {"int": key.lo, "float": key.lo, "bool": False, "str": "x", "colour": "#000000",
            "choice": key.choices[0] if key.choices else "", "names": [],
            "pair": [key.lo, key.lo], "pairs": [[key.lo, key.lo]] * 3}[key.type]


def minimal(table: Table) -> dict:
    """The smallest table the schema accepts: its required keys and required sub-tables."""
    out = {name: good(k) for name, k in table.keys.items() if k.default is None}
    for name, (sub, lo, _hi, _doc) in table.arrays.items():
        if lo:
            out[name] = [minimal(sub) for _ in range(lo)]
    return out


def layer_schema(kind: str) -> Table:
    """A kind's layer table: the common keys (kind, name, z) and the kind's own."""
    k = kinds.KINDS[kind]
    return Table({**{c.name: c for c in level.LAYER_COMMON}, **k.schema.keys}, k.schema.arrays)


def minimal_layer(kind: str) -> dict:
    return {"kind": kind, **minimal(kinds.KINDS[kind].schema)}


def minimal_level(kind: str) -> dict:
    return {"layer": [minimal_layer(kind)]}


def kind_names() -> list[str]:
    """Every registered kind, built-in and from installed plugins (as `level.load` sees them)."""
    from ropework import plugins
    kinds.load_builtin()
    plugins.autoload()
    return sorted(kinds.KINDS)


# ── bad values ────────────────────────────────────────────────────────────────
OTHER_TYPES = ["3", 3, 2.5, True, [1, 2], {"v": 1}, WHEN]   # one value of every TOML type


def accepts(key: Key, v) -> bool:
    ok = True

    def err(_msg):
        nonlocal ok
        ok = False
    key.check(v, err)
    return ok


def bad_values(key: Key) -> list[tuple[str, object]]:
    """(label, value) pairs the key must refuse: every other TOML type, out-of-range numbers,
    NaN and infinities, over-long strings, malformed colours and names."""
    span = (key.hi - key.lo) if key.type in ("int", "float") else 0
    cand = [(f"type-{type(v).__name__}", v) for v in OTHER_TYPES]
    if key.type == "int":
        cand += [("below", key.lo - 1), ("above", key.hi + 1), ("absurd", BIG_INT), ("absurd-neg", -BIG_INT - 1),
                 ("negative", -1), ("zero", 0), ("float-whole", float(key.lo)), ("float-nan", math.nan),
                 ("string-number", str(key.lo))]
    elif key.type == "float":
        cand += [("nan", math.nan), ("inf", math.inf), ("-inf", -math.inf), ("below", key.lo - span - 1.0),
                 ("above", key.hi + span + 1.0), ("absurd", 1e300), ("absurd-neg", -1e300), ("negative", -1.0),
                 ("zero", 0.0), ("string-number", str(key.lo))]
    elif key.type == "str":
        cand += [("too-long", "x" * (key.max_len + 1)), ("nul", "a\x00b")]
    elif key.type == "colour":
        cand += [("name", "orange"), ("short", "#12345"), ("seven", "#1234567"), ("not-hex", "#gggggg"),
                 ("no-hash", "ff0000"), ("empty", ""), ("ten", "#ff0000ff00")]
    elif key.type == "choice":
        cand += [("unknown", "nope"), ("empty", ""), ("case", str(key.choices[0]).upper() + "X")]
    elif key.type == "bool":
        cand += [("one", 1), ("zero", 0), ("string", "true")]
    elif key.type == "names":
        cand += [("not-array", "x"), ("int-entry", [1]), ("empty-name", [""]), ("long-name", ["a" * 65]),
                 ("too-many", ["a"] * (key.max_len + 1)), ("nested", [["a"]])]
    elif key.type in ("pair", "pairs"):
        one = [[key.lo - 1.0, key.lo], [key.lo, key.hi + 1.0], [math.nan, key.lo], [key.lo], [key.lo] * 3,
               ["x", key.lo], [True, key.lo]]
        cand += [(f"{key.type}-{i}", v if key.type == "pair" else [v] * 3) for i, v in enumerate(one)]
        cand += [("flat", [key.lo, key.lo]) if key.type == "pairs" else ("nested", [[key.lo, key.lo]])]
        if key.type == "pairs":
            cand += [("too-many", [[key.lo, key.lo]] * (key.max_len + 1))]
    seen, out = set(), []
    for label, v in cand:
        if label not in seen and not accepts(key, v):
            seen.add(label)
            out.append((label, v))
    return out


def key_sites() -> list[tuple[str, str, Table, tuple]]:
    """Every place a key lives: (kind or "<top>", key path prefix, table, where in the doc).

    ``where`` is a tuple of steps into the document: () for the top, ("layer", 0) for a
    layer, ("layer", 0, "rope", 0) for the first entry of a sub-table array.
    """
    sites = [("<top>", "", level.TOP, ())]
    for name in kind_names():
        t = layer_schema(name)
        sites.append((name, "layer[0]", t, ("layer", 0)))
        for arr, (sub, _lo, _hi, _doc) in t.arrays.items():
            sites.append((name, f"layer[0].{arr}[0]", sub, ("layer", 0, arr, 0)))
    return sites


def doc_for(kind: str, where: tuple, names=()) -> dict:
    """A valid document for the site, with every sub-table array on the way present. An
    `[[layer.attach]]` entry names its target, which no single key requires (one of `to` with
    `at`, `collider`, `card`): rope 0's anchor (`at` = 0, its low end), or, when ``names`` (the
    keys a case sets) include `collider`, collider 0 — a circle the layer then has."""
    doc = minimal_level("ropes" if kind == "<top>" else kind)
    if len(where) == 4:
        layer = doc["layer"][0]
        sub = layer_schema(kind).arrays[where[2]][0]
        entry = minimal(sub)
        if where[2] == "attach":
            if "collider" in names:
                entry["collider"] = 0
                layer.setdefault("collider", [{"shape": "circle", "at": [0.5, 0.5]}])
            else:
                entry.update({"to": 0, "at": 0.0})
        layer.setdefault(where[2], [entry])
    return doc


def at(doc: dict, where: tuple) -> dict:
    t = doc
    for step in where:
        t = t[step]
    return t
