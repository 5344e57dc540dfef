"""Entity kinds a level's ``[[layer]]`` can name, by short registered name.

A kind declares its keys (a `schema.Table`) and a ``spawn`` function that creates
its entities in the current esper world. Level files name kinds only by these
names: opening a level can never import code.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from game.schema import Table


@dataclass(frozen=True)
class Kind:
    name: str
    doc: str
    schema: Table
    spawn: Callable  # spawn(cfg: dict, layer: Layer, frame: Frame) -> None
    points: Callable = lambda cfg, w, h: 0  # how many points cfg creates at w×h (for the caps)
    check: Callable | None = None  # check(cfg, level_path, key_path): file-relative checks (images); may fill cfg


KINDS: dict[str, Kind] = {}


def kind(k: Kind) -> Kind:
    KINDS[k.name] = k
    return k


def load_builtin() -> None:
    """Import every module of this package; each registers its kind."""
    import importlib
    import pkgutil
    for m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
        importlib.import_module(f"{__name__}.{m}")


load_builtin()   # importing game.kinds registers every built-in kind (plugins may build on them)
