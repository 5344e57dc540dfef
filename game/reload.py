"""Hot reload: the open level file is re-read when it changes on disk.

Polling ``stat`` (modification time and size) a few times a second needs no
extra dependency and works on every platform and editor, including those that
save by writing a new file and renaming it over the old one.
"""
from __future__ import annotations

import os
from pathlib import Path

import esper

from ropework.level import load
from ropework.scene import Scene
from ropework.schema import LevelError

MAX_MESSAGE = 300      # characters of an unexpected error's text shown: one line that fits a window

POLL_INTERVAL = 0.25   # s between looks at the file: a save shows within about half a second


def one_line(text: str) -> str:
    """An unexpected error's text as one short line: its first line, cut."""
    first = (text.splitlines() or [""])[0]
    return first[:MAX_MESSAGE] + ("…" if len(first) > MAX_MESSAGE else "")


class LevelWatcher:
    """Watches one level file; ``poll`` builds a new scene from it when it has changed.

    A file that fails to load (or to build) leaves the running scene alone and
    sets ``error`` to the one-line message until a later save loads.
    """

    def __init__(self, path, interval: float = POLL_INTERVAL):
        self.path = Path(path)
        self.interval = interval
        self.error: str | None = None
        self._seen = self._signature()
        self._wait = 0.0

    def _signature(self):
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def tick(self, dt: float, scene: Scene) -> Scene | None:
        """Call every frame with the frame's seconds; polls once per ``interval``."""
        self._wait += max(0.0, dt)
        if self._wait < self.interval:
            return None
        self._wait = 0.0
        return self.poll(scene)

    def poll(self, scene: Scene) -> Scene | None:
        """Look at the file once. If it changed and is valid, return a new scene built from it
        (same size; the player's theme and reduced motion kept unless the file changed them);
        the caller swaps it in and closes the old one. Otherwise return None."""
        sig = self._signature()
        if sig == self._seen:
            return None
        self._seen = sig
        size = (scene.width, scene.height)
        try:
            lv = load(self.path, size)
        except LevelError as e:
            self.error = str(e)
            return None
        except Exception as e:  # noqa: BLE001  whatever a file makes the loader raise, the running scene stays
            self.error = one_line(f"{self.path}: could not load the level: {type(e).__name__}: {e}")
            return None
        old = scene.level
        seed = None if scene.seed == old.seed else scene.seed               # a --seed override stays
        motion = None if lv.reduced_motion != old.reduced_motion else scene.reduced_motion
        before = set(esper.list_worlds())
        try:
            new = Scene(lv, size, seed, motion)
        except Exception as e:  # noqa: BLE001  a kind that fails to build must not take the window down
            for name in set(esper.list_worlds()) - before:               # the half-built world
                esper.delete_world(name)
            self.error = one_line(f"{self.path}: could not build the scene: {type(e).__name__}: {e}")
            return None
        if lv.theme == old.theme and new.theme != scene.theme:
            new.toggle_theme()                                              # the player's T stays
        self.error = None
        return new
