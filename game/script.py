"""Scripted pointer input for recordings and tests: a small text format.

One event per line; ``#`` starts a comment; blank lines are ignored::

    # frame   event  x     y            scene pixels, origin top-left, y down
    0         move   400   300
    10        down   400   300
    10-40     move   400   300  700 120   # a straight swipe, one move per frame
    40        up     700   120
    50        leave

``move``/``down``/``up`` take x y; ``leave`` takes none. ``A-B move x1 y1 x2 y2``
moves from (x1, y1) at frame A to (x2, y2) at frame B, one event per frame.
Events of a frame are applied before that frame's step, in file order.
"""
from __future__ import annotations

import bisect
import math
import os
import stat
from pathlib import Path
from typing import NamedTuple

from ropework.schema import LevelError

MAX_SCRIPT_BYTES = 1 << 20
MAX_FRAME = 1_000_000
MAX_SHOWN = 60             # characters of a line or token an error message echoes: a message stays one short line
EVENTS = {"move": 2, "down": 2, "up": 2, "leave": 0}


class Entry(NamedTuple):
    """One script line: ``event`` at every frame f0..f1, moving from (x1, y1) at f0 to (x2, y2) at f1."""
    f0: int
    f1: int
    order: int              # position in the file: a frame's events apply in file order
    event: str
    x1: float
    y1: float
    x2: float
    y2: float

    def at(self, f: int) -> tuple[str, float, float]:
        u = (f - self.f0) / (self.f1 - self.f0) if self.f1 > self.f0 else 0.0
        return self.event, self.x1 + (self.x2 - self.x1) * u, self.y1 + (self.y2 - self.y1) * u


class Script:
    """A parsed script: frame → events, computed when asked, never expanded in memory.

    A range ``0-1000000 move ...`` is one entry, not a million events. ``get(f)``
    is cheapest asked frame after frame (as a recording does), and works in any order.
    """

    def __init__(self, entries=()):
        self.entries = sorted(entries, key=lambda e: (e.f0, e.order))
        self._starts = [e.f0 for e in self.entries]
        self._rewind()

    def _rewind(self) -> None:
        self._f, self._next, self._active = -1, 0, []

    def get(self, f: int, default=()) -> list[tuple[str, float, float]] | tuple:
        if f < self._f:
            self._rewind()
        if f > self._f + 1:                      # a jump: skip what starts before f without visiting it
            self._active = [e for e in self._active + self.entries[self._next:bisect.bisect_right(self._starts, f)]
                            if e.f1 >= f]
            self._next = bisect.bisect_right(self._starts, f)
        while self._next < len(self.entries) and self.entries[self._next].f0 <= f:
            self._active.append(self.entries[self._next])
            self._next += 1
        self._f = f
        self._active = [e for e in self._active if e.f1 >= f]
        if not self._active:
            return default
        return [e.at(f) for e in sorted(self._active, key=lambda e: e.order)]

    @property
    def last(self) -> int:
        """The last frame with an event; −1 for an empty script."""
        return max((e.f1 for e in self.entries), default=-1)

    def items(self):
        """(frame, events) for every frame with events, in order (expands lazily, one frame at a time)."""
        for f in range(self._starts[0] if self.entries else 0, self.last + 1):
            evs = self.get(f)
            if evs:
                yield f, evs


def _cut(text: str) -> str:
    text = text.strip()
    return repr(text[:MAX_SHOWN]) + ("…" if len(text) > MAX_SHOWN else "")


def _read(path: Path) -> str:
    """The script's text; one LevelError line for anything that is not a readable UTF-8 file."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            what = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, socket or device"
            raise LevelError(path, "", f"expected an input script file, found {what}")
        if st.st_size > MAX_SCRIPT_BYTES:
            raise LevelError(path, "", f"expected an input script of at most {MAX_SCRIPT_BYTES} bytes")
        with open(path, "rb") as f:
            raw = f.read(MAX_SCRIPT_BYTES + 1)    # st_size can lie (/proc files, a file still being written)
    except FileNotFoundError:
        raise LevelError(path, "", "no such input script") from None
    except OSError as e:                          # a name too long, no permission, an I/O error
        raise LevelError(path, "", f"expected a readable input script, found {e.strerror or type(e).__name__}") from None
    if len(raw) > MAX_SCRIPT_BYTES:
        raise LevelError(path, "", f"expected an input script of at most {MAX_SCRIPT_BYTES} bytes, found more")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LevelError(path, "", "expected UTF-8 text") from None


def parse(path) -> Script:
    """The script at ``path``; raises LevelError with the file and line on bad input.

    Lines end at "\n" only (a "\r" before it is dropped), so a form feed or a
    U+2028 inside a comment neither splits a line nor shifts the numbering.
    """
    if not str(path):
        raise LevelError("--input", "", "expected an input script file name, found an empty one")
    path = Path(path)
    text = _read(path)
    entries = []
    for ln, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        line = raw.split("#", 1)[0].split()
        if not line:
            continue

        def fail(msg):
            raise LevelError(path, "", msg, line=ln)
        if len(line) < 2:
            fail(f"expected 'FRAME EVENT [X Y]', found {_cut(raw)}")
        frames, event, args = line[0], line[1], line[2:]
        if event not in EVENTS:
            fail(f"expected an event among {', '.join(EVENTS)}, found {_cut(event)}")
        try:
            a, _, b = frames.partition("-")
            f0 = int(a)
            f1 = int(b) if b else f0
            nums = [float(v) for v in args]
        except ValueError:
            fail(f"expected whole frame numbers and numeric coordinates, found {_cut(raw)}")
        if not (0 <= f0 <= f1 <= MAX_FRAME):
            fail(f"expected frames 0..{MAX_FRAME} with A <= B, found {_cut(frames)}")
        if not all(math.isfinite(v) for v in nums):
            fail("expected finite coordinates")
        span = f1 > f0
        want = 4 if span else EVENTS[event]
        if span and event != "move":
            fail("a frame range A-B is only for 'move X1 Y1 X2 Y2'")
        if len(nums) != want:
            fail(f"expected {want} coordinates for {event!r}{' over a range' if span else ''}, found {len(nums)}")
        x1, y1, x2, y2 = nums if span else (nums + [0.0, 0.0])[:2] * 2
        entries.append(Entry(f0, f1, len(entries), event, x1, y1, x2, y2))
    return Script(entries)


def apply(scene, events) -> None:
    """Feed one frame's events to a scene."""
    for event, x, y in events:
        if event == "leave":
            scene.pointer_leave()
        else:
            getattr(scene, f"pointer_{event}")(x, y)


MAX_RECORDED_BYTES = MAX_SCRIPT_BYTES - 4096   # a recorded script stays one `parse` reads (room for the header)


class Recorder:
    """The pointer events a scene takes, as an input script: handed to `Scene.tap`, it is told
    each event with the step it is applied before; frame 0 is the first step after ``start``
    (the scene's step count when recording began). A frame's events keep their order, so
    `parse` gives back exactly what the scene was given."""

    def __init__(self, start: int):
        self.start = start
        self.lines: list[str] = []
        self.size = 0
        self.last = -1          # the last frame with an event
        self.full = False       # MAX_RECORDED_BYTES reached: later events are not kept

    def __call__(self, steps: int, kind: str, x: float, y: float) -> None:
        if self.full or not (math.isfinite(x) and math.isfinite(y)):   # the scene drops those too
            return
        f = steps - self.start
        line = f"{f} leave" if kind == "leave" else f"{f} {kind} {float(x)!r} {float(y)!r}"
        if self.size + len(line) + 1 > MAX_RECORDED_BYTES:
            self.full = True
            return
        self.lines.append(line)
        self.size += len(line) + 1
        self.last = f

    def text(self, header: str = "") -> str:
        """The script, with ``header`` lines (comments) first."""
        head = "".join(f"# {h}\n" for h in header.splitlines())
        return head + "".join(f"{line}\n" for line in self.lines)
