"""The tendrils' systems (seed 002): what a bundle of glowing ropes on the pointer brings to a scene.

Its frame systems (rows of `ropework.systems.FRAME`): autopilot and orbit
(input), electrify and blow (integrate), emit_sparks and fly_sparks (emit) and
draw_tendrils (render). The ropes themselves are stepped by the shared integrate
and relax systems.
"""
