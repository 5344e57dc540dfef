"""Frames while ropes are drawn with the pointer: 20 ropes drawn one after another through the
controller's pointer path (a press, a stroke of several drag events a frame, the release that lays
the rope: validates the level, rebuilds the drawing layer, keeps its other ropes in motion), each
frame stepped and drawn headless at 1280×720 on the software rasteriser. Prints the worst frame
and the medians against the frame budget (1/60 s); the goal is a worst frame ≤ 1.5 × the budget.

    .venv/bin/python -m bench.draw [--ropes 20] [--level PATH] [--area X,Y,W,H]
    DISPLAY=:N .venv/bin/python -m bench.draw --window [--studio]   # the real window (Xvfb will do)

With ``--window`` the frames are the game window's own (`PlayWindow`): the pointer events go to
its handlers, then its update (the studio's panel too, open with ``--studio``), its draw (scene,
overlays, panel) and the buffer swap, each timed whole.

Run by hand, never as a test.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

os.environ.setdefault("ARCADE_HEADLESS", "1")

SANDBOX = """title = "sandbox"
[[layer]]
kind = "ropes"
draw = true
rail = false
grab_radius = 12
[[layer.rope]]
anchor = 0.97
[[layer.collider]]
shape = "box"
at = [0.5, 0.8]
size = [600, 20]
angle = 8
[[layer.collider]]
shape = "circle"
at = [0.2, 0.55]
radius = 40
"""
BUDGET = 1000 / 60        # ms a frame at 60 FPS
FRAMES_A_STROKE = 30      # frames a stroke takes: half a second of drawing
EVENTS_A_FRAME = 3        # drag events a frame, as a real pointer sends them


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ropes", type=int, default=20)
    ap.add_argument("--level", default=None)
    ap.add_argument("--area", type=lambda v: tuple(float(x) for x in v.split(",")), default=None,
                    metavar="X,Y,W,H", help="where the strokes start, scene px (default: a row along the top left); "
                    "the playground's open room is 440,280,600,200")
    ap.add_argument("--window", action="store_true", help="time the real window's frames (needs a display)")
    ap.add_argument("--studio", action="store_true", help="with --window: the studio's panel open")
    args = ap.parse_args()
    if args.window:
        os.environ.pop("ARCADE_HEADLESS", None)
    import math

    from ropework.controller import Controller
    from ropework.scene import Scene
    with tempfile.TemporaryDirectory() as d:
        path = args.level
        if path is None:
            path = os.path.join(d, "sandbox.toml")
            with open(path, "w") as f:
                f.write(SANDBOX)
        from ropework.compile import warm
        from ropework.level import load
        warm(load(path))                                     # as the game does before its first frame
        ctl = Controller(Scene.load(path, size=(1280, 720)), out_dir=d)
        stroke_ms, release_ms, idle_ms = [], [], []
        lay_ms, after_ms, release_cpu = [], [], []                            # the release's parts: laying the rope, the frame

        cpu: list[float] = []                                # the same frames' CPU time, every thread of the process

        if args.window:
            import arcade
            import pyglet

            from ropework.window import PlayWindow
            win = PlayWindow((1280, 720), ctl.title)
            win.start(ctl)
            win.set_vsync(False)
            if args.studio:
                ctl.toggle_studio()
            h = 720

            def pointer(kind, x, y):       # through the window's own handlers, as pyglet hands them over
                if kind == "down":
                    win.on_mouse_press(x, h - y, arcade.MOUSE_BUTTON_LEFT, 0)
                elif kind == "move":
                    win.on_mouse_drag(x, h - y, 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
                else:
                    win.on_mouse_release(x, h - y, arcade.MOUSE_BUTTON_LEFT, 0)

            def render():
                pyglet.app.platform_event_loop.dispatch_posted_events()
                win.dispatch_events()
                win.on_update(1 / 60)
                win.on_draw()
                win.flip()
                win.ctx.finish()
        else:
            from ropework.render import Offscreen, headless_window
            hw = headless_window()
            off = Offscreen(hw.ctx, (1280, 720))

            def pointer(kind, x, y):
                ctl.draw_pointer(kind, x, y)

            def render():
                ctl.update(1 / 60)
                off.render(ctl.scene)
                hw.ctx.finish()

        def frame(into):
            t, c = time.perf_counter(), time.process_time()
            render()
            into.append((time.perf_counter() - t) * 1e3)
            cpu.append((time.process_time() - c) * 1e3)
        for _ in range(30):
            frame(idle_ms)                                   # warm: the first frames compile and upload
        idle_ms.clear()
        for r in range(args.ropes):
            if args.area:                                    # a grid of 5 across the area's width and height
                ax, ay, aw, ah = args.area
                x0, y0 = ax + (r % 5) * (aw - 90) / 4, ay + (r // 5) * (ah - 40) / max((args.ropes - 1) // 5, 1)
            else:
                x0, y0 = 60 + (r % 10) * 80, 60 + (r // 10) * 120     # left of the studio's panel
            t = time.perf_counter()
            pointer("down", x0, y0)
            press = (time.perf_counter() - t) * 1e3
            for k in range(FRAMES_A_STROKE):
                t = time.perf_counter()
                for e in range(EVENTS_A_FRAME):
                    s = (k * EVENTS_A_FRAME + e) / (FRAMES_A_STROKE * EVENTS_A_FRAME)
                    pointer("move", x0 + 90 * s, y0 + 30 * math.sin(6 * s) + 40 * s)
                extra = (time.perf_counter() - t) * 1e3 + (press if k == 0 else 0.0)
                frame(stroke_ms)
                stroke_ms[-1] += extra
            t, c = time.perf_counter(), time.process_time()
            pointer("up", x0 + 90, y0 + 40)
            extra, extra_cpu = (time.perf_counter() - t) * 1e3, (time.process_time() - c) * 1e3
            lay_ms.append(extra)
            frame(release_ms)
            after_ms.append(release_ms[-1])
            release_ms[-1] += extra
            release_cpu.append(cpu[-1] + extra_cpu)
            for _ in range(10):
                frame(idle_ms)
        drawn = sum(len(ctl.studio.drawn(i)) for i, layer in enumerate(ctl.studio.level.layers) if "rope" in layer)
        worst = max(stroke_ms + release_ms)
        print(f"{drawn} ropes drawn, {ctl.scene.point_count} points; frame budget {BUDGET:.1f} ms")
        print(f"stroke frames   median {statistics.median(stroke_ms):6.2f} ms  worst {max(stroke_ms):6.2f}")
        print(f"release frames  median {statistics.median(release_ms):6.2f} ms  worst {max(release_ms):6.2f}")
        print(f"  laying        median {statistics.median(lay_ms):6.2f} ms  worst {max(lay_ms):6.2f}")
        print(f"  its frame     median {statistics.median(after_ms):6.2f} ms  worst {max(after_ms):6.2f}")
        print(f"idle frames     median {statistics.median(idle_ms):6.2f} ms  worst {max(idle_ms):6.2f}")
        print("release frames in order, ms", " ".join(f"{v:.0f}" for v in release_ms))
        print("  their CPU time, ms       ", " ".join(f"{v:.0f}" for v in release_cpu))
        print(f"worst frame while drawing {worst:.2f} ms = {worst / BUDGET:.2f} × the budget (goal ≤ 1.5)")
        ctl.close()


if __name__ == "__main__":
    main()
