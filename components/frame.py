"""What every system is handed each step (esper passes the same argument to all)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

STEP = 1 / 60   # s: the fixed simulation step every toy is tuned for (Frame.dt)


@dataclass
class Frame:
    """The scene's clock and surroundings for one fixed step.

    dt: the fixed step, seconds. t: scene time at the start of the step, seconds.
    width, height: the viewport, pixels. rng: the scene's seeded generator — the
    only source of randomness, so a seed replays exactly.
    relaid: the scene was laid out again for a new viewport (a resize), not loaded or
    reset; what a kind shows on load only (the dot grid's intro) stays off.
    strain: the strain overlay is on (draw_strain colours every link by its stretch); a
    view, not state: no step reads it.
    """

    dt: float
    t: float
    width: float
    height: float
    rng: np.random.Generator
    reduced_motion: bool = False
    theme: str = "light"
    steps: int = 0
    relaid: bool = False
    strain: bool = False
