"""Draw strain: with the strain overlay on (B), every link of a body in the colour of its stretch.

Reads: Points, Constraints, Extras.breaking, Layer, Frame.strain. Writes: the framebuffer.

A link at or below its rest length is grey; stretched, it turns amber and then red as its
length nears the ratio it breaks at (its `break_at`), so a player sees where a rope is
about to snap. A link that never breaks is measured against `UNBREAKABLE`. One draw call
per body, over the body's own drawing; nothing when the overlay is off.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Constraints, Layer, Points
from ropework.components.solve import Extras
from ropework.systems.services import gfx

UNBREAKABLE = 1.5    # the break ratio a link with none (break_at 0) is shown against: red at 150 % of its rest length
WIDTH = 3.0          # px: the overlay's links, a little wider than a rope's stroke so it covers it
# the ramp, by how far a link is from rest (0) to its break ratio (1): grey, amber half way, red
RAMP = np.array([[0.62, 0.64, 0.66, 0.9], [1.0, 0.72, 0.12, 1.0], [0.95, 0.08, 0.05, 1.0]], np.float32)


def strain(pos: np.ndarray, a: np.ndarray, b: np.ndarray, rest: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """float32[m] in 0..1: how far each link is from rest (0, or shorter) to its break ratio (1, or
    longer): (length / rest - 1) / (ratio - 1); ``ratio`` 0 is read as `UNBREAKABLE`."""
    d = pos[b, :2] - pos[a, :2]
    stretch = np.hypot(d[:, 0], d[:, 1]) / np.maximum(rest, np.float32(1e-6))
    r = np.where(ratio > 1.0, ratio, np.float32(UNBREAKABLE))
    return np.clip((stretch - 1.0) / (r - 1.0), 0.0, 1.0).astype(np.float32)


def strain_colour(s: np.ndarray) -> np.ndarray:
    """float32[m, 4]: `RAMP` at each strain, linear between its three stops."""
    s = np.asarray(s, np.float32)[:, None] * 2.0
    low = RAMP[0] + (RAMP[1] - RAMP[0]) * np.minimum(s, 1.0)
    return np.where(s <= 1.0, low, RAMP[1] + (RAMP[2] - RAMP[1]) * (s - 1.0)).astype(np.float32)


def break_ratio(con: Constraints, extras: Extras | None) -> np.ndarray:
    """float32[m]: each link's break ratio (0: never breaks)."""
    br = None if extras is None else extras.breaking
    if br is None or len(br.ratio) != len(con.a):
        return np.zeros(len(con.a), np.float32)
    return br.ratio


class DrawStrain:
    def __init__(self):
        self._gl: dict[int, gfx.TintedLinks] = {}
        self._spare: list = []          # GL objects of a deleted body, for the body that replaces it

    def draw(self, frame, layer_name: str, ctx) -> None:
        if not frame.strain:
            return
        gfx.forget_gone(self._gl, self._spare)
        for ent, (pts, con, layer) in esper.get_components(Points, Constraints, Layer):
            if layer.name != layer_name or not len(con.a):
                continue
            links = gfx.reuse(self._gl, self._spare, ent, lambda: gfx.TintedLinks(ctx))
            s = strain(pts.pos, con.a, con.b, con.rest, break_ratio(con, esper.try_component(ent, Extras)))
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            links.draw((frame.width, frame.height), pts.pos, con.a, con.b, strain_colour(s), WIDTH)
