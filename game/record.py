"""``--record``: run a level off-screen, one fixed step per frame, and save PNG or GIF."""
from __future__ import annotations

from pathlib import Path

from game import script
from game.render import Offscreen, headless_window
from game.scene import Scene

GIF_FRAME_MS = 20   # ms per GIF frame: 50 fps, the fastest rate browsers honour


def record(level, out, frames: int, size=(1280, 720), seed=None, input_script=None,
           reduced_motion=None) -> Path:
    """Play ``level`` for ``frames`` steps with the scripted input and write ``out``.

    ``.png`` saves the last frame; ``.gif`` saves every frame.
    """
    out = Path(out)
    events = script.parse(input_script) if input_script else {}
    scene = Scene.load(level, size=size, seed=seed, reduced_motion=reduced_motion)
    win = headless_window(*size)
    off = Offscreen(win.ctx, size)
    images = []
    try:
        for f in range(frames):
            script.apply(scene, events.get(f, ()))
            scene.step(1)
            if out.suffix.lower() == ".gif" or f == frames - 1:
                off.render(scene)
                images.append(off.image().convert("RGB"))
    finally:
        scene.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".gif":
        pal = [im.quantize(colors=255, method=2, dither=0) for im in images]   # median cut: stable and fast
        pal[0].save(out, save_all=True, append_images=pal[1:], duration=GIF_FRAME_MS, loop=0, optimize=False,
                    disposal=1)
    else:
        images[-1].save(out)
    return out
