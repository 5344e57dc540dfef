"""The lanyard (seed 000, section 04): its badge's pose, spring, hand and look, and how its 3D layer is seen.

The strap itself is an ordinary body (`Points` with d = 3, `Pins`, `Constraints`,
`Forces`) stepped by the engine's integrate and relax systems; these components
are what the badge adds on top, plus the perspective camera and lights of the
lanyard's 3D layer. World space: scene units, y up (three.js).
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
class CardPins:
    """Points of another body (a rope of a ropes layer) pinned to the card, one way.

    index: int32[k] — the body's points (inverse mass 0) that sit, each step, on the screen point
    of the card's clip (`Card.pos`, its top centre, projected through the lanyard's `Camera`), px.
    The card is 3-D, in world units, stepped on the strap's own cadence: a rope cannot pull it, so
    it is infinitely heavy to them. Written at spawn; the points' positions by spring_card.
    """

    index: np.ndarray


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


@dataclass
class CardFlip:
    """Click to flip: a short press on the card turns it over.

    A press that lasts at most `max_steps` engine steps and travels at most `max_travel`
    px flips the card: `flipped` toggles, the release spring's rot-Y target becomes π
    (the back faces the camera) or 0 again, and the card gets a `spin` rad/s kick about Y
    toward it. press_step: the engine step of the press (−1: none); press_x, press_y:
    where it was, px; travel: the farthest the pointer has been from it since, px.
    Written by grab_card.
    """

    max_steps: int
    max_travel: float
    spin: float
    flipped: bool = False
    press_step: int = -1
    press_x: float = 0.0
    press_y: float = 0.0
    travel: float = 0.0

    @property
    def target_y(self) -> float:
        return float(np.pi) if self.flipped else 0.0


@dataclass
class Breeze:
    """A gentle, ever-changing wind on the strap and the card; none under reduced motion.

    strength: units/s² — the wind's typical push on the strap's free end (it grows from
    nothing at the anchor); the wind is a sum of three slow sines in x and z at
    incommensurate frequencies, so it never repeats. phase: s — where in that pattern
    the scene starts (from the scene's seeded generator).
    """

    strength: float
    phase: float = 0.0


@dataclass
class CardFinish:
    """The card's material beyond the seed's glossy laminate.

    finish: "glossy" (the seed), "matte", "metallic" or "holographic" (a view-dependent
    rainbow foil over the glossy card). strap_image: a PNG (absolute, checked) repeated
    along the strap instead of the woven print (empty: the print). back_image: a PNG
    for the card's back (empty: the front's picture if the front has one, else the
    drawn back). model: a GLB (absolute, checked) whose mesh replaces the drawn card (empty: none).
    """

    finish: str = "glossy"
    strap_image: str = ""
    back_image: str = ""
    model: str = ""


@dataclass
class StrapSleep:
    """Sleep when calm (the `sleep` key): a still lanyard stops stepping.

    After `calm_steps` strap steps in a row with every point moving less than `still`
    units per step and the card turning slower than `still_spin` rad/s, unheld and with
    no breeze, the strap is frozen exactly where it is (velocity and spin dropped, its
    points weightless, so integrate and relax leave it alone) until a press takes the
    card. calm: the current run of calm steps; asleep: frozen. Written by doze.
    """

    calm_steps: int
    still: float
    still_spin: float
    calm: int = 0
    asleep: bool = False

@dataclass
class Camera:
    """A perspective camera over the layer's whole viewport.

    fov: vertical field of view, degrees; near, far: clip distances, scene units.
    eye, target: float64[3] — where it stands and what it looks at, scene units
    (world space: y up, the seed's three.js space). The aspect ratio is the
    viewport's; `ropework.systems.lanyard.camera` turns this into matrices and pointer rays.
    """

    fov: float
    near: float
    far: float
    eye: np.ndarray
    target: np.ndarray


@dataclass
class Lights:
    """An ambient term plus directional lights, in the seed's three.js units.

    ambient: ambient intensity (three.js physical units: π lights an albedo to itself).
    direction: float32[k, 3] — unit vectors toward each light (from its position, as
    three.js directional lights point at the origin); colour: float32[k, 3] linear RGB;
    intensity: float32[k].
    """

    ambient: float
    direction: np.ndarray
    colour: np.ndarray
    intensity: np.ndarray
