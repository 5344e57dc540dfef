"""Makes docs/img/studio.gif: the studio in use, in a real window, with the panel.

    DISPLAY=:94 .venv/bin/python docs/scripts/studio_gif.py docs/img/studio.gif   # needs a display (Xvfb will do)

The screenshots, G and --record leave the studio's panel out (they take the scene's
frame before the overlays); this GIF is about the panel, so it takes the whole window
after each frame, and hands it to the game's own recorder (ropework.record.GifRecorder,
25 fps of fixed 1/25 s frames). The hand is scripted through the window's own event
handlers: hold the middle rope and pull it down, take its passes from 14 to 2 with the
arrow key while holding it (it stretches), let go, hang a rope by clicking the rail, undo.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import arcade
from PIL import Image

from ropework.controller import Controller
from ropework.record import GifRecorder
from ropework.scene import Scene
from ropework.window import PlayWindow

SIZE = (960, 540)        # px: the window; the GIF is scaled to 640 wide
FPS = 25
DT = 1 / FPS
ROOT = Path(__file__).resolve().parent.parent.parent


def main(out: str) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="ropework-studio-gif-"))
    level = tmp / "rope.toml"
    shutil.copy(ROOT / "levels" / "rope.toml", level)
    ctl = Controller(Scene.load(level, size=SIZE, seed=1), out_dir=tmp)
    win = PlayWindow(ctl)
    win.set_vsync(False)
    rec = GifRecorder(max_width=640)
    h = SIZE[1]

    def frame(n: int = 1, each=None) -> None:
        for i in range(n):
            if each is not None:
                each(i)
            win.dispatch_events()
            win.on_update(DT)
            win.on_draw()
            w, hh = win.get_framebuffer_size()
            im = Image.frombytes("RGB", (w, hh), win.ctx.screen.read(viewport=(0, 0, w, hh), components=3))
            if rec.due(DT):
                rec.add(im.transpose(Image.Transpose.FLIP_TOP_BOTTOM))
            win.flip()

    ctl.do("studio")
    frame(20)
    x, tip = SIZE[0] // 2, 6 + 26 * 11                      # the middle rope's tip, scene px (y down)
    win.on_mouse_motion(x, h - tip, 0, 0)
    win.on_mouse_press(x, h - tip, arcade.MOUSE_BUTTON_LEFT, 0)
    frame(16, lambda i: win.on_mouse_drag(x, h - (tip + (i + 1) * 9), 0, -9, arcade.MOUSE_BUTTON_LEFT, 0))
    frame(12)
    win.studio.view.focus = ((0,), "passes")                # as if its slider had been touched
    frame(36, lambda i: win.on_key_press(arcade.key.LEFT, 0) if i % 3 == 0 else None)
    frame(20)
    frame(6, lambda i: win.on_mouse_drag(x + 14 * (i + 1), h - 430, 14, 0, arcade.MOUSE_BUTTON_LEFT, 0))
    win.on_mouse_release(x + 84, h - 430, arcade.MOUSE_BUTTON_LEFT, 0)
    frame(24)
    rail = int(0.3 * SIZE[0])
    win.on_mouse_press(rail, h - 7, arcade.MOUSE_BUTTON_LEFT, 0)   # on the rail: a new rope
    win.on_mouse_release(rail, h - 7, arcade.MOUSE_BUTTON_LEFT, 0)
    frame(30)
    win.on_key_press(arcade.key.Z, arcade.key.MOD_ACCEL)    # undo it
    frame(16)
    path = rec.save(out)
    print(f"wrote {path} ({len(rec.frames)} frames, {rec.seconds:.1f} s)")
    win.close()
    ctl.close()
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "docs" / "img" / "studio.gif"))
