"""Components of a dot grid (seed 000, section 03): the dots, what pushes them, their look.

One `DotGrid` entity holds every dot of a grid in flat arrays, so the systems run
vectorised over all dots at once; there is no per-dot Python object.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class DotGrid:
    """Every dot of one grid.

    origin: float32[n, 2] — rest position, the centre of the dot's cell, pixels (y down).
    offset: float32[n, 2] — displacement from the origin this step, pixels.
    velocity: float32[n, 2] — offset velocity, px/s, when `Repulsion.inertia` is on;
    float32[0, 2] otherwise (the seed's offsets have no velocity).
    colour: float32[n, 3] — current RGB in 0..1, chasing its target each step.
    cols, rows: the grid's shape (dot i is at column i % cols, row i // cols); gap: cell size, px.
    """

    origin: np.ndarray
    offset: np.ndarray
    velocity: np.ndarray
    colour: np.ndarray
    cols: int
    rows: int
    gap: float

    @property
    def n(self) -> int:
        return len(self.origin)


@dataclass
class Repulsion:
    """How the pointer pushes the dots and how the dots come back (the seed's forces 1 and 2).

    proximity: px — static push reaches this far; max_push: px — static push at distance 0.
    speed_trigger: px per step — pointer speed at which the velocity push is full.
    reach: velocity push reaches reach·proximity; share: its size as a fraction of max_push;
    threshold: speed factor below which there is no velocity push;
    colour_share: colour force of the velocity push as a fraction of its size.
    inertia: off, offsets are the summed push (the seed); on, a damped spring of
    stiffness `spring` (1/s²) and damping `spring_damping` (1/s) chases it.
    last: float64[3] — the pointer at the previous step (x, y, 1 if it was inside else 0),
    from which the pointer's speed is measured. Written by the repel system.
    """

    proximity: float
    max_push: float
    speed_trigger: float
    reach: float
    share: float
    threshold: float
    colour_share: float
    inertia: bool = False
    spring: float = 0.0
    spring_damping: float = 0.0
    last: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float64))


@dataclass
class DotColours:
    """base → active: float32[3] RGB in 0..1, the colour at colour force 0 and 1.
    ease: fraction of the gap to the target colour closed each step.
    """

    base: np.ndarray
    active: np.ndarray
    ease: float


@dataclass
class Shockwaves:
    """A fixed pool of click rings (the seed's force 3); any number alive up to its capacity.

    x, y: float64[cap] — ring centres, px; steps: int64[cap] — steps since the ring's
    click, 0 in the click's own step, so its age is steps·dt seconds (a product: 51 steps
    of 1/60 s are exactly 0.85 s); alive: bool[cap]. A new ring takes a free slot, or the
    oldest ring's when all are alive. Written by the ripple system.
    speed: px/s — ring radius = speed·age; band: px — half-width of the pushed band;
    strength: px — push at the front of a fresh ring; duration: s — a ring ends after this.
    """

    x: np.ndarray
    y: np.ndarray
    steps: np.ndarray
    alive: np.ndarray
    speed: float
    band: float
    strength: float
    duration: float

    @classmethod
    def pool(cls, capacity: int, speed: float, band: float, strength: float, duration: float) -> Shockwaves:
        z = np.zeros(capacity, np.float64)
        return cls(x=z.copy(), y=z.copy(), steps=np.zeros(capacity, np.int64), alive=np.zeros(capacity, bool),
                   speed=speed, band=band, strength=strength, duration=duration)

    @property
    def capacity(self) -> int:
        return len(self.alive)

    @property
    def live(self) -> int:
        return int(self.alive.sum())


@dataclass
class DotStyle:
    """size: dot diameter, px. background: float32[4] RGBA — a full-window fill drawn under
    the dots when its alpha is above 0 (alpha 0: the layer leaves the background to the scene).
    """

    size: float
    background: np.ndarray
    # Looks, not state (tuples, so `Scene.state_hash` does not count them): RGB 0..1 that the light
    # theme shows for `DotColours.base` and `.active`; None shows those as they are.
    light_base: tuple[float, float, float] | None = None
    light_active: tuple[float, float, float] | None = None


@dataclass
class Jelly:
    """The dynamic dot model behind the issue-17 keys (present only when one of them is on).

    step: float64[2, 2] — the exact one-step map of a damped spring: (offset − target,
    velocity) after dt = step @ (offset − target, velocity) before, for the target held
    over the step, so the return is stable at any stiffness and damping.
    tension: 0..1 — fraction of the gap to the four neighbours' mean offset and velocity
    each dot closes per step (0: independent dots).
    scratch: float32[n, 4] — the offsets and velocities before coupling (Jacobi: every
    dot reads its neighbours' values from before this step's coupling). Written by repel.
    """

    step: np.ndarray
    tension: float
    scratch: np.ndarray


@dataclass
class TravellingRings:
    """The current React Bits shock: rings whose front runs out at `speed` px/s, `width`
    px across, several at once; a ring's push is strength·(1 − front/radius), fading to
    nothing as the front reaches `radius` px, where the ring ends. The rings live in the
    grid's `Shockwaves` pool (centres, ages); this replaces the seed's band profile.
    """

    speed: float
    width: float
    radius: float
    strength: float


@dataclass
class DotLook:
    """How each dot is drawn beyond its size and colour (the defaults draw the seed's dots).

    swell: a fully lit dot is (1 + swell) times its size; stretch: s — a moving dot is
    drawn as a streak `stretch` seconds of its motion long; glow: 0..1 — halo opacity
    around a lit dot; fade: px — the band along the window's edges over which dots fade
    out; shape: "circle" or "square"; intro: s — the grid pops in from the centre
    outward over this long after load (0: no intro).
    """

    swell: float = 0.0
    stretch: float = 0.0
    glow: float = 0.0
    fade: float = 0.0
    shape: str = "circle"
    intro: float = 0.0


@dataclass
class DotSleep:
    """Whether the grid's last step changed nothing; written by the repel system.

    A grid whose step left every offset, velocity and colour as it was, with no ring
    alive, gets exactly the same step again while the pointer's input is unchanged:
    so repel skips the kernel (asleep) until the input changes or a ring starts, and
    the draw reuses its cached image. `inputs` is the input the last kernel call saw;
    `runs` counts kernel calls (the statistics and the tests read it); `version`
    counts steps that changed the grid, so a drawer knows when its cache is stale.
    """

    asleep: bool = False
    inputs: tuple = ()
    runs: int = 0
    version: int = 0
