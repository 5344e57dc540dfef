"""Key bindings: the one table the window, the help overlay, ``--help`` and the README read from.

``python -m ropework.keys`` prints the README's key table; tests/game/test_keys.py
checks the README holds exactly that table, so a new binding cannot go
undocumented.
"""
from __future__ import annotations

from dataclasses import dataclass

LEVEL_KEYS = 9   # number keys 1..9 open the shipped level with that number in `--list`


@dataclass(frozen=True)
class Binding:
    action: str              # the Controller action it runs (game/controller.py)
    keys: tuple[str, ...]    # key names as arcade.key spells them; "CTRL+S", "CTRL+SHIFT+Z": chords (Cmd on macOS)
    label: str               # how the help overlay and the README show the keys
    doc: str                 # what it does, one short line


BINDINGS = (
    Binding("help", ("H", "F1"), "H / F1", "show / hide the list of keys"),
    Binding("stats", ("F",), "F", "show / hide statistics: FPS, ms per step, elements, draw calls"),
    Binding("next", ("N",), "N", "next shipped level"),
    Binding("previous", ("P",), "P", "previous shipped level"),
    Binding("level", tuple(f"KEY_{i}" for i in range(1, LEVEL_KEYS + 1))
            + tuple(f"NUM_{i}" for i in range(1, LEVEL_KEYS + 1)),
            f"1 … {LEVEL_KEYS}", "shipped level by its number in --list"),
    Binding("pause", ("SPACE",), "Space", "pause / resume"),
    Binding("step", ("PERIOD",), ".", "step once while paused"),
    Binding("reset", ("R",), "R", "reset the scene"),
    Binding("theme", ("T",), "T", "toggle light / dark theme"),
    Binding("motion", ("M",), "M", "toggle reduced motion"),
    Binding("screenshot", ("S",), "S", "save a screenshot (PNG)"),
    Binding("record", ("G",), "G", "start / stop recording a GIF"),
    Binding("snapshot", ("K",), "K", "save a snapshot of the whole scene (--from starts from one)"),
    Binding("restore", ("L",), "L", "go back to the last snapshot saved (or --from's)"),
    Binding("input", ("I",), "I", "start / stop recording the pointer as an input script beside the level"),
    Binding("rewind", ("LEFT",), "← (hold)",
            "rewind: scrub back through the last 10 s while held; release plays on from there"),
    Binding("interpolate", ("V",), "V", "smooth frames on / off: draw between the last two steps (the level's interpolate)"),
    Binding("studio", ("E",), "E", "open / close the studio: edit the scene's layers and keys live"),
    Binding("save", ("CTRL+S",), "Ctrl+S", "save the studio's edits to the level file (a shipped level: a copy here)"),
    Binding("save_as", ("CTRL+SHIFT+S",), "Ctrl+Shift+S", "save the level as a new file (path typed in the studio)"),
    Binding("undo", ("CTRL+Z",), "Ctrl+Z", "undo the last studio edit"),
    Binding("redo", ("CTRL+SHIFT+Z", "CTRL+Y"), "Ctrl+Shift+Z / Ctrl+Y", "redo"),
    Binding("strain", ("B",), "B", "show / hide strain: each link from grey at rest to red at its break ratio"),
    Binding("pin_end", ("O",), "O", "pin / free the drawn rope's end nearest the pointer"),
    Binding("undraw", ("BACKSPACE",), "Backspace", "remove the last drawn rope (draw = true, or the studio open)"),
    Binding("quit", ("ESCAPE",), "Esc", "quit"),
)


def codes() -> dict[int, tuple[str, int | None]]:
    """arcade key code → (action, argument) of the plain keys; the argument is the level index for number keys."""
    import arcade.key  # lazily: `--help` must not need a GL-capable arcade import
    out: dict[int, tuple[str, int | None]] = {}
    for b in BINDINGS:
        for name in b.keys:
            if "+" in name:
                continue
            code = getattr(arcade.key, name)
            if code in out:
                raise ValueError(f"key {name} is bound twice")
            arg = int(name.rsplit("_", 1)[1]) - 1 if b.action == "level" else None
            out[code] = (b.action, arg)
    return out


def chords() -> dict[tuple[int, bool], str]:
    """(arcade key code, shift held) → action of the Ctrl (macOS: Cmd) chords."""
    import arcade.key
    out: dict[tuple[int, bool], str] = {}
    for b in BINDINGS:
        for name in b.keys:
            if "+" not in name:
                continue
            *mods, last = name.split("+")
            if mods[0] != "CTRL" or not set(mods[1:]) <= {"SHIFT"}:
                raise ValueError(f"chord {name}: expected CTRL+KEY or CTRL+SHIFT+KEY")
            chord = (getattr(arcade.key, last), "SHIFT" in mods)
            if chord in out:
                raise ValueError(f"chord {name} is bound twice")
            out[chord] = b.action
    return out


def lookup(symbol: int, modifiers: int = 0) -> tuple[str, int | None] | None:
    """(action, argument) for an arcade key code and modifier mask, or None if unbound.
    With Ctrl (Cmd) held only the chords count, so Ctrl+S saves and never also takes a screenshot."""
    global _codes, _chords
    if _codes is None:
        _codes, _chords = codes(), chords()
    import arcade.key
    if modifiers & arcade.key.MOD_ACCEL:
        action = _chords.get((symbol, bool(modifiers & arcade.key.MOD_SHIFT)))
        return None if action is None else (action, None)
    return _codes.get(symbol)


_codes: dict | None = None
_chords: dict | None = None


def epilog() -> str:
    """The keys as one paragraph for ``--help``."""
    return "Keys in the window: " + "; ".join(f"{b.label}: {b.doc}" for b in BINDINGS) + "."


def markdown() -> str:
    """The README's key table."""
    rows = ["| key | what it does |", "|---|---|"]
    rows += [f"| {b.label} | {b.doc} |" for b in BINDINGS]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
