"""The window's frame clear: the scene's background in the colour buffer, the depth buffer left alone."""
from __future__ import annotations

import ctypes

import numpy as np

from ropework.window import clear_colour


def test_the_frame_clear_writes_the_background_and_not_depth(gl_window):
    """`clear_colour` paints what arcade's ``Window.clear`` paints (the colour rounded to 8 bits) over the
    whole framebuffer, even with a scissor set, which it restores, and leaves the depth buffer as it was:
    nothing draws into the window with a depth test, and clearing it costs the software rasteriser a masked write of the
    packed depth-stencil buffer at every pixel."""
    from pyglet import gl
    ctx = gl_window.ctx
    screen = ctx.screen
    screen.use()
    w, h = 64, 32                                   # the corner read back (the whole buffer is cleared)
    bits = gl.GLint(0)
    gl.glGetFramebufferAttachmentParameteriv(gl.GL_FRAMEBUFFER, gl.GL_DEPTH, gl.GL_FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE,
                                             bits)
    colour = (0.1, 0.5, 0.77, 1.0)
    gl_window.clear(color=tuple(int(round(c * 255)) for c in colour))
    arcade_way = np.frombuffer(screen.read(viewport=(0, 0, w, h), components=4), np.uint8).reshape(h, w, 4).copy()
    gl_window.clear(color=(200, 10, 10, 255))
    gl.glClearDepth(0.25)
    gl.glClear(gl.GL_DEPTH_BUFFER_BIT)
    gl.glClearDepth(1.0)
    screen.scissor = (0, 0, 4, 4)
    try:
        clear_colour(ctx, colour)
        assert screen.scissor == (0, 0, 4, 4)
    finally:
        screen.scissor = None
    ours = np.frombuffer(screen.read(viewport=(0, 0, w, h), components=4), np.uint8).reshape(h, w, 4)
    assert np.array_equal(ours, arcade_way)
    assert (ours[..., :3] == (26, 128, 196)).all()   # outside the scissor too
    if bits.value:                                   # a framebuffer with depth: still what it was cleared to
        depth = (ctypes.c_float * (w * h))()
        gl.glReadPixels(0, 0, w, h, gl.GL_DEPTH_COMPONENT, gl.GL_FLOAT, depth)
        assert np.allclose(np.frombuffer(depth, np.float32), 0.25, atol=1e-6)
