"""Shared by the composite kinds' tests: a scene of one level text, and its body's arrays."""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Constraints, Pins, Points
from ropework.scene import Scene

SIZE = (1280, 720)   # px: the default window, as validate checks


def scene_of(tmp_path, text: str, size=SIZE, name="level.toml") -> Scene:
    f = tmp_path / name
    f.write_text(text)
    return Scene.load(f, size=size)


def body(scene: Scene, index: int = 0):
    """(Points, Constraints, Pins) of the scene's ``index``-th body."""
    with scene.active():
        bodies = sorted(esper.get_components(Points, Constraints, Pins), key=lambda e: e[0])
        return bodies[index][1]


def stretch(pts: Points, con: Constraints) -> np.ndarray:
    """Each link's length over its rest length, minus 1."""
    d = np.linalg.norm(pts.pos[con.b].astype(np.float64) - pts.pos[con.a], axis=1)
    return d / con.rest - 1.0
