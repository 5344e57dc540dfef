"""The studio's panel (E): a thin arcade.gui view over the model in ropework/studio.py.

A column on the right of the window lists the level ("level": its top-level keys)
and its layers; the open one shows every key its kind declares with a widget for
the key's type — a slider and a number entry for numbers, a toggle for booleans,
a drop-down for choices, a swatch and a hex entry for colours, an entry for text —
its name marked ``•`` when it differs from the default, and its one-line doc on
the line at the bottom while the pointer is over it. Every change goes to the
model, which validates and applies it; a refused value stays in its widget and
the model's one-line message shows in red.

arcade 3.3 cannot import arcade.gui without a display (its controller support
needs the X11 window code), so the panel is tested in a real window
(tests/game/test_studio_window.py) and its layout, a pure function (`plan`),
headless. The panel is drawn after the scene and the overlays, so screenshots and
recordings (taken from the scene's frame) never show it. arcade.gui draws into
its own surface and redraws it only when a widget changed, so an idle open
panel costs one textured quad a frame; a closed one costs nothing.

`plan` is the layout: a function of the model, the window size, the open
layer and the scroll, so a test finds a widget where the panel puts it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import arcade

from ropework import kinds
from ropework.schema import printable

gui = None   # arcade.gui, imported with the first panel: it needs a real window (arcade 3.3 cannot import it headless)

WIDTH = 390           # px: the panel's width
PAD = 8               # px: margin inside the panel
ROW = 26              # px between rows
LABEL = 140           # px: the key-name column
FONT = 10             # pt
BACK = (24, 26, 30, 255)          # the panel's backdrop: opaque (it is copied onto the frame, not blended)
TEXT = (235, 235, 235, 255)
DIM = (150, 165, 175, 255)        # docs and hints
MARK = (255, 196, 90, 255)        # a key changed from its default
ERROR = (255, 130, 110, 255)
SLIDER_SPAN = 4       # a key whose range is over 10× its default slides over 0..SPAN × the default (typed values go further)
NUDGES = 100          # a float slider moves 1/NUDGES of its span per arrow key (Shift: ×10)


def fitted(text: str, width: float, bold: bool = False) -> str:
    """``text``, or its longest start + "…" that fits ``width`` px at the panel's font."""
    def fits(t: str) -> bool:
        return arcade.Text(t, 0, 0, font_size=FONT, bold=bold).content_width <= width
    if fits(text):
        return text
    lo, hi = 0, len(text)
    while lo < hi:                                # the longest cut that fits: a few layouts, on a change only
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(text[:mid].rstrip() + "…") else (lo, mid - 1)
    return text[:lo].rstrip() + "…"


@dataclass(frozen=True)
class Row:
    """One row of the panel: what it shows and where (window px, y up)."""

    kind: str            # "title", "buttons", "layer", "add", "heading", "key", "entry", "add_entry"
    x: float
    y: float             # bottom
    w: float
    h: float
    where: tuple = ()    # the model's table address (ropework.studio.Studio.schema)
    name: str = ""       # the key, the array, or the layer index as text
    index: int = -1


def unit(doc: str) -> str:
    """The unit a key's doc ends with (", px/s²" → "px/s²"), or ""."""
    m = re.search(r",\s*([^\s,;()]{1,8})$", doc)
    return m.group(1) if m else ""


def slider_range(key, value) -> tuple[float, float]:
    """The span a slider covers: the key's range, or for a huge safety range a useful span
    around the default; always wide enough to hold the current value."""
    lo, hi = float(key.lo), float(key.hi)
    d = abs(key.default) if isinstance(key.default, (int, float)) and not isinstance(key.default, bool) else 0.0
    scale = max(d, 1.0)
    if hi - lo > 10 * scale:
        lo, hi = (lo if lo >= 0 else max(lo, -SLIDER_SPAN * scale)), min(hi, SLIDER_SPAN * scale)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        lo, hi = min(lo, value), max(hi, value)
    return lo, hi


def rounded(key, value: float, lo: float, hi: float):
    """A slider's value as the file should hold it: an integer, or 3 significant digits of the span."""
    if key.type == "int":
        return int(round(value))
    digits = max(0, 3 - int(math.floor(math.log10(max(hi - lo, 1e-9)))))
    return round(float(value), digits)


def plan(studio, width: float, height: float, selected: int, scroll: int = 0, prompt: bool = False) -> list[Row]:
    """Every row of the panel for the open layer ``selected`` (-1: the level's top keys)."""
    x0 = width - WIDTH + PAD
    w = WIDTH - 2 * PAD
    rows: list[Row] = []
    y = height - PAD - ROW

    def add(kind, **kw):
        nonlocal y
        rows.append(Row(kind, x0, y, w, ROW - 4, **kw))
        y -= ROW

    add("title")
    add("buttons")
    add("layer", index=-1)
    for i, _ in enumerate(studio.layers()):
        add("layer", index=i)
    add("add")
    where = () if selected < 0 else (selected,)
    add("heading", where=where)
    top = y
    bottom = PAD + ROW * (5 if prompt else 4)     # the doc and error lines, two each (and the save-as path) below
    body: list[tuple] = []
    schema = studio.schema(where)
    for name in schema.keys:
        if name != "kind":
            body.append(("key", where, name, -1))
    if where:
        cfg = studio.layers()[selected]
        for arr in schema.arrays:
            for j, _ in enumerate(cfg.get(arr) or []):
                body.append(("entry", where, arr, j))
                for name in schema.arrays[arr][0].keys:
                    body.append(("key", (selected, arr, j), name, -1))
            body.append(("add_entry", where, arr, -1))
    fits = max(1, int((top - bottom) // ROW) + 1)
    for kind, wh, name, j in body[scroll:scroll + fits]:
        add(kind, where=wh, name=name, index=j)
    return rows


def body_length(studio, selected: int) -> int:
    where = () if selected < 0 else (selected,)
    schema = studio.schema(where)
    n = len([k for k in schema.keys if k != "kind"])
    if where:
        cfg = studio.layers()[selected]
        for arr, (sub, *_r) in schema.arrays.items():
            n += len(cfg.get(arr) or []) * (1 + len(sub.keys)) + 1
    return n


class StudioView:
    """The panel for one window; ``ctl`` is the window's Controller (its ``studio`` the model)."""

    def __init__(self, window, ctl):
        global gui
        import arcade.gui
        gui = arcade.gui
        self.window, self.ctl = window, ctl
        self.ui = gui.UIManager(window)

        def on_update(dt):
            """arcade.gui sends every frame's update to every widget; of the panel's, only a text
            field being typed in uses it (its caret blinks), so only that one gets it."""
            for wd in self._fields:
                if wd.active:
                    wd.on_update(dt)
        self.ui.on_update = on_update             # what ui.enable() hands the window
        self.selected = 0
        self.scroll = 0
        self.focus: tuple | None = None       # (where, name) of the last slider touched: arrow keys nudge it
        self.hint = ""
        self._rev = None
        self._shape = None
        self._widgets: dict[tuple, object] = {}
        self._fields: list = []               # the panel's text fields (UIInputText)
        self._sliders: list = []              # and its sliders
        self._syncing = False
        self._rows: list[Row] = []
        self.enabled = False
        self.path_entry = None
        self.relayout = True                  # lay the widgets out again before the next render
        self._pending = None                  # (where, name, value) a slider was dragged to this frame
        self._key = None
        self._touch = {name: self._touched for name in (
            "on_mouse_press", "on_mouse_release", "on_mouse_scroll",
            "on_key_press", "on_key_release", "on_text", "on_text_motion", "on_text_motion_select")}
        self._touch["on_mouse_drag"] = self._dragged

    # ── shown or not ─────────────────────────────────────────────────────────
    def enable(self) -> None:
        if not self.enabled:
            self.enabled = True
            self.ui.enable()
            self.window.push_handlers(**self._touch)   # above the UI's own: sees every event first
            self._rev = self._shape = self._key = None
            self.relayout = True

    def disable(self) -> None:
        if self.enabled:
            self.enabled = False
            self.window.remove_handlers(**self._touch)
            self.ui.disable()

    def _touched(self, *args, **kwargs):
        """A press, a release, a key or text may open a drop-down or change a button's text: lay the
        panel out again. (Hover, a slider's drag and a caret only repaint their own widget, which
        arcade.gui tracks by itself; pointer motion never costs a layout.)"""
        self.relayout = True

    def _dragged(self, x, y, dx, dy, buttons, modifiers):
        """While a slider is held, a drag goes to it alone (arcade.gui would offer each of the
        several a frame to every widget of the panel, none of which wants it)."""
        held = next((s for s in self._sliders if s.pressed), None)
        if held is None:
            return None
        x_, y_ = self.ui.adjust_mouse_coordinates(x, y)
        held.dispatch_event("on_event", gui.UIMouseDragEvent(self.ui, round(x_), round(y_), dx, dy, buttons, modifiers))
        return True

    @property
    def studio(self):
        return self.ctl.studio

    def over(self, x: float, y: float) -> bool:
        """Whether window point (x, y) is on the panel (the scene does not get it)."""
        return self.enabled and x >= self.window.width - WIDTH

    @property
    def typing(self) -> bool:
        """A text field has the keyboard: keys are text, not the game's bindings."""
        return self.enabled and any(isinstance(wd, gui.UIInputText) and wd.active for wd in self._widgets.values())

    # ── each frame ───────────────────────────────────────────────────────────
    def update(self) -> None:
        st = self.studio
        if st is None:
            return
        self.flush()
        key = (st.revision, st.error, self.window.width, self.window.height, self.selected, self.scroll,
               self.ctl.save_prompt, id(st), self.hint)
        if key == self._key:
            return                                # an idle frame: nothing to look at again
        self._key = key
        self.selected = min(self.selected, len(st.layers()) - 1)
        # the widgets are built again only when the rows the panel shows change: a rope drawn or an
        # entry added below the visible rows changes none of them (building the panel's widgets is
        # hundreds of ms on a software rasteriser: a frame the drawing hand would feel)
        rows = plan(st, self.window.width, self.window.height, self.selected, self.scroll, self.ctl.save_prompt)
        shape = (self.window.width, self.window.height, self.selected, self.scroll, self.ctl.save_prompt,
                 tuple((c["name"], c["kind"], c["z"]) for c in st.layers()),
                 tuple((r.kind, r.where, r.name, r.index) for r in rows), id(st))
        if shape != self._shape:
            self._shape = shape
            self._build()
            self._rev = st.revision
        elif st.revision != self._rev:
            self._rev = st.revision
            self._sync()
        self._status()

    def flush(self) -> None:
        """Apply the value a slider was dragged to, if one waits (once a frame, and before a
        release, a key or a save, so they see it)."""
        if self._pending is not None:
            where, name, value = self._pending
            self._pending = None
            self._set(where, name, value)

    def draw(self) -> None:
        """Lay the widgets out when something may have moved them, render the ones that asked
        to (arcade.gui's own dirty flags: a hovered button, a dragged slider, a field's caret),
        then copy the panel onto the frame. An idle open panel costs the copy alone."""
        if not self.enabled:
            return
        ui, ctx = self.ui, self.window.ctx
        if self.relayout:
            self.relayout = False
            ui.execute_layout()
        if self._wants_render():
            with ctx.enabled(ctx.BLEND), ui._render_to_surface_camera.activate():
                ui._do_render()                   # renders only the widgets that asked (all, if the manager did)
        ui._get_surface(ui.DEFAULT_LAYER).draw()  # the panel: a copy of its column (`_install_blit`)
        above = [layer for layer in sorted(ui.children) if layer != ui.DEFAULT_LAYER and ui.children[layer]]
        if above:                                 # a drop-down's open list, blended over the panel
            with ui.camera.activate(), ctx.enabled(ctx.BLEND):
                for layer in above:
                    ui._get_surface(layer).draw()

    def _wants_render(self) -> bool:
        """Whether arcade.gui would render anything this frame: the manager or a widget asked."""
        if self.ui._requires_render:
            return True
        stack = [w for layer in self.ui.children.values() for w in layer]
        while stack:
            w = stack.pop()
            if w._requires_render:
                return True
            stack.extend(w.children)
        return False

    def _install_blit(self) -> None:
        """arcade.gui keeps the panel in a window-sized texture and blends all of it over every
        frame — on the software rasteriser several times the cost of a whole rope scene. The panel is opaque
        and covers only its column, so its layer is copied instead: a blit of that column's
        colour (glBlitFramebuffer), no blending, no texture fetch. Colour only: asking for the
        depth buffer too (arcade's ``copy_framebuffer``) makes the software rasteriser's blit 5-15 times
        slower, and the panel has no depth to copy."""
        surface = self.ui._get_surface(self.ui.DEFAULT_LAYER)   # arcade.gui's own surface for the layer
        if getattr(surface, "_ropework_blit", False):
            return
        window = self.window
        from pyglet import gl

        def blit(area=None):
            dst = window.ctx.active_framebuffer
            x = int((window.width - WIDTH) * window.get_pixel_ratio())
            w, h = surface.fbo.size
            before = dst.scissor
            dst.scissor = (x, 0, w - x, h)
            gl.glBindFramebuffer(gl.GL_READ_FRAMEBUFFER, surface.fbo.glo)
            gl.glBindFramebuffer(gl.GL_DRAW_FRAMEBUFFER, dst.glo)
            gl.glBlitFramebuffer(x, 0, w, h, x, 0, w, h, gl.GL_COLOR_BUFFER_BIT, gl.GL_NEAREST)
            # the blit leaves the UI surface bound for reading, which arcade does not track: bind
            # the frame again for both, or the next screenshot would read the panel's texture
            gl.glBindFramebuffer(gl.GL_FRAMEBUFFER, dst.glo)
            dst.scissor = before
        surface.draw = blit
        surface._ropework_blit = True

    # ── building the widgets ─────────────────────────────────────────────────
    def _label(self, text, x, y, w, colour=TEXT, bold=False):
        return self.ui.add(gui.UILabel(text=text, x=x, y=y, width=w, height=ROW - 6, font_size=FONT,
                                       text_color=colour, bold=bold).with_background(color=BACK))

    # Every widget gets the panel's colour as its background: a widget whose value changed then
    # renders itself alone (over its old pixels), where a transparent one makes arcade.gui render
    # the whole panel again — 100 ms a frame on the software rasteriser while a slider is dragged.

    def _button(self, text, x, y, w, on_click):
        b = self.ui.add(gui.UIFlatButton(text=text, x=x, y=y, width=w, height=ROW - 4))
        b.on_click = lambda event: on_click()
        return b

    def _build(self) -> None:
        st = self.studio
        self.ui.clear()
        self._widgets = {}
        self._asked = {}                          # the status texts asked for, before `fitted` cut them
        h = self.window.height
        self.ui.add(gui.UISpace(x=self.window.width - WIDTH, y=0, width=WIDTH, height=h, color=BACK))
        self._install_blit()
        self._rows = plan(st, self.window.width, h, self.selected, self.scroll, self.ctl.save_prompt)
        for row in self._rows:
            getattr(self, f"_row_{row.kind}")(row)
        x0, w = self.window.width - WIDTH + PAD, WIDTH - 2 * PAD
        y = PAD
        for name, at, colour in (("error", y + 2 * ROW, ERROR), ("hint", y, DIM)):
            self._widgets[name] = self.ui.add(gui.UILabel(text="", x=x0, y=at, width=w, height=2 * ROW - 4,
                                                          font_size=FONT, text_color=colour, multiline=True)
                                              .with_background(color=BACK))
        if self.ctl.save_prompt:
            self._label("save as:", x0, y + 4 * ROW, 70)
            entry = _opaque(gui.UIInputText(x=x0 + 72, y=y + 4 * ROW, width=w - 72 - 60, height=ROW - 4,
                                            text=str(st.save_target().name), font_size=FONT))
            self.ui.add(entry)
            self._button("save", x0 + w - 56, y + 4 * ROW, 56, lambda: self.ctl.save_level(entry.text))
            entry.activate()
            self.path_entry = self._widgets["path"] = entry
        self._fields = [wd for wd in self._widgets.values() if isinstance(wd, gui.UIInputText)]
        self._sliders = [wd for wd in self._widgets.values() if isinstance(wd, gui.UISlider)]
        self._sync()
        self.relayout = True

    def _row_title(self, row):
        self._widgets["title"] = self._label("", row.x, row.y, row.w, TEXT, bold=True)

    def _row_buttons(self, row):
        w = (row.w - 4 * 4) / 5
        for i, (text, act) in enumerate((("Save", self.ctl.save_level), ("Save as", self.ctl.ask_save_path),
                                         ("Undo", self.ctl.undo), ("Redo", self.ctl.redo),
                                         ("Close", self.ctl.toggle_studio))):
            self._button(text, row.x + i * (w + 4), row.y, w, act)

    def _row_layer(self, row):
        st = self.studio
        mark = "▸ " if row.index == self.selected else "  "
        if row.index < 0:
            self._button(f"{mark}level: {printable(st.path.name)}", row.x, row.y, row.w, lambda: self._select(-1))
            return
        cfg = st.layers()[row.index]
        i = row.index
        self._button(f"{mark}{cfg['name']} · {cfg['kind']} · z {cfg['z']}", row.x, row.y, row.w - 3 * 30,
                     lambda: self._select(i))
        self._button("▲", row.x + row.w - 88, row.y, 28, lambda: self._edit(st.move_layer, i, 1))
        self._button("▼", row.x + row.w - 58, row.y, 28, lambda: self._edit(st.move_layer, i, -1))
        self._button("✕", row.x + row.w - 28, row.y, 28, lambda: self._edit(st.remove_layer, i))

    def _row_add(self, row):
        names = sorted(kinds.KINDS)
        drop = self.ui.add(gui.UIDropdown(x=row.x, y=row.y, width=row.w - 110, height=ROW - 4,
                                          default=names[0], options=names))
        self._button("+ layer", row.x + row.w - 104, row.y, 104, lambda: self._add_layer(drop.value))

    def _row_heading(self, row):
        st = self.studio
        if row.where:
            cfg = st.layers()[row.where[0]]
            text = f"{cfg['name']}: {kinds.KINDS[cfg['kind']].doc}"
        else:
            text = "the level's top-level keys"
        self._label(fitted(text, row.w - 4), row.x, row.y, row.w, DIM)

    def _row_entry(self, row):
        st = self.studio
        i, j = row.where[0], row.index
        self._label(f"[[{row.name}]] {j + 1}", row.x, row.y, row.w - 40, DIM, bold=True)
        self._button("✕", row.x + row.w - 28, row.y, 28, lambda: self._edit(st.remove_entry, i, row.name, j))

    def _row_add_entry(self, row):
        st = self.studio
        i = row.where[0]
        text = f"+ {row.name}" + ("  (or click on the rail)" if row.name == "rope" else "")
        self._button(text, row.x, row.y, row.w, lambda: self._edit(st.add_entry, i, row.name))

    def _row_key(self, row):
        st = self.studio
        where, name = row.where, row.name
        key = st.key(where, name)
        self._widgets[("label", where, name)] = self._label(name, row.x + (12 if len(where) == 3 else 0), row.y,
                                                            LABEL, TEXT)
        x, w = row.x + LABEL, row.w - LABEL
        value = st.value(where, name)
        if key.type in ("int", "float") and key.lo is not None:
            lo, hi = slider_range(key, value)
            s = gui.UISlider(value=value, min_value=lo, max_value=hi, x=x, y=row.y, width=w - 80,
                             height=ROW - 4).with_background(color=BACK)
            # arcade.gui renders the whole panel again on every value; opaque, the slider repaints itself
            gui.property.unbind(s, "value", type(s).trigger_full_render)
            gui.property.bind(s, "value", type(s).trigger_render)
            self.ui.add(s)
            s.on_change = lambda e, where=where, name=name, key=key, lo=lo, hi=hi: self._slid(where, name, key, e, lo, hi)
            self._widgets[("slider", where, name)] = s
            self._entry(x + w - 76, row.y, 76, where, name, key)
        elif key.type == "bool":
            b = self._button("", x, row.y, 80, lambda where=where, name=name: self._set(where, name, not st.value(where, name)))
            self._widgets[("toggle", where, name)] = b
        elif key.type == "choice":
            d = self.ui.add(gui.UIDropdown(x=x, y=row.y, width=w, height=ROW - 4, default=str(value),
                                           options=list(key.choices)))
            d.on_change = lambda e, where=where, name=name: self._changed(where, name, e.new_value)
            self._widgets[("choice", where, name)] = d
        elif key.type == "pairs":         # a drawn rope's path, a polygon's corners: too long for a field
            self._widgets[("pairs", where, name)] = self._label(_pairs(value), x, row.y, w, DIM)
        elif key.type == "colour":
            sw = self.ui.add(gui.UISpace(x=x, y=row.y + 2, width=26, height=ROW - 8, color=_rgba(value)))
            self._widgets[("swatch", where, name)] = sw
            self._entry(x + 30, row.y, w - 30, where, name, key)
        else:
            self._entry(x, row.y, w, where, name, key)

    def _entry(self, x, y, w, where, name, key):
        e = _opaque(gui.UIInputText(x=x, y=y, width=w, height=ROW - 4, text="", font_size=FONT))
        self.ui.add(e)
        e.on_change = lambda ev, where=where, name=name, key=key: self._typed(where, name, key, ev.new_value)
        self._widgets[("entry", where, name)] = e

    # ── model → widgets ──────────────────────────────────────────────────────
    def _sync(self) -> None:
        """Show the model's values in the widgets (a widget in use keeps what the user has in it)."""
        st = self.studio
        keys: dict[tuple, dict] = {}              # each table's keys, looked up once a sync
        self._syncing = True
        try:
            for wkey, wd in self._widgets.items():
                if not isinstance(wkey, tuple):
                    continue
                kind, where, name = wkey
                if where not in keys:
                    keys[where] = st.schema(where).keys
                key, value = keys[where][name], st.value(where, name)
                if kind == "label":
                    changed = st.changed(where, name)
                    text = f"{name} •" if changed else name
                    if wd.text != text:
                        wd.text = text
                        wd.update_font(font_color=MARK if changed else TEXT)
                        self.relayout = True      # a label's text sets its least size
                elif kind == "slider" and not wd.pressed:
                    lo, hi = wd.min_value, wd.max_value
                    v = min(max(value, lo), hi)
                    if wd.value != v:
                        wd.value = v
                elif kind == "entry" and not wd.active:
                    text = _show(key, value)
                    if wd.text != text:
                        wd.layout.begin_update()  # the text's layout once, not for its removal and its insertion
                        wd.text = text
                        wd.layout.end_update()
                elif kind == "toggle":
                    text = "true" if value else "false"
                    if wd.text != text:
                        wd.text = text
                        self.relayout = True      # a button centres its text
                elif kind == "choice" and wd.value != value:
                    wd.value = value
                    self.relayout = True
                elif kind == "pairs" and wd.text != _pairs(value):
                    wd.text = _pairs(value)
                    self.relayout = True
                elif kind == "swatch" and tuple(wd.color) != _rgba(value):
                    wd.color = _rgba(value)           # (arcade.gui renders the whole panel for this one)
        finally:
            self._syncing = False

    def _status(self) -> None:
        st = self.studio
        title = f"studio · {printable(st.path.name)}" + ("  (unsaved)" if st.dirty else "") + \
            ("  (shipped: Ctrl+S saves a copy)" if st.shipped() else "")
        error = st.error
        hint = self.hint or "E closes · wheel scrolls · ← → nudge the last slider"
        for name, text in (("title", title), ("error", error), ("hint", hint)):
            if self._asked.get(name) != text:
                self._asked[name] = text
                self._widgets[name].text = fitted(text, self._widgets[name].width - 4, bold=True) \
                    if name == "title" else text          # error and hint wrap onto two lines
                self.relayout = True              # a label's text sets its least size

    # ── widgets → model ──────────────────────────────────────────────────────
    def _edit(self, fn, *args) -> None:
        fn(*args)

    def _set(self, where, name, value) -> bool:
        return self.studio.set(where, name, value)

    def _select(self, i: int) -> None:
        self.selected, self.scroll = i, 0

    def _add_layer(self, name) -> None:
        if self.studio.add_layer(name):
            self.selected = len(self.studio.layers()) - 1
            self.scroll = 0

    def _changed(self, where, name, value) -> None:
        if not self._syncing:
            self._set(where, name, value)

    def _slid(self, where, name, key, event, lo, hi) -> None:
        """A slider moved: its value waits for the frame's `update`, so a drag that sends several
        pointer events a frame validates and applies the key once a frame, with the last value."""
        if self._syncing:
            return
        if self._pending is not None and self._pending[:2] != (where, name):
            self.flush()                          # another slider's value is waiting: it goes first
        self.focus = (where, name)
        self._pending = (where, name, rounded(key, event.new_value, lo, hi))

    def _typed(self, where, name, key, text: str) -> None:
        if self._syncing:
            return
        self._set(where, name, _parse(key, text))

    def nudge(self, steps: int) -> bool:
        """Arrow keys: move the last slider touched by ``steps`` (its value, not the pointer's)."""
        if self.focus is None or self.studio is None:
            return False
        where, name = self.focus
        try:
            key = self.studio.key(where, name)
        except (IndexError, KeyError):
            self.focus = None
            return False
        value = self.studio.value(where, name)
        lo, hi = slider_range(key, value)
        step = 1 if key.type == "int" else (hi - lo) / NUDGES
        new = min(max(value + steps * step, key.lo), key.hi)
        self._set(where, name, rounded(key, new, lo, hi))
        return True

    def scroll_by(self, rows: int) -> None:
        n = body_length(self.studio, self.selected)
        self.scroll = max(0, min(self.scroll + rows, max(0, n - 3)))

    def hover(self, x: float, y: float) -> None:
        """The pointer is at (x, y): the key row under it shows its doc on the bottom line."""
        hint = ""
        if self.over(x, y):
            for row in self._rows:
                if row.kind == "key" and row.y <= y < row.y + ROW:
                    k = self.studio.key(row.where, row.name)
                    hint = f"{row.name}: {k.doc}" + (f" [{unit(k.doc)}]" if unit(k.doc) else "") + \
                        ("" if k.live else " — rebuilds the layer")
                    if k.default is not None:
                        hint += f" (default {_show(k, k.default)})"
        self.hint = hint


class WindowHooks:
    """What the window asks the studio before it does its own thing with an event; each returns
    True when the studio took the event (the window then does nothing more with it)."""

    def __init__(self, window, ctl):
        self.window, self.ctl = window, ctl
        self.view: StudioView | None = None        # made when E first opens the studio
        self.at = (0.0, 0.0)                       # the pointer on the scene, scene px (Delete removes what is there)

    def update(self) -> None:
        if self.ctl.show_studio and self.ctl.studio is not None:
            if self.view is None:
                self.view = StudioView(self.window, self.ctl)
            self.view.enable()
            self.view.update()
        elif self.view is not None:
            self.view.disable()

    def draw(self) -> None:
        if self.view is not None:
            self.view.draw()

    def _open(self) -> StudioView | None:
        return self.view if self.view is not None and self.view.enabled else None

    def key(self, symbol: int, modifiers: int) -> bool:
        view = self._open()
        if view is None:
            return False
        view.flush()
        if view.typing:          # keys are text for the field; Enter confirms a save-as path
            if symbol in (arcade.key.ENTER, arcade.key.NUM_ENTER) and self.ctl.save_prompt and view.path_entry:
                self.ctl.save_level(view.path_entry.text)
            elif symbol == arcade.key.ESCAPE and self.ctl.save_prompt:
                self.ctl.save_prompt = False
            return True
        if symbol == arcade.key.DELETE and self.ctl.studio is not None:
            if not self.ctl.studio.remove_at(*self.at):
                self.ctl.flash("Delete removes the collider under the pointer: none there")
            return True
        if symbol in (arcade.key.LEFT, arcade.key.RIGHT) and not modifiers & arcade.key.MOD_ACCEL:
            step = (1 if symbol == arcade.key.RIGHT else -1) * (10 if modifiers & arcade.key.MOD_SHIFT else 1)
            return view.nudge(step)
        return False

    def pointer(self, kind: str, x: float, y: float) -> bool:
        """A pointer event at window (x, y), y up: the panel's, the studio's on the scene, or the scene's."""
        view = self._open()
        if view is None:
            return False
        if kind == "move":
            view.hover(x, y)
            self.at = (x, self.window.scene.height - y)
        elif kind == "up":
            view.flush()                         # a slider's drag ends with its last value, in the same undo step
        if view.over(x, y) and kind in ("down", "move"):
            return True
        return self.ctl.studio_pointer(kind, x, self.window.scene.height - y)

    def scroll(self, x: float, y: float, dy: float) -> bool:
        """The wheel: over the panel it scrolls the keys, over a collider it turns it."""
        view = self._open()
        if view is None:
            return False
        if not view.over(x, y):
            return self.ctl.studio.turn(x, self.window.scene.height - y, dy) if self.ctl.studio is not None else False
        view.scroll_by(-int(math.copysign(1, dy)) * 3 if dy else 0)
        return True


def _opaque(entry):
    """A text field with the panel's backdrop. arcade.gui renders the whole panel again on each of a
    field's keystrokes, caret blinks and focus changes, in case it is transparent; this one is
    opaque, so it repaints only itself (its own pixels cover the old ones)."""
    entry.with_background(color=BACK)
    entry.trigger_full_render = entry.trigger_render
    return entry


def _rgba(colour) -> tuple:
    try:
        s = str(colour).lstrip("#")
        return tuple(int(s[i:i + 2], 16) for i in range(0, len(s), 2)) + ((255,) if len(s) == 6 else ())
    except ValueError:
        return (0, 0, 0, 0)


def _pairs(value) -> str:
    return f"{len(value)} [x, y] pairs" if value else "none"


def _show(key, value) -> str:
    if key.type == "names":
        return ", ".join(value)
    if key.type == "pair":
        return ", ".join(f"{v:.6g}" for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _parse(key, text: str):
    """What a typed value means for the key; text that is no number stays text, so the model
    refuses it with validate's message ("expected an integer …, found string '1x'")."""
    t = text.strip()
    if key.type == "int":
        try:
            return int(t)
        except ValueError:
            return text
    if key.type == "float":
        try:
            return float(t)
        except ValueError:
            return text
    if key.type == "names":
        return [n.strip() for n in t.split(",") if n.strip()]
    if key.type == "pair":                # "0.5, 0.25" or "[0.5, 0.25]"
        try:
            return [float(v) for v in t.strip("[]").split(",")]
        except ValueError:
            return text
    return text
