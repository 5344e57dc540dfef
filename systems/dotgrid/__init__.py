"""The dot grid's systems (seed 000, section 03): what a reactive grid of dots brings to a scene.

Its frame systems (rows of `ropework.systems.FRAME`): ripple (input: an
unclaimed click starts a ring), repel (integrate: pushes, rings, springs and
colours) and draw_dots (render). A dot grid is not a body: the shared integrate
and relax systems never see it.
"""
