"""What keys and frames do to the running toy — the window's logic, with no window.

The window (game/window.py) forwards each key press, frame time and drawn
image here and draws the text this class says; so every key's effect, level
switching, hot reload and capture run (and are tested) headless. The keys
themselves are the table in game/keys.py.

    ctl = Controller(Scene.load("levels/rope.toml"), out_dir="/tmp")
    ctl.press(arcade.key.N)    # or ctl.do("next")
    ctl.update(1 / 60)         # steps the scene, polls the level file
"""
from __future__ import annotations

import os
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import esper

from ropework import keys, level, script
from ropework.clock import Clock
from ropework.record import GifRecorder, OutputError, atomic, check_target
from ropework.reload import LevelWatcher, one_line
from ropework.rewind import Ring
from ropework.scene import Scene
from ropework.schema import LevelError, printable
from ropework.stats import Rates, elements

BANNER_SECONDS = 2.0   # s a newly opened level's title stays on screen: long enough to read, then out of the way
CAPTURE_STEM_CHARS = 48   # characters of the level's name a capture's file name keeps (≤ 192 bytes): a level
                          # named up to the system's 255 bytes still saves its screenshots and snapshots
STATUS_SECONDS = 4.0   # s a one-line message (screenshot saved, no such level) stays
HINT_SECONDS = 6.0     # s the first-start hint stays
HINT = "H shows the keys"
REWIND_STEPS = 2       # steps back a frame while the rewind key (←) is held: the last 10 s in 5
REWIND_BUDGET = 1 / 60 # s of re-simulation a rewinding frame spends at most (a heavy scene shows its held states)
MESSAGE_MAX_DT = 0.1   # s: a stalled frame (first-step compile, a drag of the window) counts this much toward messages


class Controller:
    def __init__(self, scene: Scene, levels=None, reduced_motion: bool | None = None, out_dir="."):
        self.scene = scene
        self.levels = [Path(p).resolve() for p in (level.shipped() if levels is None else levels)]
        self.reduced_motion = reduced_motion   # None: each level's own; M sets the player's choice
        self.out_dir = Path(out_dir)
        self.clock = Clock()
        self.rates = Rates()
        self.watcher = LevelWatcher(scene.level.path)
        self.paused = self.show_help = self.show_stats = self.quit = False
        self.draw_calls = 0
        self.now = 0.0                      # s of frame time since start: messages expire by it
        self.revision = 0                   # +1 whenever a new scene replaces the old (title, caption)
        self.recorder: GifRecorder | None = None
        self._shot = False
        self._savers: list[threading.Thread] = []
        self._banner = (scene.level.title, BANNER_SECONDS)
        self._status = (HINT, HINT_SECONDS)
        self._stats = ""
        self._complaint = ""                # the last error printed to stderr (printed once, shown while it lasts)
        self._actions = {
            "help": self.toggle_help, "stats": self.toggle_stats, "next": self.next_level,
            "previous": self.previous_level, "level": self.open_number, "pause": self.pause,
            "step": self.step_once, "reset": self.reset, "theme": self.theme, "motion": self.motion,
            "screenshot": self.screenshot, "record": self.record, "quit": self.request_quit,
            "snapshot": self.save_snapshot, "restore": self.restore_snapshot, "input": self.record_input,
            "rewind": self.start_rewind, "interpolate": self.toggle_interpolation,
        }
        self.ring = Ring()
        self.rewinding = False
        scene.tap = self._tap
        self.last_snapshot: Path | None = None   # what L goes back to: the last K saved, or --from's
        self.input: script.Recorder | None = None
        self._input_paths: tuple[Path, Path] | None = None   # (script, its start snapshot) while I records
        self.studio = None          # the studio's model (ropework.studio), made when it is first needed
        self.show_studio = False
        self.save_prompt = False    # the studio's panel asks for a path (Ctrl+Shift+S)
        self._actions.update(studio=self.toggle_studio, save=self.save_level, save_as=self.ask_save_path,
                             undo=self.undo, redo=self.redo)
        from ropework.draw import Pen
        self.pen = Pen()            # a rope being drawn with the pointer (ropework.draw)
        self._actions.update(pin_end=self.pin_end, undraw=self.undraw, strain=self.toggle_strain)
        self._ready_to_draw()
        assert set(self._actions) == {b.action for b in keys.BINDINGS}, "game/keys.py and the actions disagree"

    # ── keys ─────────────────────────────────────────────────────────────────
    def press(self, symbol: int, modifiers: int = 0) -> bool:
        """Run the action bound to an arcade key code (and modifiers, for the Ctrl chords); False if unbound."""
        found = keys.lookup(symbol, modifiers)
        if found is None:
            return False
        self.do(*found)
        return True

    def do(self, action: str, arg: int | None = None) -> None:
        if arg is None:
            self._actions[action]()
        else:
            self._actions[action](arg)

    def release(self, symbol: int, modifiers: int = 0) -> None:
        """A key came up: letting go of the rewind key (←) ends a rewind."""
        found = keys.lookup(symbol, modifiers)
        if found is not None and found[0] == "rewind":
            self.stop_rewind()

    def toggle_help(self):
        self.show_help = not self.show_help
        if self._status[0] == HINT:
            self._status = ("", 0.0)         # the hint has done its job

    def toggle_stats(self):
        self.show_stats = not self.show_stats
        self._refresh_stats()

    def pause(self):
        self.paused = not self.paused

    def step_once(self):
        if self.paused:
            self._step(1)

    def reset(self):
        self._stop_input()       # a script replays input, not the keys that rebuild the scene
        self.scene.reset()

    def theme(self):
        before = self.scene.theme
        now = self.scene.toggle_theme()
        if now == before:
            notes = [k.theme_note for k in self.scene.kinds() if len(k.themes) == 1 and k.theme_note]
            self.flash(f"{self.title} has one theme, {now}" + (f": {notes[0]}" if notes else ""))
        else:
            self.flash(f"{now} theme")
        self._refresh_stats()

    def motion(self):
        """Toggle reduced motion, and start the toy again: the seeds read it when a toy starts."""
        self._stop_input()
        self.reduced_motion = self.scene.toggle_reduced_motion()
        self.scene.reset()
        notes = [k.motion_note for k in self.scene.kinds() if k.motion_note] if self.reduced_motion else []
        self.flash(f"reduced motion {'on' if self.reduced_motion else 'off'}" + (f": {'; '.join(notes)}" if notes else ""))
        self._refresh_stats()

    def request_quit(self):
        self.quit = True

    # ── levels ───────────────────────────────────────────────────────────────
    def _index(self) -> int | None:
        path = Path(self.scene.level.path).resolve()
        return self.levels.index(path) if path in self.levels else None

    def next_level(self):
        i = self._index()
        self.open_number(0 if i is None else (i + 1) % len(self.levels))

    def previous_level(self):
        i = self._index()
        self.open_number(len(self.levels) - 1 if i is None else (i - 1) % len(self.levels))

    def open_number(self, i: int):
        if not 0 <= i < len(self.levels):
            self.flash(f"no level {i + 1}: there are {len(self.levels)} (python -m ropework --list)")
            return
        self.open(self.levels[i])

    def open(self, path) -> bool:
        """Replace the scene with the level at ``path``, at the current size; keep the old one on error."""
        before = set(esper.list_worlds())
        try:
            new = Scene.load(path, size=(self.scene.width, self.scene.height), reduced_motion=self.reduced_motion)
        except LevelError as e:
            self.flash(str(e))
            return False
        except Exception as e:  # noqa: BLE001  a level that fails to build must not take the window down
            for name in set(esper.list_worlds()) - before:               # the half-built world
                esper.delete_world(name)
            self.flash(one_line(f"{path}: could not open the level: {type(e).__name__}: {e}"))
            return False
        self._adopt(new)
        self.watcher = LevelWatcher(path)
        return True

    def _adopt(self, new: Scene, banner: str | None = None) -> None:
        self._stop_input()
        self.stop_rewind()
        old, self.scene = self.scene, new
        new.tap = self._tap
        new.strain = new.frame.strain = old.strain     # the strain overlay is the player's, not the level's
        self.pen.cancel()
        old.close()
        self.revision += 1
        if self.studio is not None:         # the studio follows: the new file, its values
            try:
                self.studio.reopen(new)
            except LevelError as e:
                self.studio, self.show_studio = None, False
                self.flash(str(e))
        self._banner = (banner or new.level.title, self.now + BANNER_SECONDS)
        self._ready_to_draw()
        self._refresh_stats()

    # ── the studio (ropework.studio: the model; ropework.studio_view: the panel) ──
    def studio_model(self):
        """The studio's model of the open level, made on first use; None (and a message) if the
        file cannot be read as a document right now."""
        if self.studio is None:
            from ropework.studio import Studio
            try:
                self.studio = Studio(self.scene)
            except LevelError as e:
                self.flash(str(e))
        return self.studio

    def toggle_studio(self):
        self.show_studio = not self.show_studio and self.studio_model() is not None
        if not self.show_studio:
            self.save_prompt = False

    def save_level(self, path=None) -> bool:
        """Write the studio's document (Ctrl+S: the open file; a shipped level: a copy here)."""
        studio = self.studio_model()
        if studio is None:
            return False
        try:
            saved = studio.save(path)
        except LevelError as e:
            self.flash(str(e))
            return False
        self.watcher = LevelWatcher(saved)   # our own write is not an outside edit to reload
        self.save_prompt = False
        print(f"saved {printable(saved)}", flush=True)
        self.flash(f"saved {saved}")
        return True

    def ask_save_path(self):
        if self.studio_model() is not None:
            self.show_studio = self.save_prompt = True

    def undo(self):
        studio = self.studio_model()
        if studio is not None:
            label = studio.history[-1].label if studio.history else ""
            self.flash(f"undo {label}" if studio.undo() else "nothing to undo")

    def redo(self):
        studio = self.studio_model()
        if studio is not None:
            label = studio.future[-1].label if studio.future else ""
            self.flash(f"redo {label}" if studio.redo() else "nothing to redo")

    def studio_pointer(self, kind: str, x: float, y: float) -> bool:
        """A pointer event on the scene while the studio is open: True if the studio took it
        (a click on a rail hangs a rope, a press on an anchor drags it)."""
        if not self.show_studio or self.studio is None:
            return False
        if kind == "down":
            return self.studio.press(x, y)
        if kind == "move":
            return self.studio.drag(x, y)
        return self.studio.release()

    # ── drawing ropes (ropework.draw) ────────────────────────────────────────
    def draw_pointer(self, kind: str, x: float, y: float, shift: bool = False) -> bool:
        """A pointer event on the scene (scene px, y down): True if a stroke took it — a press on
        empty space of a drawing layer starts one, moves extend it, the release lays the rope."""
        pen = self.pen
        if kind == "down":
            return pen.down(self.scene, x, y, any_ropes=self.show_studio, on_rope=shift)
        if not pen.drawing:
            return False
        if kind == "move":
            return pen.move(x, y)
        studio = self.studio_model()
        if studio is None:
            pen.cancel()
            return True
        if kind == "up":
            pen.move(x, y)
        said = pen.up(self.scene, studio)
        if said:
            self.flash(said)
        elif said == "":
            n = len(studio.drawn(pen.layer))
            self.flash(f"rope {n} drawn ({studio.level.layers[pen.layer]['rope'][-1]['points']} points): "
                       "O pins the end nearest the pointer, Backspace removes it")
        return True

    def _ready_to_draw(self) -> None:
        """A level that draws ropes has its studio model (the document a drawn rope goes into) made
        as it opens, with the level's load, not in the frame of the first rope drawn."""
        if self.studio is None and any(c["kind"] == "ropes" and c["draw"] for c in self.scene.level.layers):
            self.studio_model()

    def pin_end(self):
        """O: pin (or free) the drawn rope's end nearest the pointer."""
        from ropework import draw
        studio = self.studio_model()
        if studio is not None:
            ptr = self.scene.pointer
            self.flash(draw.toggle_pin(self.scene, studio, ptr.x, ptr.y, any_ropes=self.show_studio))

    def undraw(self):
        """Backspace: remove the last drawn rope of the drawing layer."""
        from ropework import draw
        i = draw.layer_index(self.scene, self.show_studio)
        studio = self.studio_model() if i is not None else None
        if studio is None:
            self.flash("no layer draws ropes here (draw = true on a ropes layer, or open the studio)")
        elif studio.remove_drawn(i):
            self.flash("removed the last drawn rope (Ctrl+Z brings it back)")
        else:
            self.flash(studio.error or "no drawn rope to remove")

    def toggle_strain(self):
        """B: colour every link by its stretch, from rest to the ratio it breaks at."""
        self.scene.strain = self.scene.frame.strain = not self.scene.strain
        self.flash(f"strain {'shown: grey at rest, red at the break ratio' if self.scene.strain else 'hidden'}")

    # ── frames ───────────────────────────────────────────────────────────────
    def update(self, dt: float) -> int:
        """A frame of ``dt`` seconds passed: poll the level file, run the fixed steps due. Returns steps run."""
        self.now += min(max(0.0, dt), MESSAGE_MAX_DT)   # messages are not missed during a stall
        new = self.guard("reload", self.watcher.tick, dt, self.scene)
        if new is not None:
            self._adopt(new, banner=f"reloaded {new.level.path.name}")
        if self.input is not None and self.scene.document != self._input_doc:   # a script holds no studio edit
            self._stop_input()
        self._check_ring()
        n = self.clock.advance(dt, self.rates.step_ms / 1000.0)
        if self.rewinding:
            self.guard("rewind", self._scrub)
            return 0
        if n and not self.paused:
            return self.guard("step", self._step, n) or 0
        return 0

    def _step(self, n: int) -> int:
        self.ring.step_cost = self.rates.step_ms / 1000.0
        t0 = time.perf_counter()
        self.scene.step(n, each=self.ring.after_step)
        self.rates.steps(n, time.perf_counter() - t0)
        return n

    @property
    def alpha(self) -> float:
        """The fraction of a step the clock holds past the last one: where between the last two steps
        a frame is drawn (`Scene.draw`). 1 (the last step itself) while paused or rewinding."""
        if self.paused or self.rewinding or not self.scene.interpolate:
            return 1.0
        return min(1.0, max(0.0, self.clock.acc / self.clock.step))

    def toggle_interpolation(self):
        self.scene.interpolate = not self.scene.interpolate
        self.scene.forget_before()
        self.flash(f"smooth frames {'on' if self.scene.interpolate else 'off: each frame shows its last step'}")

    # ── rewind (ropework.rewind) ─────────────────────────────────────────────
    def _tap(self, steps: int, kind: str, x: float, y: float) -> None:
        """Every pointer event the scene takes: to the rewind ring, and to an input recording."""
        self.ring.tap(steps, kind, x, y)
        if self.input is not None:
            self.input(steps, kind, x, y)

    def _check_ring(self) -> None:
        """Drop the ring's states when the scene is no longer the world they were taken of (another
        level, a reset, a resize, a restore, a studio edit, a theme or motion change)."""
        sc = self.scene
        key = (id(sc), sc.builds, sc.document, sc.width, sc.height, sc.theme, sc.reduced_motion)
        if key != self.ring.key:
            self.ring.clear()
            self.ring.key = key

    def start_rewind(self):
        """The rewind key (←) pressed: scrub back while it is held."""
        if self.rewinding:
            return
        self._check_ring()
        if not self.ring.states:
            big = self.ring.state_bytes > self.ring.budget
            self.flash(f"no rewind: this scene's state ({self.ring.state_bytes / 2**20:.0f} MiB) is more than the "
                       f"{self.ring.budget >> 20} MiB it may hold" if big else "nothing to rewind yet")
            return
        self._stop_input()        # a script replays input, not a rewind
        self.rewinding = True

    def _scrub(self) -> None:
        cost = self.rates.step_ms / 1000.0
        budget = max(1, int(REWIND_BUDGET / cost)) if cost > 0 else None
        self.ring.scrub(self.scene, REWIND_STEPS, budget)

    def stop_rewind(self):
        """The rewind key (←) released: play on from the step shown."""
        if not self.rewinding:
            return
        self.rewinding = False
        self.ring.resume(self.scene)
        if self.scene.pointer.down:       # a grab of the past ends: the hand is not where it was then
            self.scene.pointer_leave()
        self.flash(f"playing on from {self.scene.t:.2f} s")

    def rewind_status(self) -> str:
        ring = self.ring
        back = (self.scene.frame.steps - (ring.oldest or 0)) / 60
        held = f"holds {ring.seconds:.1f} s"
        if ring.seconds < 10.0 - 1e-9:
            held += f" ({ring.state_bytes / 2**20:.1f} MiB a state, {ring.budget >> 20} MiB at most)"
        return f"◀◀ REWIND {self.scene.t:.2f} s — {back:.1f} s more; {held} — release plays on"

    def resize(self, width: float, height: float) -> None:
        if (width, height) != (self.scene.width, self.scene.height):
            self._stop_input()
        self.scene.resize(width, height)

    def frame(self, dt: float, grab, draw_calls: int = 0) -> None:
        """The scene was drawn (``dt`` s after the last frame) with ``draw_calls`` draw calls;
        ``grab()`` returns that picture as a PIL image, for a pending screenshot or the recording."""
        self.draw_calls = draw_calls
        if self.rates.frame(dt):
            self._refresh_stats()
        if self._shot:
            self._shot = False
            try:
                path = check_target(self._capture_path(".png"))
                with atomic(path) as tmp:
                    grab().convert("RGB").save(tmp, format="PNG")
            except (OutputError, OSError) as e:                  # an unwritable folder: say so, play on
                self.complain(f"could not save the screenshot: {e}")
            else:
                print(f"saved {printable(path)}", flush=True)
                self.flash(f"saved {path}")
        if self.recorder is not None and self.recorder.due(dt):
            self.recorder.add(grab())
            if self.recorder.full:
                self.record()

    # ── pointer ──────────────────────────────────────────────────────────────
    def cursor(self) -> str:
        """The pointer's shape, by its CSS name (the seed's): "grab", "grabbing" or "default".

        The kinds decide, topmost layer first: the first kind with a `Kind.cursor`
        names it (the lanyard: "grabbing" while its card is held, "grab" over the
        card, "default" elsewhere). A scene none of whose kinds names one shows
        "grab" everywhere: its ropes and cloth can be taken anywhere (seed 001's
        canvas cursor). The window turns the name into the platform's cursor
        (ropework/window.py CURSORS).
        """
        for k in self.scene.kinds():
            if k.cursor is not None:
                return k.cursor(self.scene)
        return "grab"

    # ── capture ──────────────────────────────────────────────────────────────
    def _capture_path(self, suffix: str) -> Path:
        stem = f"ropework-{Path(self.scene.level.path).stem[:CAPTURE_STEM_CHARS]}-{datetime.now():%Y%m%d-%H%M%S}"
        path, n = self.out_dir / f"{stem}{suffix}", 1
        while path.exists():
            n += 1
            path = self.out_dir / f"{stem}-{n}{suffix}"
        return Path(os.path.abspath(path))   # not resolve(): a folder we cannot enter is reported when saving

    def screenshot(self):
        self._shot = True        # taken from the next drawn frame

    def record(self):
        """Start recording the screen to a GIF, or stop and save it (in the background)."""
        if self.recorder is None:
            self.recorder = GifRecorder()
            self.flash("recording (G stops)")
            return
        rec, self.recorder = self.recorder, None
        if not rec.frames:
            self.flash("recording stopped: no frames")
            return
        path = self._capture_path(".gif")
        self.flash(f"saving {path.name} …")
        t = threading.Thread(target=self._save, args=(rec, path), daemon=False)
        self._savers.append(t)
        t.start()

    # ── snapshots and input recording (ropework.snapshot, ropework.script) ──
    def save_snapshot(self):
        """K: the whole scene to a snapshot file here; L goes back to it."""
        path = self._capture_path(".snap")
        try:
            self.scene.snapshot(path)
        except OSError as e:
            self.complain(f"could not save the snapshot: {path}: {e.strerror or type(e).__name__}")
            return
        self.last_snapshot = path
        print(f"saved {printable(path)}", flush=True)
        self.flash(f"snapshot {path.name} (L goes back to it)")

    def restore_snapshot(self, path=None):
        """L: back to the last snapshot (or ``path``); a bad one is a notice, the scene plays on."""
        path = path or self.last_snapshot
        if path is None:
            self.flash("no snapshot yet: K saves one")
            return
        self._stop_input()
        try:
            self.scene.restore(path)
        except LevelError as e:
            self.complain(str(e))
            return
        self.last_snapshot = Path(path)
        if self.studio is not None:
            self.studio.reopen(self.scene)
        self.flash(f"back to {Path(path).name}")

    def _beside_level(self) -> Path:
        """Where an input recording goes: the level's folder, or here for a shipped level's."""
        lv = Path(self.scene.level.path).resolve()
        return self.out_dir if lv in self.levels or not os.access(lv.parent, os.W_OK) else lv.parent

    def record_input(self):
        """I: record the pointer from now as an input script beside the level (with a snapshot of
        where it starts), or stop and write it."""
        if self.input is not None:
            self._stop_input()
            return
        stem = self._capture_path(".txt").stem
        folder = self._beside_level()
        txt, snap = folder / f"{stem}-input.txt", folder / f"{stem}-input.snap"
        try:
            self.scene.snapshot(snap)
        except OSError as e:
            self.complain(f"could not start recording input: {snap}: {e.strerror or type(e).__name__}")
            return
        self.input = script.Recorder(self.scene.frame.steps)
        self._input_doc = self.scene.document
        self._input_paths = (txt, snap)
        self.flash("recording input (I stops)")

    def _stop_input(self) -> None:
        """End an input recording and write its script (nothing if none is on)."""
        rec, self.input = self.input, None
        if rec is None:
            return
        txt, snap = self._input_paths
        frames = self.scene.frame.steps - rec.start
        lv = self.scene.level.path
        head = printable(f"ropework input script: {frames} steps of {Path(lv).name} from {snap.name}\n"
                         f"python -m ropework {lv} --from {snap} --input {txt} --record out.gif "
                         f"--frames {max(1, frames)}")   # the script is UTF-8 text: its comment shows the names
        try:
            from ropework.studio import atomic_write
            atomic_write(txt, rec.text(head))
        except OSError as e:
            self.complain(f"could not save the input script: {txt}: {e.strerror or type(e).__name__}")
            return
        self.input_frames = frames
        print(printable(f"saved {txt} ({frames} steps, from {snap})"), flush=True)
        self.flash(f"saved {txt.name} ({frames} steps)" + (" — full, later input not kept" if rec.full else ""))

    def _save(self, rec: GifRecorder, path: Path) -> None:
        try:
            rec.save(path)
        except (OutputError, OSError) as e:
            self.complain(f"could not save the recording: {e}")
            return
        msg = f"saved {path} ({len(rec.frames)} frames, {rec.seconds:.1f} s)"
        print(printable(msg), flush=True)
        self.flash(msg)

    def finish(self) -> None:
        """Stop the recordings (saving them) and wait for every save; call before quitting."""
        self._stop_input()
        if self.recorder is not None:
            self.record()
        for t in self._savers:
            t.join()
        self._savers.clear()

    def close(self) -> None:
        self.finish()
        self.scene.close()

    # ── faults ───────────────────────────────────────────────────────────────
    def guard(self, what: str, fn, *args):
        """Run ``fn(*args)`` for the window; any exception becomes a one-line message, not a closed window.

        The scene stays the last good one. A step that raised pauses the scene (Space
        resumes, R resets, N opens another level) so it does not fail again every frame.
        """
        try:
            return fn(*args)
        except Exception as e:  # noqa: BLE001  the window must outlive anything a level, a reload, a draw or a key does
            if what == "step":
                self.paused = True
            self.complain(one_line(f"{what} failed: {type(e).__name__}: {e}")
                          + (" (paused: Space resumes, R resets)" if what == "step" else ""))
            return None

    def complain(self, text: str) -> None:
        """Show an error line; print it to stderr once (a draw that fails every frame prints once)."""
        text = printable(text)
        if text != self._complaint:
            self._complaint = text
            print(f"ropework: {text}", file=sys.stderr, flush=True)
        self.flash(text)

    # ── what the overlays say ────────────────────────────────────────────────
    def flash(self, text: str) -> None:
        """Show a one-line message for a few seconds (a file name's bytes that are not UTF-8 as U+FFFD)."""
        self._status = (printable(text), self.now + STATUS_SECONDS)

    @property
    def title(self) -> str:
        return self.scene.level.title

    @property
    def banner(self) -> str:
        """The level title, briefly, after a level opens."""
        text, until = self._banner
        return printable(text) if self.now < until else ""

    @property
    def status(self) -> str:
        """The bottom line: recording and pause states, else the latest message while it lasts."""
        if self.rewinding:
            return self.rewind_status()
        if self.input is not None:
            rec = f"● INPUT {(self.scene.frame.steps - self.input.start) / 60:.1f} s — I stops"
            return rec + (f"   ● REC {self.recorder.seconds:.1f} s" if self.recorder is not None else "")
        if self.recorder is not None:
            return f"● REC {self.recorder.seconds:.1f} s — G stops"
        text, until = self._status
        if self.now < until:
            return text
        return "paused — Space resumes, . steps" if self.paused else ""

    @property
    def error(self) -> str:
        """The open level file's load error, shown until a save fixes it."""
        return self.watcher.error or ""

    def help_rows(self) -> list[tuple[str, str]]:
        """(keys, what they do) for the help overlay: every binding, from game/keys.py."""
        return [(b.label, b.doc) for b in keys.BINDINGS]

    def help_heading(self) -> str:
        lv = self.scene.level
        return f"{lv.title} — {lv.description}" if lv.description else lv.title

    def _refresh_stats(self) -> None:
        counts = elements(self.scene)
        total = sum(counts.values())
        detail = ", ".join(f"{k} {v}" for k, v in counts.items())
        w, h = int(self.scene.width), int(self.scene.height)
        self._stats = "\n".join([
            self.title,
            f"{self.rates.fps:.1f} FPS",
            f"{self.rates.step_ms:.2f} ms per step",
            f"{total} elements ({detail})" if detail else "0 elements",
            f"{self.draw_calls} draw call{'' if self.draw_calls == 1 else 's'}",
            f"{w}×{h}  seed {self.scene.seed}  {self.scene.theme}"
            + ("  reduced motion" if self.scene.reduced_motion else ""),
        ])

    @property
    def stats(self) -> str:
        """The statistics overlay's text; refreshed twice a second, so it can be read."""
        return self._stats
