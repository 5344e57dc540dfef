"""What the dot grid tests share: a level with overridden keys, the grid's arrays, the seed formulas."""
from __future__ import annotations

import numpy as np

from ropework.components.dotgrid import DotGrid, Shockwaves


def dot_level(tmp_path, theme: str = "dark", **keys) -> str:
    """Write a one-layer dotgrid level with these keys; return its path."""
    def val(v):
        return str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, str) else str(v)
    lines = ["# python -m ropework dots.toml", f'theme = "{theme}"', "[[layer]]", 'kind = "dotgrid"']
    lines += [f"{k} = {val(v).replace(chr(39), chr(34))}" for k, v in keys.items()]
    path = tmp_path / "dots.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def grid(scene) -> DotGrid:
    return scene.find(DotGrid)[0][1]


def rings(scene) -> Shockwaves:
    return scene.find(Shockwaves)[0][1]


def static_push(origin, px, py, proximity=200.0, max_push=5.0):
    """The seed's force 1 for every dot, float64[n, 2], and its factor."""
    d = np.hypot(origin[:, 0] - px, origin[:, 1] - py)
    f = np.where(d < proximity, 1.0 - d / proximity, 0.0)
    return unit(origin, px, py) * (max_push * f)[:, None], f


def unit(origin, x, y):
    """float64[n, 2] unit vectors from (x, y) to each origin; +x where they coincide (atan2(0, 0) = 0)."""
    v = origin.astype(np.float64) - (x, y)
    d = np.hypot(v[:, 0], v[:, 1])
    out = np.zeros_like(v)
    out[:, 0] = 1.0
    np.divide(v, d[:, None], out=out, where=d[:, None] > 0)
    return out
