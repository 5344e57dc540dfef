"""The Arcade window that plays a scene: fixed-step clock, pointer mapping, keys, overlays.

Arcade reports the pointer in window coordinates with y up; scenes use pixels
with y down (as the seeds), so y is flipped here and nowhere else. Logical
window units are used throughout, so HiDPI framebuffers change nothing.

Everything a key or a frame does lives in game/controller.py (tested headless);
this module only forwards events to it and draws the text it says.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable

import arcade
import pyglet
from PIL import Image

from ropework import keys
from ropework.clock import DISPLAY_HZ
from ropework.controller import Controller
from ropework.scene import Scene
from ropework.stats import count_draws
from ropework.systems.services import profile

PAD = 10                       # px around overlay text, and from the window edges
PANEL = (0, 0, 0, 178)         # overlay backdrop: dark at 70 % so text reads on either theme
TEXT = (240, 240, 240, 255)
DIM = (170, 200, 205, 255)     # key names in the help, a calmer colour than the descriptions
ERROR = (255, 130, 110, 255)
STROKE = (255, 190, 60, 230)   # a rope being drawn: amber, on either theme
FONT = 12                      # pt: overlay text
BANNER_FONT = 26               # pt: a newly opened level's title
HELP_KEYS_WIDTH = 90           # px: the help's key column at least (wider when a key name needs it)
HELP_WIDTH = 560               # px: the help's heading wraps at this width
ROW = 20                       # px between help lines at FONT
FRAME_PERIOD = 1 / 60          # s between frames the window aims at when the display's rate is not known

# The controller's cursor names (CSS's) → pyglet system cursors. No platform pyglet
# drives has a closed-hand cursor among its system cursors, so "grabbing" is the
# four-way move arrow (X11 fleur, Windows IDC_SIZEALL) — except on macOS, where
# pyglet's CURSOR_SIZE is a plain arrow and the hand reads better.
CURSORS = {
    "default": arcade.Window.CURSOR_DEFAULT,
    "grab": arcade.Window.CURSOR_HAND,
    "grabbing": arcade.Window.CURSOR_HAND if sys.platform == "darwin" else arcade.Window.CURSOR_SIZE,
}


class Overlay:
    """The window's text and the dark panels behind it, created once in one pyglet batch (one draw of it a
    frame); text is laid out again, and the panels placed, only when it changes."""

    def __init__(self):
        self.batch = pyglet.graphics.Batch()
        under = pyglet.graphics.Group(order=-1)     # before every text's groups (pyglet's are order 0-2)
        self.panels = {name: pyglet.shapes.Rectangle(0, 0, 0, 0, PANEL, batch=self.batch, group=under)
                       for name in ("help", "stats", "status", "error", "banner")}

        def text(color=TEXT, **kw):
            return arcade.Text("", 0, 0, color, FONT, batch=self.batch, anchor_y="top", **kw)
        self.help_head = text(multiline=True, width=HELP_WIDTH, bold=True)
        self.help_rows = [(text(color=DIM), text()) for _ in keys.BINDINGS]   # one line per binding
        self.stats = text(multiline=True, width=420)
        self.banner = arcade.Text("", 0, 0, TEXT, BANNER_FONT, batch=self.batch, anchor_x="center",
                                  anchor_y="center", bold=True)
        self.status = text(multiline=True, width=600)   # a long error wraps instead of running off the window
        self.error = text(multiline=True, width=600, color=ERROR)
        self._size = (0, 0)
        self._help_box = (0, 0)
        self._said = None            # what `update` was last told: the size and every text

    @staticmethod
    def _set(t: arcade.Text, value: str) -> bool:
        """Show ``value`` (hidden when empty); True if anything changed."""
        if t.text != value:
            t.text = value
            changed = True
        else:
            changed = False
        if t.visible != bool(value):
            t.visible = bool(value)
            changed = True
        return changed

    def update(self, ctl: Controller, width: int, height: int) -> None:
        """Show what the controller says. Nothing is looked at again while that is what is shown: with F on,
        comparing the help's forty-odd texts and their visibility every frame was a third of the overlay's
        main-thread time."""
        said = (width, height, ctl.help_heading() if ctl.show_help else None, ctl.stats if ctl.show_stats else "",
                ctl.banner, ctl.status, ctl.error)
        if said == self._said:
            return
        self._said = said
        changed = (width, height) != self._size
        changed |= self._set(self.help_head, ctl.help_heading() if ctl.show_help else "")
        for (kt, dt), (label, doc) in zip(self.help_rows, ctl.help_rows()):
            changed |= self._set(kt, label if ctl.show_help else "")
            changed |= self._set(dt, doc if ctl.show_help else "")
        changed |= self._set(self.stats, ctl.stats if ctl.show_stats else "")
        changed |= self._set(self.banner, "" if ctl.show_help else ctl.banner)   # the help's heading has the title
        changed |= self._set(self.status, ctl.status)
        changed |= self._set(self.error, ctl.error)
        if changed:
            self._layout(width, height)
            self._place_panels()

    def _layout(self, w: int, h: int) -> None:
        self._size = (w, h)
        self.stats.position = (PAD * 2, h - PAD * 2)
        self.banner.position = (w / 2, h * 0.78)
        _wrap(self.status, max(50, w - 4 * PAD))
        self.status.position = (PAD * 2, PAD * 2 + self.status.content_height)
        _wrap(self.error, max(50, w - 4 * PAD))
        below = (self.status.content_height + PAD * 2) if self.status.visible else 0
        self.error.position = (PAD * 2, PAD * 2 + below + self.error.content_height)
        _wrap(self.help_head, max(50, min(HELP_WIDTH, w - 6 * PAD)))
        docs = max(d.content_width for _, d in self.help_rows)
        keys_w = max([HELP_KEYS_WIDTH] + [k.content_width + PAD * 2 for k, _ in self.help_rows])   # the longest key name
        head = self.help_head.content_height + ROW
        self._help_box = (max(self.help_head.content_width, keys_w + docs), head + ROW * len(self.help_rows))
        x0, y0 = (w - self._help_box[0]) / 2, (h + self._help_box[1]) / 2
        self.help_head.position = (x0, y0)
        for i, (kt, dt) in enumerate(self.help_rows):
            kt.position = (x0, y0 - head - i * ROW)
            dt.position = (x0 + keys_w, y0 - head - i * ROW)

    def draw(self) -> None:
        """Panels and text, one batch. (Drawn one by one, arcade's rectangles were ~0.28 ms of the main
        thread each a frame on the software rasteriser, the stats' and the status line's with F on.)"""
        self.batch.draw()

    def _place_panels(self) -> None:
        boxes = dict(self._panels())
        for name, rect in self.panels.items():
            rect.visible = name in boxes
            if name in boxes:
                left, right, bottom, top = boxes[name]
                rect.position = (left - PAD, bottom - PAD)
                rect.width, rect.height = right - left + 2 * PAD, top - bottom + 2 * PAD

    def _panels(self):
        """(name, (left, right, bottom, top)) of each shown text's box, px."""
        if self.help_head.visible:
            x, y = self.help_head.position
            yield "help", (x, x + self._help_box[0], y - self._help_box[1], y)
        for name, t in (("stats", self.stats), ("status", self.status), ("error", self.error)):
            if t.visible:
                x, y = t.position
                yield name, (x, x + t.content_width, y - t.content_height, y)
        if self.banner.visible:
            x, y = self.banner.position
            cw, ch = self.banner.content_width, self.banner.content_height
            yield "banner", (x - cw / 2, x + cw / 2, y - ch / 2, y + ch / 2)


def _wrap(t: arcade.Text, width: int) -> None:
    """Wrap ``t`` at ``width``; pyglet lays a text out again at every width it is given, the same one too."""
    if t.width != width:
        t.width = width


def display_period(window, hz: float | None = None) -> float:
    """Seconds between the window's frames: 1/``hz`` if given, else one refresh of the screen the
    window is on (its mode's rate, where the platform reports one), else FRAME_PERIOD. The simulation
    steps 1/60 s whatever this is; the frames between steps are drawn interpolated (`Scene.draw`)."""
    if hz is None:
        try:
            hz = float(window.screen.get_mode().rate)
        except Exception:  # noqa: BLE001  no mode (Xvfb without RandR, a headless context): the default
            hz = None
    if hz is None or not DISPLAY_HZ[0] <= hz <= DISPLAY_HZ[1]:
        return FRAME_PERIOD
    return 1.0 / hz


def next_due(due: float, now: float, period: float = FRAME_PERIOD) -> float:
    """When the frame after one that was ``due`` and started at ``now`` is due: one period later,
    so lateness is not carried into the rate; more than a period behind, one period after now."""
    return (now if now - due > period else due) + period


def clear_colour(ctx, colour) -> None:
    """Clear the window's colour buffer to ``colour`` (r, g, b[, a], 0..1, rounded to 8 bits as
    arcade's ``Window.clear`` does), not its depth buffer: nothing draws into the window with a depth test (the
    lanyard's 3D layer has a framebuffer and depth texture of its own), and arcade's clear also clears
    depth, which the window's packed 24-bit depth and 8-bit stencil buffer makes a masked write of
    every pixel: on the software rasteriser at 1280×720 a colour and depth clear costs 2.9-4.8 ms of CPU, colour
    alone 0.8-1.3."""
    from pyglet import gl
    screen = ctx.screen
    screen.use()
    saved = screen.scissor
    screen.scissor = None
    rgba = [int(round(c * 255)) / 255 for c in colour] + [1.0] * (4 - len(colour))
    gl.glClearColor(*rgba[:4])
    gl.glClear(gl.GL_COLOR_BUFFER_BIT)
    screen.scissor = saved


class PlayWindow(arcade.Window):
    """The game's window. Opened before its scene exists (`show_notice` can speak while the
    scene's kernels compile); `start` hands it the controller, before any event is dispatched."""

    def __init__(self, size: tuple[int, int], title: str, hz: float | None = None):
        # The window's multisampling is the render profile's (`profile.Profile.window_samples`: none
        # on a software rasteriser, where 4 samples a pixel cost more than the scene; 4 on a GPU). It is
        # fixed here, before this window's context exists: `profile.window_samples` answers from
        # ROPEWORK_GL_PROFILE, else from a probe of the display's GL through a hidden 1×1 window.
        samples = profile.window_samples()
        super().__init__(int(size[0]), int(size[1]), f"ropework — {title}", resizable=True,
                         antialiasing=samples > 1, samples=max(samples, 1))
        self.overlay = Overlay()
        self.period = display_period(self, hz)     # s between frames: the display's refresh (`display_period`)
        # Frames on a fixed grid of the period. Arcade's pyglet interval re-arms from the time
        # it was *called*, so every late wake-up (the event loop's select, a busy core) is added
        # to the period for good: 58–59 FPS where 60 fit. Here each frame is due one period after
        # the previous one was due; a frame that overran starts at once, and one more than a
        # period behind starts the grid again from now instead of bursting to catch up.
        pyglet.clock.unschedule(self._dispatch_frame)
        self._due = 0.0                            # perf_counter time the next frame is due; 0: not started
        self._last_tick = 0.0
        pyglet.clock.schedule_once(self._tick, 0.0)
        self._cursor = ""                          # the cursor name shown; "" until the first sync
        self._cursors: dict = {}                   # pyglet cursors made so far, by name (made once each)

    def show_notice(self, text: str) -> None:
        """Paint one frame saying ``text`` (and nothing else) now: the scene is not built yet."""
        self.switch_to()
        self.clear(color=(17, 17, 19, 255))
        self.default_camera.use()
        arcade.Text(text.removeprefix("ropework: "), self.width / 2, self.height / 2, TEXT, FONT,
                    anchor_x="center", anchor_y="center", multiline=True, width=max(1, min(600, self.width - 2 * PAD)),
                    align="center").draw()
        self.flip()

    def start(self, ctl: Controller) -> None:
        self.ctl = ctl
        self._revision = ctl.revision
        self._last_draw = time.perf_counter()
        self._sync_cursor()
        from ropework.studio_view import WindowHooks  # the studio's panel (E); built when first opened
        self.studio = WindowHooks(self, ctl)

    def _tick(self, _dt: float) -> None:
        now = time.perf_counter()
        dt = now - self._last_tick if self._last_tick else self.period
        self._last_tick = now
        self._due = next_due(self._due, now, self.period)
        if self.closed:
            return
        try:
            self._dispatch_updates(dt)                     # on_update (and arcade's fixed updates)
            if not self.closed:
                self.draw(dt)                              # on_draw, then the buffer swap
        finally:
            if not self.closed:
                pyglet.clock.schedule_once(self._tick, max(0.0, self._due - time.perf_counter()))

    @property
    def scene(self) -> Scene:
        return self.ctl.scene

    # ── frame ────────────────────────────────────────────────────────────────
    # Every handler runs through ctl.guard: an exception from a level, a reload, a draw
    # or a key becomes a one-line message and the window plays on with the last good scene.
    def on_update(self, delta_time: float):
        self.ctl.guard("update", self._update, delta_time)

    def _update(self, delta_time: float):
        self.ctl.update(delta_time)
        self.studio.update()
        self._sync_cursor()
        if self.ctl.revision != self._revision:            # a level opened or reloaded
            self._revision = self.ctl.revision
            self.set_caption(f"ropework — {self.ctl.title}")
            if (self.scene.width, self.scene.height) != (self.width, self.height) and self.width > 0:
                self.ctl.resize(self.width, self.height)

    def on_draw(self):
        self.ctl.guard("draw", self._draw_scene)
        self.ctx.screen.use()                              # a draw that failed half-way may have left its own bound
        self.ctl.guard("draw", self._draw_overlay)

    def _draw_scene(self):
        clear_colour(self.ctx, self.scene.background)
        with count_draws() as calls:
            self.scene.draw(self.ctx, self.ctl.alpha)
        now = time.perf_counter()
        dt, self._last_draw = now - self._last_draw, now
        self.ctl.frame(dt, self._grab, calls[0])

    def _draw_overlay(self):
        self.default_camera.use()
        self.ctx.enable(self.ctx.BLEND)
        self.ctx.blend_func = self.ctx.BLEND_DEFAULT
        self.overlay.update(self.ctl, self.width, self.height)
        self.overlay.draw()
        stroke = self.ctl.pen.stroke
        if stroke is not None and len(stroke) > 1:        # the rope being drawn, until the release lays it
            h = self.scene.height
            arcade.draw_line_strip([(x, h - y) for x, y in stroke], STROKE, 2)
        self.studio.draw()                    # after the capture and the overlays: never in a screenshot

    def _sync_cursor(self) -> None:
        """Show the cursor the controller names; the system is asked only when the name changes."""
        name = self.ctl.cursor()
        if name != self._cursor:
            self._cursor = name
            if name not in self._cursors:
                self._cursors[name] = self.get_system_mouse_cursor(CURSORS[name])
            self.set_mouse_cursor(self._cursors[name])

    def _grab(self) -> Image.Image:
        """What the scene drew this frame (overlays come after, so they are not in captures)."""
        w, h = self.get_framebuffer_size()
        data = self.ctx.screen.read(viewport=(0, 0, w, h), components=3)
        return Image.frombytes("RGB", (w, h), data).transpose(Image.Transpose.FLIP_TOP_BOTTOM)

    def on_resize(self, width: int, height: int):
        super().on_resize(width, height)
        if width > 0 and height > 0:          # minimised windows report 0×0
            self.ctl.guard("resize", self.ctl.resize, width, height)

    def on_hide(self):
        self.ctl.clock.pause()

    def on_show(self):
        self.ctl.clock.resume()

    def on_close(self):
        # The window goes at once; a recording in progress is saved after it has gone (play()'s
        # ctl.close()), not while it stays on screen for the seconds a GIF takes to encode.
        super().on_close()

    # ── pointer ──────────────────────────────────────────────────────────────
    def _scene_y(self, y: float) -> float:
        return self.scene.height - y

    def on_mouse_motion(self, x, y, dx, dy):
        if self.ctl.rewinding:                # the scene is the past's: its input is the ring's
            return
        if self.studio.pointer("move", x, y):
            return
        self.ctl.guard("pointer", self.scene.pointer_move, x, self._scene_y(y))

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        if self.ctl.rewinding:                # the scene is the past's: its input is the ring's
            return
        if self.studio.pointer("move", x, y):
            return
        if self.ctl.guard("pointer", self.ctl.draw_pointer, "move", x, self._scene_y(y)):
            return
        if 0 <= x < self.width and 0 <= y < self.height:
            self.ctl.guard("pointer", self.scene.pointer_move, x, self._scene_y(y))
        else:
            self.ctl.guard("pointer", self.scene.pointer_leave)   # dragged out of the window: the grab ends, as the seed

    def on_mouse_press(self, x, y, button, modifiers):
        if self.ctl.rewinding:                # the scene is the past's: its input is the ring's
            return
        if self.studio.pointer("down", x, y):
            return
        if self.ctl.guard("pointer", self.ctl.draw_pointer, "down", x, self._scene_y(y),
                          bool(modifiers & arcade.key.MOD_SHIFT)):
            return                            # a stroke starts: a rope is drawn, nothing is grabbed
        self.ctl.guard("pointer", self.scene.pointer_down, x, self._scene_y(y))

    def on_mouse_release(self, x, y, button, modifiers):
        if self.ctl.rewinding:
            return
        self.studio.pointer("up", x, y)
        if self.ctl.guard("pointer", self.ctl.draw_pointer, "up", x, self._scene_y(y)):
            return
        self.ctl.guard("pointer", self.scene.pointer_up, x, self._scene_y(y))

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y):
        self.studio.scroll(x, y, scroll_y)

    def on_mouse_leave(self, x, y):
        if not self.ctl.rewinding:
            self.ctl.guard("pointer", self.ctl.draw_pointer, "leave", x, self._scene_y(y))   # a stroke ends here
            self.ctl.guard("pointer", self.scene.pointer_leave)

    def on_deactivate(self):
        self.ctl.guard("rewind", self.ctl.stop_rewind)         # the rewind key's release goes elsewhere now
        self.ctl.pen.cancel()
        self.ctl.guard("pointer", self.scene.pointer_leave)   # focus lost mid-drag: let go

    # ── keys (the table is game/keys.py, the effects game/controller.py) ────
    def on_key_press(self, symbol, modifiers):
        if self.studio.key(symbol, modifiers):
            return
        self.ctl.guard("key", self.ctl.press, symbol, modifiers)
        if self.ctl.quit:
            self.close()

    def on_key_release(self, symbol, modifiers):
        self.ctl.guard("key", self.ctl.release, symbol, modifiers)


def play(build: Callable[[], Scene], size: tuple[int, int], title: str, reduced_motion: bool | None = None,
         notice: str | None = None, snapshot=None, hz: float | None = None) -> None:
    """Open the window, say ``notice`` in it (a first run's compile) before ``build()`` makes the
    scene, then run until Esc or the window's close button; then save a recording in progress."""
    window = PlayWindow(size, title, hz)
    if notice:
        window.show_notice(notice)
    ctl = Controller(build(), reduced_motion=reduced_motion)
    ctl.last_snapshot = snapshot              # --from's: L goes back to it
    window.start(ctl)
    try:
        arcade.run()
    finally:
        if not window.closed:
            window.close()                    # an exception left it open: it goes first, as on Esc
        ctl.close()                           # the recording's GIF is written now, the window already gone
        del window
