"""The lanyard's badge (seed 000, section 04): its pose, its spring, the hand that holds it, its look.

The strap itself is an ordinary body (`Points` with d = 3, `Pins`, `Constraints`,
`Forces`) stepped by the engine's integrate and relax systems; these components
are what the badge adds on top. World space: scene units, y up (three.js).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Card:
    """The badge, locked to the strap's last point.

    size: float64[3] — width, height, thickness, scene units.
    drop: gap from the attachment point down to the card's top edge (the clip's reach), units.
    hang: float64[3] — offset from the last point to the card's origin: (0, 0, −0.02) puts
    the card just behind the strap so the two never z-fight.
    pos: float64[3] — the card's origin (top centre, its pivot), world units.
    rot: float64[3] — Euler angles X, Y, Z (three.js "XYZ" order), radians.
    spin: float64[3] — angular velocity about X, Y, Z, rad/s.
    proxy_margin: the invisible pick box is the card plus this much on every side, units.
    """

    size: np.ndarray
    drop: float
    hang: np.ndarray
    proxy_margin: float
    pos: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rot: np.ndarray = field(default_factory=lambda: np.zeros(3))
    spin: np.ndarray = field(default_factory=lambda: np.zeros(3))

    def proxy(self) -> tuple[np.ndarray, np.ndarray]:
        """(centre, half extents) float64[3] of the pick box, in the card's own frame.

        It covers the card and the clip above it, `proxy_margin` larger each way.
        """
        w, h, t = self.size
        top = 0.0                      # the clip reaches up to the attachment point
        bottom = -self.drop - h
        m = self.proxy_margin
        centre = np.array([0.0, (top + bottom) / 2.0, 0.0])
        half = np.array([w / 2.0 + m, (top - bottom) / 2.0 + m, t / 2.0 + m])
        return centre, half


@dataclass
class CardGrab:
    """The pointer's hold on the card.

    held: the card is being dragged. hover: the pointer is over the card (the window
    may show a grab cursor; grabbing while held).
    offset: float64[3] — last point minus the pointer's z = 0 plane point at the press
    (the seed's grab offset), units. target: float64[3] — where the last point is pulled.
    follow: fraction of the gap to the target the last point closes per strap step.
    tilt_while_held: the held card tilts with the hand (ours); False, as the seed, it keeps
    its pose and spin until the release.
    tilt: float64[3] — radians of tilt about X, Y, Z per unit/step of the last point's
    velocity (Y, X), Z while held; tilt_max: float64[3] — their clamps, radians;
    tilt_ease: fraction of the gap to the tilt the card turns per strap step.
    """

    follow: float
    tilt_while_held: bool
    tilt: np.ndarray
    tilt_max: np.ndarray
    tilt_ease: float
    held: bool = False
    hover: bool = False
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))
    target: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass
class CardSpring:
    """The seed's release spring-back, per strap step of ``dt`` seconds.

    ease_z: fraction of rot Z removed per step. lift_gain, lift_max: target rot X =
    clamp(−lift_gain · (last point's y velocity per step), ±lift_max), radians.
    omega_x2, omega_y2: squared angular frequencies, 1/s² (accel = −ω²·sin(θ − target)).
    drag, drag_base, keep_min: each step ω *= max(keep_min, 1 − (drag·|ω| + drag_base)).
    """

    dt: float
    ease_z: float
    lift_gain: float
    lift_max: float
    omega_x2: float
    omega_y2: float
    drag: float
    drag_base: float
    keep_min: float


@dataclass
class Cadence:
    """A body that steps once every ``every`` engine steps (the seed's 1/30 s low-power step).

    active: this engine step is one of the body's steps (written by the pace system).
    """

    every: int
    active: bool = True


@dataclass
class StrapLook:
    """The ribbon: width (units), printed text, texture colours ("#rrggbb"), samples per segment."""

    width: float
    text: str
    base: str
    border: str
    ink: str
    samples: int


@dataclass
class CardLook:
    """The card's art: a PNG (absolute path, already checked) or art drawn from the text and colours.

    max_pixel_ratio: the layer renders at most this many pixels per scene pixel.
    antialias: render supersampled where the framebuffer is not already dense.
    """

    title: str
    subtitle: str
    colour: str
    ink: str
    accent: str
    clip: str
    image: str
    max_pixel_ratio: float
    antialias: bool
