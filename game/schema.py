"""Declarative level-file keys: type, default, range and meaning, and the validator.

Every key a level may hold is declared here or by an entity kind, once; the same
declarations validate files, fill defaults and write docs/levels.md.
"""
from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_COLOUR = re.compile(r"^#([0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]{1,64}$")   # TOML bare keys, cut at a length a message can show
_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}  # what splitlines splits on


TEMP_NAME_CHARS = 32   # characters of a target's name that the temporary file written beside it keeps: at most
                       # 128 bytes, so the temporary name fits the system's 255 whenever the target's own does


def printable(path) -> str:
    """A file name as text any terminal, window caption or font can show: a name's bytes that
    are not UTF-8 (held by Python as lone surrogates) become U+FFFD, never an encoding error.
    Only for showing: the name itself still opens the file."""
    return os.fsdecode(path).encode("utf-8", "surrogateescape").decode("utf-8", "replace")


class LevelError(Exception):
    """A level file that cannot be used; str() is the one line shown to the user."""

    def __init__(self, file, path: str, message: str, line: int | None = None):
        self.file, self.path, self.message, self.line = str(file), path, message, line
        where = f"{printable(self.file)}:{line}" if line else printable(self.file)
        super().__init__(f"{where}: {path + ': ' if path else ''}{message}".translate(_LINE_BREAKS))  # always one line


def key_name(name: str) -> str:
    """A key as an error's key path shows it: bare when TOML allows, else quoted, escaped and cut."""
    return name if _BARE_KEY.match(name) else json.dumps(name[:64]) + ("…" if len(name) > 64 else "")


def _found(v: Any) -> str:
    if isinstance(v, bool):
        return f"boolean {str(v).lower()}"
    if isinstance(v, (int, float)):
        return f"{type(v).__name__} {v!r}"
    if isinstance(v, str):
        return f"string {v[:40]!r}" + ("…" if len(v) > 40 else "")
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        if len(v) <= 4 and all(isinstance(e, (int, float)) for e in v):   # short enough to show
            return "[" + ", ".join(repr(e) for e in v) + "]"
        return f"an array of {len(v)}"
    return type(v).__name__


def _num(v) -> str:
    return f"{v:.10g}"


@dataclass(frozen=True)
class Key:
    """One key. type: "int", "float", "bool", "str", "colour", "choice", "names" (array of short
    strings), "pair" ([x, y], each number in lo..hi) or "pairs" (an array of 1..max_len pairs).

    live: how a running layer takes a new value in place (the studio's edits):
    ``live(body, cfg, name)`` writes ``cfg[name]`` (cfg: the layer's new validated table)
    into the body's components, found with ``body.get(ComponentClass)``; the change shows
    on the next step with nothing reset. None: the key shapes the layout, counts or
    topology, so a change rebuilds that layer (its entities spawn again; other layers run on).
    """

    name: str
    type: str
    default: Any
    doc: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple = ()
    max_len: int = 200
    live: Callable | None = field(default=None, compare=False, repr=False)

    def expected(self) -> str:
        if self.type in ("int", "float"):
            noun = "an integer" if self.type == "int" else "a number"
            return f"{noun} in {_num(self.lo)}..{_num(self.hi)}"
        if self.type == "bool":
            return "true or false"
        if self.type == "colour":
            return 'a colour "#rrggbb" or "#rrggbbaa"'
        if self.type == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.type == "names":
            return f"an array of at most {self.max_len} names"
        if self.type == "pair":
            return f"[x, y], numbers in {_num(self.lo)}..{_num(self.hi)}"
        if self.type == "pairs":
            return f"an array of at most {self.max_len} [x, y] pairs, numbers in {_num(self.lo)}..{_num(self.hi)}"
        return f"a string of at most {self.max_len} characters"

    def check(self, v: Any, err) -> Any:
        t = self.type
        ok = False
        lo = -math.inf if self.lo is None else self.lo      # a number key without a bound has none
        hi = math.inf if self.hi is None else self.hi
        if t == "int":
            ok = isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi
        elif t == "float":
            ok = (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                  and lo <= v <= hi)
            v = float(v) if ok else v
        elif t == "bool":
            ok = isinstance(v, bool)
        elif t == "colour":
            ok = isinstance(v, str) and bool(_COLOUR.match(v))
        elif t == "choice":
            ok = isinstance(v, str) and v in self.choices
        elif t == "names":
            ok = (isinstance(v, list) and len(v) <= self.max_len
                  and all(isinstance(e, str) and 0 < len(e) <= 64 for e in v))
        elif t in ("pair", "pairs"):
            lo = -math.inf if self.lo is None else self.lo
            hi = math.inf if self.hi is None else self.hi

            def pair(e):
                return (isinstance(e, list) and len(e) == 2 and all(
                    isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                    and lo <= x <= hi for x in e))
            ok = pair(v) if t == "pair" else (isinstance(v, list) and 0 < len(v) <= self.max_len
                                               and all(pair(e) for e in v))
            if ok:
                v = [float(x) for x in v] if t == "pair" else [[float(x) for x in e] for e in v]
        elif t == "str":
            ok = isinstance(v, str) and len(v) <= self.max_len and "\x00" not in v
        if not ok:
            err(f"expected {self.expected()}, found {_found(v)}")
        return v


@dataclass(frozen=True)
class Table:
    """A table of keys, with arrays of sub-tables (``[[layer.rope]]``)."""

    keys: dict[str, Key] = field(default_factory=dict)
    arrays: dict[str, tuple[Table, int, int, str]] = field(default_factory=dict)  # name -> (table, min, max, doc)

    def names(self) -> list[str]:
        return list(self.keys) + list(self.arrays)


def table(*keys: Key, **arrays) -> Table:
    return Table({k.name: k for k in keys}, arrays)


def suggest(name: str, valid) -> str:
    close = difflib.get_close_matches(name, list(valid), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else f"; valid keys: {', '.join(sorted(valid))}"


def validate(data: dict, schema: Table, file, path: str = "", skip=()) -> dict:
    """Check ``data`` against ``schema``; return it with every default filled in."""
    def fail(p, msg):
        raise LevelError(file, p, msg)

    if not isinstance(data, dict):
        fail(path, f"expected a table, found {_found(data)}")
    out: dict = {}
    for name, v in data.items():
        p = f"{path}.{key_name(name)}" if path else key_name(name)
        if name in skip:
            continue
        if name in schema.keys:
            out[name] = schema.keys[name].check(v, lambda m, p=p: fail(p, m))
        elif name in schema.arrays:
            sub, lo, hi, _ = schema.arrays[name]
            if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
                fail(p, f"expected an array of tables ([[{p}]]), found {_found(v)}")
            if not lo <= len(v) <= hi:
                fail(p, f"expected {lo}..{hi} entries, found {len(v)}")
            out[name] = [validate(e, sub, file, f"{p}[{i}]") for i, e in enumerate(v)]
        else:
            fail(p, "unknown key" + suggest(name, schema.names()))
    for name, (_, lo, hi, _) in schema.arrays.items():
        if lo > 0 and name not in out:
            p = f"{path}.{name}" if path else name
            header = re.sub(r"\[\d+\]", "", p)          # layer[0].rope → the TOML header [[layer.rope]]
            fail(p, f"missing; expected {lo}..{hi} [[{header}]] tables")
    for name, k in schema.keys.items():
        if k.default is None and name not in out:
            fail(f"{path}.{name}" if path else name, f"missing; expected {k.expected()}")
        out.setdefault(name, k.default)
    return out


def markdown(title: str, schema: Table, prefix: str = "") -> list[str]:
    """Reference lines for docs/levels.md: one row per key."""
    lines = [f"### {title}", "", "| key | type | default | range | studio | meaning |", "|---|---|---|---|---|---|"]
    for k in schema.keys.values():
        rng = (f"{_num(k.lo)} … {_num(k.hi)}" if k.type in ("int", "float", "pair", "pairs")
               else " / ".join(map(str, k.choices)) if k.type == "choice" else "")
        default = "(required)" if k.default is None else (
            str(k.default).lower() if isinstance(k.default, bool) else repr(k.default)
            if isinstance(k.default, (str, list)) else _num(k.default))
        applies = "live" if k.live is not None else "rebuild"
        lines.append(f"| `{prefix}{k.name}` | {k.type} | {default} | {rng} | {applies} | {k.doc} |")
    lines.append("")
    for name, (sub, lo, hi, doc) in schema.arrays.items():
        lines += [f"`[[{prefix}{name}]]` — {doc} ({lo} to {hi} entries).", ""]
        lines += markdown(f"`[[{prefix}{name}]]` entries", sub, f"{prefix}{name}.")
    return lines
