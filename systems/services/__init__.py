"""What systems need besides components: shared machinery with no system of their own.

gfx (arcade.gl batching), profile (the render profile: every choice that depends on
the GL implementation), hitquery (pymunk point queries), colour (level colour
strings), kernels (the numba decorator and cache), split (two threads for the
largest bodies). They live on the systems side so that no system imports the app
shell; none of them imports OpenGL until it is used.
"""
