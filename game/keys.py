"""Key bindings: the one table the window, the README and help read from."""
from __future__ import annotations

# (key name as arcade.key spells it, what it does)
BINDINGS = [
    ("T", "toggle light / dark theme"),
    ("R", "reset the scene"),
    ("SPACE", "pause / resume"),
    ("PERIOD", "step once while paused"),
    ("ESCAPE", "quit"),
]
