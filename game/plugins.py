"""Plugins: installed packages that add systems and entity kinds.

A plugin package declares an entry point in the group ``ropework.systems``::

    [project.entry-points."ropework.systems"]
    tearing = "ropework_tearing:plugin"

At start every such entry point is loaded (imported; if it names a callable, it
is called with no arguments) and registers what it brings with
``ropework.systems.pipeline.system`` and ``ropework.kinds.kind`` — the same calls the
built-ins use. A plugin that fails is reported in one line on stderr and
skipped; the toy still runs. ``ROPEWORK_NO_PLUGINS=1`` or ``--no-plugins``
turns autoloading off; ``--plugin NAME`` loads one by entry-point name anyway.
"""
from __future__ import annotations

import os
import sys
from importlib import metadata

GROUP = "ropework.systems"
ENV_OFF = "ROPEWORK_NO_PLUGINS"

loaded: dict[str, str] = {}    # entry-point name -> "ok" or the one-line failure
_autoloaded = False


def _entry_points():
    return {ep.name: ep for ep in metadata.entry_points(group=GROUP)}


def load_one(name: str, ep=None) -> bool:
    """Load the plugin ``name``; report a failure in one line and return False."""
    if name in loaded:
        return loaded[name] == "ok"
    from ropework import kinds
    kinds.load_builtin()   # plugins build on the built-in toys (a tearable cloth is a cloth)
    ep = ep or _entry_points().get(name)
    if ep is None:
        loaded[name] = f"no installed plugin named {name!r} (entry-point group {GROUP})"
    else:
        try:
            obj = ep.load()
            if callable(obj):
                obj()
            loaded[name] = "ok"
        except Exception as e:   # a broken plugin must not take the toy down
            first = (str(e).splitlines() or [""])[0]
            loaded[name] = f"plugin {name!r} ({ep.value}) failed: {type(e).__name__}: {first}; skipped"
    if loaded[name] != "ok":
        print(f"ropework: {loaded[name]}", file=sys.stderr)
        return False
    return True


def autoload() -> None:
    """Load every installed plugin once per process, unless turned off."""
    global _autoloaded
    if _autoloaded:
        return
    _autoloaded = True
    if os.environ.get(ENV_OFF, "") not in ("", "0"):
        return
    for name, ep in sorted(_entry_points().items()):
        load_one(name, ep)
