"""Draw dots: every dot of a grid as a round, anti-aliased disc, in one draw call.

Reads: DotGrid, DotStyle, Layer, Frame.width/height. Writes: the framebuffer.

Instanced quads: one unit quad, and per dot its origin (uploaded once per
layout), its offset and its colour (streamed into reused GL buffers each
frame, float32). The grid never clears the framebuffer — the scene does, with
the level's background — so it composes under any layer drawn after it; a
layer that wants its own background asks with `background` (alpha above 0) and
gets one full-window quad under its dots.
"""
from __future__ import annotations

import esper
import numpy as np
from arcade.gl import BufferDescription

from ropework.components.dots import DotGrid, DotStyle
from ropework.components.render import Layer
from ropework.systems.services import gfx

_VS = """
#version 330
uniform vec2 viewport;
uniform float radius;
in vec2 in_corner;      // -1..1
in vec2 in_origin;      // px
in vec2 in_offset;      // px
in vec3 in_colour;
out vec2 v_local;
out vec3 v_colour;
void main() {
    float ext = radius + 1.0;
    vec2 q = in_origin + in_offset + in_corner * ext;
    gl_Position = scene_to_clip(q, viewport);
    v_local = in_corner * ext;
    v_colour = in_colour;
}
"""

_FS = """
#version 330
uniform float radius;
in vec2 v_local;
in vec3 v_colour;
out vec4 out_colour;
void main() {
    float cover = clamp(radius + 0.5 - length(v_local), 0.0, 1.0);
    if (cover <= 0.0) discard;
    out_colour = vec4(v_colour, cover);
}
"""


class DotsGL:
    """GL state for one grid: a program, the unit quad and three reused instance buffers."""

    def __init__(self, ctx):
        self.program = ctx.program(vertex_shader=gfx.vertex_shader(_VS), fragment_shader=_FS)
        corners = np.array([[-1, -1], [1, -1], [-1, 1], [1, 1]], np.float32)
        self.origin = gfx.Stream(ctx, stride=8)
        self.offset = gfx.Stream(ctx, stride=8)
        self.colour = gfx.Stream(ctx, stride=12)
        self.layout = None       # the origin array last uploaded
        self.count = 0
        self.geometry = ctx.geometry(
            [BufferDescription(ctx.buffer(data=corners.tobytes()), "2f", ["in_corner"]),
             BufferDescription(self.origin.buffer, "2f", ["in_origin"], instanced=True),
             BufferDescription(self.offset.buffer, "2f", ["in_offset"], instanced=True),
             BufferDescription(self.colour.buffer, "3f", ["in_colour"], instanced=True)],
            mode=ctx.TRIANGLE_STRIP,
        )
        self.fill = gfx.Quads(ctx)

    def upload(self, grid: DotGrid) -> None:
        if self.layout is not grid.origin:
            self.origin.write(grid.origin)
            self.layout = grid.origin
        self.offset.write(grid.offset)
        self.colour.write(grid.colour)
        self.count = grid.n

    def draw(self, viewport, diameter: float) -> None:
        if not self.count:
            return
        self.program["viewport"] = tuple(float(v) for v in viewport)
        self.program["radius"] = float(diameter) / 2.0
        self.geometry.render(self.program, instances=self.count)


class DrawDots:
    def __init__(self):
        self._gl: dict[int, DotsGL] = {}

    def draw(self, frame, layer_name: str, ctx) -> None:
        gfx.forget_gone(self._gl)
        for ent, (grid, style, layer) in esper.get_components(DotGrid, DotStyle, Layer):
            if layer.name != layer_name:
                continue
            gl = self._gl.get(ent)
            if gl is None:
                gl = self._gl[ent] = DotsGL(ctx)
            viewport = (frame.width, frame.height)
            ctx.enable(ctx.BLEND)
            ctx.blend_func = ctx.BLEND_DEFAULT
            if style.background[3] > 0.0:
                gl.fill.upload(gfx.quads([(frame.width / 2, frame.height / 2)],
                                         (frame.width / 2 + 1, frame.height / 2 + 1), style.background, 0.0))
                gl.fill.draw(viewport)
            gl.upload(grid)
            gl.draw(viewport, style.size)
