"""Draw links: a body's distance constraints as straight lines (cloth, any graph).

Reads: Points, Constraints, LinkStyle, Layer. Writes: the framebuffer.

One draw call per body whatever the number of constraints; a constraint that a
system removes (tearing) simply stops being drawn. Links that cannot light a pixel
of the bound viewport (both ends beyond one side of it: `gfx.Links`) are not sent.
"""
from __future__ import annotations

import esper

from ropework.components import Constraints, Layer, LinkStyle, Points
from ropework.systems.services import gfx


class DrawLinks:
    def __init__(self):
        self._gl: dict[int, gfx.Links] = {}
        self._spare: list = []          # GL objects of a deleted body, for the body that replaces it

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl, self._spare)
        for ent, (pts, con, style, layer) in esper.get_components(Points, Constraints, LinkStyle, Layer):
            if layer.name != layer_name:
                continue
            links = gfx.reuse(self._gl, self._spare, ent, lambda: gfx.Links(ctx))
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            links.upload(pts.pos, con.a, con.b)
            links.draw((frame.width, frame.height), style.colour, style.width)
