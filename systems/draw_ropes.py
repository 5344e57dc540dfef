"""Draw ropes: each rope body as smooth strokes, tip and anchor dots and its rail.

Reads: Points, Ropes, RopeStyle, Rail, Layer, Frame.theme. Writes: the framebuffer.

One stroke draw call and one quad draw call per rope body, whatever the number
of ropes: every rope of a body shares one vertex stream.
"""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Layer, Points, Rail, Ropes, RopeStyle
from ropework.systems.services import gfx

RAIL_COLOUR = {"light": (20 / 255, 20 / 255, 20 / 255, 0.14), "dark": (240 / 255, 240 / 255, 240 / 255, 0.16)}


class DrawRopes:
    def __init__(self):
        self._gl: dict[int, tuple[gfx.Strokes, gfx.Quads]] = {}
        self._spare: list = []          # GL objects of a deleted body, for the body that replaces it

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl, self._spare)
        for ent, (pts, ropes, style, layer) in esper.get_components(Points, Ropes, RopeStyle, Layer):
            if layer.name != layer_name:
                continue
            strokes, dots = gfx.reuse(self._gl, self._spare, ent, lambda: (gfx.Strokes(ctx), gfx.Quads(ctx)))
            viewport = (frame.width, frame.height)
            rail = esper.try_component(ent, Rail)
            parts = []
            if rail is not None:
                parts.append(gfx.quads([(frame.width / 2, rail.y)], (frame.width / 2, 0.5),
                                       RAIL_COLOUR[frame.theme], 0.0))
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            if rail is not None:
                dots.upload(parts[0])
                dots.draw(viewport)
            strokes.upload(pts.pos, ropes.start, ropes.count, style.colour, style.width)
            strokes.draw(viewport)
            ends = []
            for at, radius, which in ((ropes.tips, style.tip_radius, style.tip),
                                      (ropes.start, style.anchor_radius, style.anchor)):
                if radius > 0:
                    colour = style.colour if which is None else style.colour[which]
                    ends.append(gfx.quads(pts.pos[at if which is None else at[which], :2], radius, colour, 1.0))
            if ends:
                dots.upload(np.concatenate(ends))
                dots.draw(viewport)
