"""Entity kinds a level's ``[[layer]]`` can name, by short registered name.

A kind is a toy's unit: its keys (a `schema.Table`), a ``spawn`` function that
creates its entities in the current esper world, the systems it brings into a
scene (`ropework.systems.FRAME` names, or a plugin's), what the statistics
overlay counts for it, and the pointer's shape over it. Each built-in toy
registers its kind from a ``plugin()`` function made by `toy`, which calls
`kind` as a third-party plugin does (`ropework.plugins`). Level files name kinds only by these names:
opening a level can never import code.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ropework.cost import Work
from ropework.schema import Table


@dataclass(frozen=True)
class Kind:
    name: str
    doc: str
    schema: Table
    spawn: Callable  # spawn(cfg: dict, layer: Layer, frame: Frame) -> None
    points: Callable = lambda cfg, w, h: 0  # how many points cfg creates at w×h (for the caps)
    # weight(cfg, w, h): memory the layer holds beyond its points, in points' worth, counted with them
    # against the scene's point cap (level.MAX_POINTS), so that a layer of many small bodies stays bounded
    weight: Callable = lambda cfg, w, h: 0
    check: Callable | None = None  # check(cfg, level_path, key_path): file-relative checks (images); may fill cfg
    systems: tuple[str, ...] = ()  # the systems a scene with this kind runs (besides the core ones)
    # (label, component class, count(component) -> int): what the statistics overlay (F) counts
    counts: tuple[tuple[str, type, Callable], ...] = ()
    # cursor(scene) -> "grab" | "grabbing" | "default" | None: the pointer's shape; None leaves it to
    # the layers below (a scene none of whose kinds names one shows "grab")
    cursor: Callable | None = None
    # the themes (T) that read well: ("light", "dark"), or one, said in the window with `theme_note`
    themes: tuple[str, ...] = ("light", "dark")
    theme_note: str = ""
    # reduced motion (M): `motion_note` says what it does here (shown when M is pressed, and in
    # docs/levels.md); still_when_reduced: the scene paints its frame and does not step (seed 001's loop)
    motion_note: str = ""
    still_when_reduced: bool = False
    # work(cfg, w, h) -> Work: what a layer of cfg costs a step, a frame and before its first step, from
    # everything its keys multiply (validate's real-time warning, and the loader's refusal past the
    # bounds of ropework.cost: MAX_STEP_MS, MAX_START_MS); a kind that leaves it counts its points only
    work: Callable = lambda cfg, w, h: Work()
    # preset name -> {key: value}: a layer's ``preset = NAME`` fills these keys before validation
    # (the layer's own keys win); the kind declares a "preset" choice key naming them
    presets: dict | None = None


KINDS: dict[str, Kind] = {}
BUILTIN = ("ropes", "cloth", "tendrils", "dotgrid", "lanyard", "composites")   # modules of this package: a toy
# each, and the composites (bridge, net, wheel, web, blob, sign), one module a kind
_loaded = False


def kind(k: Kind) -> Kind:
    """Register ``k`` under its name (a later registration of the name replaces it)."""
    KINDS[k.name] = k
    return k


def toy(k: Kind) -> Callable[[], None]:
    """The ``plugin()`` of a toy that is one kind: a function registering ``k`` with `kind`.

    Each built-in toy's module ends with ``plugin = toy(Kind(...))``; a third-party package
    whose plugin only adds a kind can name such a function in its entry point, and one that
    also adds systems calls `kind` from its own ``plugin()`` (examples/ropework-tearing).
    """
    def plugin() -> None:
        kind(k)

    plugin.__doc__ = f"Register the {k.name} kind and the systems it brings: {', '.join(k.systems) or 'none'}."
    plugin.__qualname__ = plugin.__name__ = "plugin"
    return plugin


def load_builtin() -> None:
    """Register every built-in toy once, each through its module's ``plugin()``."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib
    for name in BUILTIN:
        importlib.import_module(f"{__name__}.{name}").plugin()
