"""Draw dots: every dot of a grid as a round, anti-aliased disc, in one draw call.

Reads: DotGrid, DotColours, DotStyle, Layer, Frame.width/height/theme. Writes: the framebuffer.

Instanced quads: one unit quad, and per dot its origin (uploaded once per
layout), its offset and its colour (streamed into reused GL buffers each
frame, float32). The grid never clears the framebuffer — the scene does, with
the level's background — so it composes under any layer drawn after it; a
layer that wants its own background asks with `background` (alpha above 0) and
gets one full-window quad under its dots.

Theme: on the light theme a dot's colour — somewhere on the segment from
`DotColours.base` to `.active`, where the repel system eases it — is shown at
the same place on the segment from `DotStyle.light_base` to `.light_active`
(the state keeps the seed's colours; only what is drawn changes), so the
light-grey dots of a dark page are dark ones on a light page.
"""
from __future__ import annotations

import esper
import numpy as np
from arcade.gl import BufferDescription

from ropework.components.dots import DotColours, DotGrid, DotStyle
from ropework.components.render import Layer
from ropework.systems.services import gfx

_VS = """
#version 330
uniform vec2 viewport;
uniform float radius;
uniform vec3 u_base;        // the state's colour at rest and at full force ...
uniform vec3 u_active;
uniform vec3 u_show_base;   // ... and what to show for them
uniform vec3 u_show_active;
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
    vec3 d = u_active - u_base;
    float dd = dot(d, d);
    float t = dd > 0.0 ? clamp(dot(in_colour - u_base, d) / dd, 0.0, 1.0) : 0.0;
    v_colour = (u_show_base == u_base && u_show_active == u_active) ? in_colour : mix(u_show_base, u_show_active, t);
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

    def draw(self, viewport, diameter: float, colours=None, shown=None) -> None:
        """``colours``: (base, active) of the state; ``shown``: (base, active) to draw them as."""
        if not self.count:
            return
        base, active = colours if colours is not None else ((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        show = shown if shown is not None else (base, active)
        for name, v in (("u_base", base), ("u_active", active), ("u_show_base", show[0]), ("u_show_active", show[1])):
            self.program[name] = tuple(float(c) for c in v)
        self.program["viewport"] = tuple(float(v) for v in viewport)
        self.program["radius"] = float(diameter) / 2.0
        self.geometry.render(self.program, instances=self.count)


class DrawDots:
    def __init__(self):
        self._gl: dict[int, DotsGL] = {}

    def draw(self, frame, layer_name: str, ctx) -> None:
        for ent, (grid, colours, style, layer) in esper.get_components(DotGrid, DotColours, DotStyle, Layer):
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
            light = frame.theme == "light" and style.light_base is not None
            gl.draw(viewport, style.size, (colours.base, colours.active),
                    (style.light_base, style.light_active) if light else None)
