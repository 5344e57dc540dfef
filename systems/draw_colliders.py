"""Draw colliders: every collider of a body as its outline, one line draw call per body.

Reads: Colliders, Layer, Frame. Writes: the framebuffer.

The outlines are rebuilt from the shapes each frame (a kinematic one moves): a few hundred
vertices at most, numpy per collider. One grey that reads on both themes' backgrounds.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Layer
from ropework.components.collider import PLANE, Colliders
from ropework.systems.services import gfx
from ropework.systems.services.contact import outline

COLOUR = (0.5, 0.52, 0.56, 0.95)   # mid grey: the same look on the light (#f4f4f4) and dark (#141418) grounds
WIDTH = 2.0                         # px


class DrawColliders:
    def __init__(self):
        self._gl: dict[int, gfx.Links] = {}
        self._spare: list = []          # GL objects of a deleted body, for the body that replaces it

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl, self._spare)
        for ent, (col, layer) in esper.get_components(Colliders, Layer):
            if layer.name != layer_name:
                continue
            loops = [outline(col, i, frame.width, frame.height) for i in range(len(col.shape))]
            pos = np.concatenate(loops)
            start = np.r_[0, np.cumsum([len(p) for p in loops])[:-1]]
            a, b = [], []
            for s, p, shape in zip(start, loops, col.shape):
                k = np.arange(len(p))
                closed = shape != PLANE
                a.append(s + (k if closed else k[:-1]))
                b.append(s + ((k + 1) % len(p) if closed else k[1:]))
            links = gfx.reuse(self._gl, self._spare, ent, lambda: gfx.Links(ctx))
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            links.upload(pos, np.concatenate(a).astype(np.int32), np.concatenate(b).astype(np.int32))
            links.draw((frame.width, frame.height), COLOUR, WIDTH)
