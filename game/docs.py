"""Writes docs/levels.md from the key declarations: ``python -m ropework.docs > docs/levels.md``."""
from __future__ import annotations

from ropework import kinds
from ropework.level import LAYER_COMMON, MAX_FILE_BYTES, MAX_LAYERS, MAX_POINTS, TOP
from ropework.schema import markdown, table

INTRO = f"""# Level files

A level is a TOML file that describes one scene: a few top-level keys and one or
more `[[layer]]` tables, each naming an entity **kind** by its registered short
name. Several layers make one scene: they are drawn in ascending `z`, and a
pointer press is offered to the topmost layer first (the first that takes it —
a rope grab, a card hit — keeps it; the rest fall through).

Level files are data: they never name code to import. Every key below is
checked: a wrong type, an out-of-range value, an unknown key (with the closest
valid one suggested) or a TOML syntax error stops loading with one line naming
the file, the key path, what was expected and what was found, and exit status 2.

Caps: a file is at most {MAX_FILE_BYTES} bytes, at most {MAX_LAYERS} layers, at
most {MAX_POINTS:,} simulated points in a scene.

Coordinates are scene pixels with the origin at the top-left and y down, as in
the reference toys. Run a level with `python -m ropework levels/NAME.toml`; start
your own by copying a shipped one (each starts with a comment naming its run line).

```toml
# python -m ropework levels/mine.toml
title = "Two ropes"
theme = "dark"

[[layer]]
kind = "ropes"
passes = 20

[[layer.rope]]
anchor = 0.3
points = 30
colour = "#ff6600"

[[layer.rope]]
anchor = 0.7
points = 12
colour = "#00d4ff"
```
"""


def builtin_kinds() -> list[str]:
    """Kinds shipped with ropework (a plugin documents its own)."""
    return sorted(n for n, k in kinds.KINDS.items() if k.spawn.__module__.startswith("ropework.kinds."))


def levels_markdown() -> str:
    kinds.load_builtin()
    lines = [INTRO, "## Top-level keys", ""]
    lines += markdown("Scene", TOP)[1:]
    lines += ["## `[[layer]]` — keys every layer has", ""]
    lines += markdown("Layer", table(*LAYER_COMMON), "layer.")[1:]
    lines += ["## Entity kinds", ""]
    for name in builtin_kinds():
        k = kinds.KINDS[name]
        lines += [f"## kind = \"{name}\"", "", k.doc, ""]
        themes = " and ".join(k.themes) if len(k.themes) > 1 else f"{k.themes[0]} only ({k.theme_note}; T says so)"
        lines += [f"Themes (T): {themes}.", ""]
        if k.motion_note:
            lines += [f"Reduced motion (M, `--reduced-motion`, `reduced_motion = true`): {k.motion_note}.", ""]
        lines += markdown(f"`{name}` layer keys", k.schema, "layer.")[1:]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(levels_markdown(), end="")
