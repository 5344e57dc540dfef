"""The lanyard's systems (seed 000): what the 3D badge on its strap brings to a scene.

Its frame systems (rows of `ropework.systems.FRAME`): rehang, pace, grab_card and
doze (input), breeze and drag_card (integrate), spring_card (relax) and
draw_lanyard (render). Beside them what only they use: `camera` (perspective
matrices and pointer rays), `art` (the woven strap and the drawn card faces) and
`gltf` (the card model reader). The strap itself is stepped by the shared
integrate and relax systems.
"""
