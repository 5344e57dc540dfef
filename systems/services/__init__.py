"""What systems need besides components: shared machinery with no system of their own.

gfx (arcade.gl batching), camera (perspective maths), hitquery (pymunk point
queries), colour (level colour strings), lanyard_art (the strap and card
textures), kernels (the numba decorator and cache), split (two threads for the
largest bodies). They live on the systems side so that no system imports the app
shell; none of them imports OpenGL until it is used.
"""
