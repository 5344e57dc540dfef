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

import math
from pathlib import Path

from ropework.schema import LevelError

MAX_SCRIPT_BYTES = 1 << 20
MAX_FRAME = 1_000_000
EVENTS = {"move": 2, "down": 2, "up": 2, "leave": 0}


def parse(path) -> dict[int, list[tuple[str, float, float]]]:
    """frame → [(event, x, y), ...]; raises LevelError with the file and line on bad input."""
    path = Path(path)
    if not path.is_file():
        raise LevelError(path, "", "no such input script")
    if path.stat().st_size > MAX_SCRIPT_BYTES:
        raise LevelError(path, "", f"expected an input script of at most {MAX_SCRIPT_BYTES} bytes")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError:
        raise LevelError(path, "", "expected UTF-8 text") from None
    out: dict[int, list] = {}
    for ln, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].split()
        if not line:
            continue

        def fail(msg):
            raise LevelError(path, "", msg, line=ln)
        if len(line) < 2:
            fail(f"expected 'FRAME EVENT [X Y]', found {raw.strip()!r}")
        frames, event, args = line[0], line[1], line[2:]
        if event not in EVENTS:
            fail(f"expected an event among {', '.join(EVENTS)}, found {event!r}")
        try:
            a, _, b = frames.partition("-")
            f0 = int(a)
            f1 = int(b) if b else f0
            nums = [float(v) for v in args]
        except ValueError:
            fail(f"expected whole frame numbers and numeric coordinates, found {raw.strip()!r}")
        if not (0 <= f0 <= f1 <= MAX_FRAME):
            fail(f"expected frames 0..{MAX_FRAME} with A <= B, found {frames!r}")
        if not all(math.isfinite(v) for v in nums):
            fail("expected finite coordinates")
        span = f1 > f0
        want = 4 if span else EVENTS[event]
        if span and event != "move":
            fail("a frame range A-B is only for 'move X1 Y1 X2 Y2'")
        if len(nums) != want:
            fail(f"expected {want} coordinates for {event!r}{' over a range' if span else ''}, found {len(nums)}")
        if span:
            x1, y1, x2, y2 = nums
            for f in range(f0, f1 + 1):
                u = (f - f0) / (f1 - f0)
                out.setdefault(f, []).append(("move", x1 + (x2 - x1) * u, y1 + (y2 - y1) * u))
        else:
            x, y = (nums + [0.0, 0.0])[:2]
            out.setdefault(f0, []).append((event, x, y))
    return out


def apply(scene, events) -> None:
    """Feed one frame's events to a scene."""
    for event, x, y in events:
        if event == "leave":
            scene.pointer_leave()
        else:
            getattr(scene, f"pointer_{event}")(x, y)
