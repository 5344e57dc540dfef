"""Live keys: how a running layer takes a new value in place, declared with each `Key`.

A key declared ``Key(..., live=into(Constraints, "passes"))`` reaches the running
body on the next step when the studio (E) changes it; a key with no ``live``
rebuilds its layer. The functions here build the common appliers; each is called
``live(body, cfg, name)`` with ``body.get(ComponentClass)`` → the layer's
component (or None), ``body.frame`` → the scene's `Frame`, ``body.before`` → the
layer's table before the change, and ``cfg`` the layer's new validated table (every
default filled in). An applier that finds the running body other than its keys alone
describe raises `Rebuild`, and the layer is spawned again instead.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np


class Rebuild(Exception):
    """Raised by a live applier that cannot take the value in place: the layer is spawned again."""


def into(cls: type, attr: str, convert: Callable | None = None) -> Callable:
    """An applier that stores the key's value (``convert``-ed) as ``cls.attr``."""
    def live(body, cfg, name):
        comp = body.get(cls)
        if comp is not None:
            value = cfg[name]
            setattr(comp, attr, value if convert is None else convert(value))
    live.__qualname__ = f"into({cls.__name__}.{attr})"
    return live


def vector(cls: type, attr: str, axis: int) -> Callable:
    """An applier that stores the key's value as component ``axis`` of the array ``cls.attr``."""
    def live(body, cfg, name):
        comp = body.get(cls)
        if comp is not None:
            getattr(comp, attr)[axis] = cfg[name]
    live.__qualname__ = f"vector({cls.__name__}.{attr}[{axis}])"
    return live


def metadata(body, cfg, name) -> None:
    """A key nothing running reads (a title, a description): the new value is simply kept."""


def f32(v) -> np.ndarray:
    return np.asarray(v, np.float32)
