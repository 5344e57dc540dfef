"""The "lanyard" kind: a 3D badge on a woven strap, hanging from the top of the window (seed 000, §04).

The strap is an ordinary Verlet body in three dimensions — `Points` with d = 3,
the anchor held by `Pins`, a chain of `Constraints`, `Forces` with gravity along
−y — so the engine's integrate and relax systems step it like any rope. World
space is the seed's three.js space: scene units, y up, a perspective camera at
(0, 0, 30) looking at the origin. The badge (`components.lanyard`) rides the last
point; grab_card, drag_card and spring_card move it; draw_lanyard renders it.

The start is the seed's pose — a straight strap from the anchor at `start_angle`
(52°) up and to the right, off-screen, exactly `rest` apart — at rest: each point's
previous position is its position. The seed's code writes ``prev = (0, 0, 0)``,
which read literally gives every node a first-step velocity equal to its whole
position and flings the strap off-screen; its prose says the chain should "hang
naturally from the upper right off-screen" and fall in, and that is what this does.

Held, the card keeps its pose and spin as the seed's does (its spring runs only
when not dragging); ``tilt_while_held = true`` tilts it with the hand instead and
carries that spin into the release (see `ropework.systems.lanyard.spring_card`).

Low power (the seed's mobile mode): fewer nodes and a 1/30 s step. The engine
steps at 1/60 s, so the strap takes one step every `low_power_every` engine
steps (`Cadence`; the pace system holds it still in between) and its gravity
is stored as g·every² — integrate scales acceleration by the engine's dt², and
one strap step spans `every` engine steps. The card's spring uses the same
1/30 s step. At the default every = 1 nothing of this applies.

Reduced motion (the M key, ``--reduced-motion``, a level's ``reduced_motion``)
removes the one motion nobody asked for: the seed's entrance, where the strap
starts at `start_angle` off-screen and swings in for a few seconds on every
load and reset (as the tendrils drop their autopilot). The strap is laid out
already at rest instead — straight down, then stepped by the engine's own
integrate and relax kernels with the level's gravity, damping and passes until
it is still (ten constraint passes cannot hold 25 links against −40, so a
straight line at rest spacing would first sag ~0.3 units and bounce), and its
velocity set to zero. Everything the hand does is kept: the drag, the throw,
the strap's swing and the card's spring-back are the toy, the direct result of
the pointer, and they die out by themselves (the gallery's fling: the card is
within 0.01 rad of flat 3.4 s after the release). The layout is made when
the level loads, resets or reloads; the window's M key starts the toy again, so it applies at once.
"""
from __future__ import annotations

import math
from pathlib import Path

import esper
import numpy as np
from PIL import Image

from ropework.components import Constraints, Forces, Layer, Pins, Pointer, Points, Ropes
from ropework.components.frame import STEP
from ropework.components.lanyard import (
    Breeze,
    Cadence,
    Camera,
    Card,
    CardFinish,
    CardFlip,
    CardGrab,
    CardLook,
    CardSpring,
    Lights,
    StrapLook,
    StrapSleep,
)
from ropework.cost import CARD_STEP_NS, HANG_NS_LINK, HANG_STEP_NS, RELAX_NS_STRAP, Work
from ropework.kinds import Kind, toy
from ropework.live import into, vector
from ropework.schema import Key, LevelError, _num, table
from ropework.systems.services.colour import parse_colour

# Strap physics (the seed's constants, scene units with y up).
NODES = 25                 # points in the strap; more bends smoother and costs more
REST = 0.14                # units between neighbouring points; the start layout uses exactly this (seed: no jitter)
ANCHOR = (0.0, 5.4, 0.0)   # units: just above the top edge of the view, so the strap hangs from off-screen
GRAVITY = -40.0            # units/s² along y: ×4 real gravity, because the scene is small (seed)
DAMPING = 0.97             # fraction of velocity kept per strap step: 3 % lost each step
PASSES = 10                # Gauss–Seidel passes per step: the seed's loop runs 10 (its text says 8–10)
PIN_SHARE = 0.5            # of the first link's error, the part node 1 takes: the seed skips the anchor
                           # (`if (i > 0)`) and moves node 1 by its usual half
START_ANGLE = 52.0         # degrees from straight up toward +x: the strap starts off-screen right and falls in
FOLLOW = 0.35              # fraction of the gap to the drag target the last point closes per step
LOW_POWER_NODES = 15       # the seed's mobile chain
LOW_POWER_EVERY = 2        # engine steps (1/60 s) per strap step in low power: the seed's 1/30 s
LOW_POWER_PIXEL_RATIO = 1.5  # the seed's mobile DPR cap
MAX_NODES = 500            # a strap, not a cloth: the per-step cost stays in microseconds
HANG_STEPS = 600           # strap steps run at spawn under reduced motion: a straight strap stills in ~240

# Camera and lights (the seed's three.js scene).
FOV = 20.0                 # degrees, vertical: a long lens, so the badge looks small and flat-ish
NEAR, FAR = 0.1, 100.0     # clip distances, units
CAMERA_Z = 30.0            # units: the camera sits on +z looking at the origin
AMBIENT = math.pi          # three.js physical units: π lights an albedo to exactly itself
SEED_LIGHTS = [            # toward-the-light positions and intensities: key, fill, rim
    {"x": 3.0, "y": 5.0, "z": 5.0, "intensity": 0.8, "colour": "#ffffff"},
    {"x": -2.0, "y": -1.0, "z": 3.0, "intensity": 0.3, "colour": "#ffffff"},
    {"x": 1.0, "y": 1.0, "z": -3.0, "intensity": 0.2, "colour": "#ffffff"},
]
MAX_PIXEL_RATIO = 2.0      # render pixels per scene pixel at most (the seed's DPR cap)

# The badge.
CARD_SIZE = (1.6, 2.25, 0.04)  # width, height, thickness, units: an ID card's 0.71 aspect
CARD_DROP = 0.16           # units from the attachment point down to the card's top edge: the clip's reach
CARD_OFFSET = 0.02         # units the card sits behind the strap, so they never z-fight (seed)
CARD_COLOUR = "#d6d3cb"  # stock: the ambient gives it as is, the key and fill add ≈ 24 % (≈ 88 % grey), room below white for the sheen
PROXY_MARGIN = 0.08        # units the invisible pick box adds around the card on every side

# Release spring-back (the seed's formulas).
EASE_Z = 0.3               # fraction of rot Z removed per step after release
LIFT_GAIN = 0.4            # rad per unit/step of the last point's y velocity: target rot X
LIFT_MAX = 0.3             # rad: clamp of the target rot X
OMEGA_X2 = 45.0            # 1/s²: rot X spring (ω ≈ 6.7 rad/s, about a 0.9 s swing)
OMEGA_Y2 = 20.0            # 1/s²: rot Y spring, softer (≈1.4 s)
SPIN_DRAG = 0.015          # per rad/s: faster spin loses more per step (air)
SPIN_DRAG_BASE = 0.01      # fraction of spin lost per step regardless of speed
SPIN_KEEP_MIN = 0.85       # a step never removes more than 15 % of the spin

# Tilt while dragging (ours, off by default: the seed's card keeps its pose while held), per unit/step of
# the last point's velocity.
TILT_X = 3.0               # rad: moving up tips the card's face up (about X, same sign as the release target)
TILT_Y = 3.0               # rad: moving sideways turns the card toward its motion (about Y)
TILT_Z = 4.0               # rad: moving sideways lets the bottom trail behind (about Z)
TILT_MAX_X, TILT_MAX_Y, TILT_MAX_Z = 0.5, 0.7, 0.6  # rad: clamps of the three tilts
TILT_EASE = 0.2            # fraction of the way to the tilt per step: the card lags the hand a little

# Strap and card look.
STRAP_WIDTH = 0.3          # units across the ribbon (≈20 px at 720 px tall)
STRAP_TEXT = "ROPEWORK"    # printed along the strap: the project's name
STRAP_SAMPLES = 4          # ribbon samples per strap segment along the Catmull-Rom curve
MAX_IMAGE_SIDE = 4096      # px: a card picture larger than this is refused (texture limits)

# Flip, breeze, finishes, orientation, anchor.
FLIP_MS = 450.0            # ms: a press on the card released sooner is a click (React Bits' Lanyard) ...
FLIP_TRAVEL = 6.0          # px: ... if the pointer moved less than this meanwhile
FLIP_SPIN = 9.0            # rad/s about Y given by a flip: enough to carry the card past edge-on
BREEZE = 1.2               # units/s² at the strap's end: a drift of a few degrees, ~3 % of gravity
ANCHOR_SIDE = 0.5          # "left"/"right" anchors sit this fraction of the half-width from the centre
SLEEP_STEPS = 60           # strap steps of calm before a sleeping lanyard freezes: a second at 60 Hz
SLEEP_STILL = 1e-4         # units per step: no point moves more (≈0.005 px at 720 px tall) ...
SLEEP_SPIN = 5e-3          # rad/s: ... and the card turns slower than this (its bottom creeps < 1 px a second)
IMAGE_KEYS = ("card_image", "card_back_image", "strap_image")   # PNGs confined to the level's folder

LIGHT = table(
    Key("x", "float", 0.0, "light position x (it shines toward the origin), units", lo=-1e4, hi=1e4),
    Key("y", "float", 0.0, "light position y, units", lo=-1e4, hi=1e4),
    Key("z", "float", 1.0, "light position z, units", lo=-1e4, hi=1e4),
    Key("intensity", "float", 1.0, "three.js directional intensity", lo=0.0, hi=100.0),
    Key("colour", "colour", "#ffffff", "light colour"),
)


def _f(name, default, doc, lo, hi, live=None):
    return Key(name, "float", default, doc, lo=lo, hi=hi, live=live)


def live_gravity(body, cfg, name):
    """Gravity per strap step: g·every², as spawn stores it (low power steps every `every` engine steps)."""
    every = body.get(Cadence).every
    body.get(Forces).gravity = np.array([0.0, cfg[name] * every * every, 0.0], np.float32)


SCHEMA = table(
    Key("nodes", "int", NODES, "points in the strap", lo=2, hi=MAX_NODES),
    _f("rest", REST, "distance between neighbouring points (and their start spacing), units", 0.001, 100.0),
    _f("anchor_x", ANCHOR[0], "strap anchor x, units (y up, origin at the view's centre)", -1e3, 1e3),
    _f("anchor_y", ANCHOR[1], "strap anchor y, units", -1e3, 1e3),
    _f("anchor_z", ANCHOR[2], "strap anchor z, units", -1e3, 1e3),
    _f("gravity", GRAVITY, "acceleration along y, units/s² (negative: down)", -1e5, 1e5, live=live_gravity),
    _f("damping", DAMPING, "fraction of velocity kept per strap step", 0.0, 1.0, live=into(Forces, "damping")),
    Key("passes", "int", PASSES, "constraint passes per strap step (stiffness)", lo=1, hi=500, live=into(Constraints, "passes")),
    _f("pin_share", PIN_SHARE, "share of the first link's length error node 1 takes (node 0 is the anchor): "
       "0.5 as seed 000's code, 1 the whole of it (a strap stiffer under the anchor)", 0.5, 1.0,
       live=into(Constraints, "share")),
    _f("start_angle", START_ANGLE, "start layout's angle from straight up toward +x, degrees; the strap starts "
       "there at rest (previous position = position), not with the seed's literal prev = (0, 0, 0)", -360.0, 360.0),
    _f("follow", FOLLOW, "fraction of the gap to the drag target closed per strap step", 0.0, 1.0, live=into(CardGrab, "follow")),
    Key("low_power", "bool", False, "the seed's mobile mode: low_power_nodes, a 1/30 s step, pixel ratio ≤ 1.5"),
    Key("low_power_nodes", "int", LOW_POWER_NODES, "strap points in low power", lo=2, hi=MAX_NODES),
    Key("low_power_every", "int", LOW_POWER_EVERY, "engine steps (1/60 s) per strap step in low power", lo=1, hi=60),
    _f("low_power_pixel_ratio", LOW_POWER_PIXEL_RATIO, "pixel ratio cap in low power", 0.25, 4.0),
    _f("fov", FOV, "camera's vertical field of view, degrees", 1.0, 170.0, live=into(Camera, "fov")),
    _f("near", NEAR, "camera near clip, units", 1e-4, 1e4, live=into(Camera, "near")),
    _f("far", FAR, "camera far clip, units; more than `near`", 1e-3, 1e6, live=into(Camera, "far")),
    _f("camera_z", CAMERA_Z, "camera distance on +z, looking at the origin, units", 0.01, 1e4, live=vector(Camera, "eye", 2)),
    _f("ambient", AMBIENT, "ambient light intensity (π: the albedo itself)", 0.0, 100.0, live=into(Lights, "ambient")),
    _f("max_pixel_ratio", MAX_PIXEL_RATIO, "render pixels per scene pixel at most", 0.25, 4.0),
    Key("antialias", "bool", True, "supersample the layer where the framebuffer is not already dense"),
    _f("card_width", CARD_SIZE[0], "card width, units", 0.01, 100.0),
    _f("card_height", CARD_SIZE[1], "card height, units", 0.01, 100.0),
    _f("card_thickness", CARD_SIZE[2], "card thickness, units", 0.001, 10.0),
    _f("card_drop", CARD_DROP, "from the strap's end down to the card's top edge, units", 0.0, 100.0),
    _f("card_offset", CARD_OFFSET, "card sits this far behind the strap, units", 0.0, 10.0),
    _f("proxy_margin", PROXY_MARGIN, "pick box margin around the card, units", 0.0, 10.0),
    Key("card_title", "str", "ropework", "card art: title", max_len=60),
    Key("card_subtitle", "str", "verlet rope · esper · arcade", "card art: subtitle", max_len=120),
    Key("card_colour", "colour", CARD_COLOUR, "card stock colour"),
    Key("card_ink", "colour", "#111113", "card text colour"),
    Key("card_accent", "colour", "#d90429", "card band colour"),
    Key("clip_colour", "colour", "#b9bdc6", "metal clip colour"),
    Key("card_image", "str", "", "PNG for the card's front, relative to the level file and inside its folder "
        "(empty: art from the title, subtitle and colours)", max_len=300),
    _f("ease_z", EASE_Z, "after release: fraction of rot Z removed per step", 0.0, 1.0, live=into(CardSpring, "ease_z")),
    _f("lift_gain", LIFT_GAIN, "after release: target rot X per unit/step of y velocity, rad", -100.0, 100.0, live=into(CardSpring, "lift_gain")),
    _f("lift_max", LIFT_MAX, "after release: clamp of target rot X, rad", 0.0, 3.2, live=into(CardSpring, "lift_max")),
    _f("omega_x2", OMEGA_X2, "rot X spring, ω², 1/s²", 0.0, 1e4, live=into(CardSpring, "omega_x2")),
    _f("omega_y2", OMEGA_Y2, "rot Y spring, ω², 1/s²", 0.0, 1e4, live=into(CardSpring, "omega_y2")),
    _f("spin_drag", SPIN_DRAG, "spin lost per step per rad/s", 0.0, 1.0, live=into(CardSpring, "drag")),
    _f("spin_drag_base", SPIN_DRAG_BASE, "spin fraction lost per step", 0.0, 1.0, live=into(CardSpring, "drag_base")),
    _f("spin_keep_min", SPIN_KEEP_MIN, "spin fraction always kept per step", 0.0, 1.0, live=into(CardSpring, "keep_min")),
    Key("tilt_while_held", "bool", False, "while held, tilt the card with the hand's velocity (the tilt_* keys) and "
        "carry that spin into the release; false: as the seed, the card keeps its pose and spin until released",
        live=into(CardGrab, "tilt_while_held")),
    _f("tilt_x", TILT_X, "while held: rot X per unit/step of y velocity, rad", -100.0, 100.0, live=vector(CardGrab, "tilt", 0)),
    _f("tilt_y", TILT_Y, "while held: rot Y per unit/step of x velocity, rad", -100.0, 100.0, live=vector(CardGrab, "tilt", 1)),
    _f("tilt_z", TILT_Z, "while held: −rot Z per unit/step of x velocity, rad", -100.0, 100.0, live=vector(CardGrab, "tilt", 2)),
    _f("tilt_max_x", TILT_MAX_X, "while held: clamp of rot X, rad", 0.0, 3.2, live=vector(CardGrab, "tilt_max", 0)),
    _f("tilt_max_y", TILT_MAX_Y, "while held: clamp of rot Y, rad", 0.0, 3.2, live=vector(CardGrab, "tilt_max", 1)),
    _f("tilt_max_z", TILT_MAX_Z, "while held: clamp of rot Z, rad", 0.0, 3.2, live=vector(CardGrab, "tilt_max", 2)),
    _f("tilt_ease", TILT_EASE, "while held: fraction of the way to the tilt per step", 0.0, 1.0, live=into(CardGrab, "tilt_ease")),
    _f("strap_width", STRAP_WIDTH, "ribbon width, units", 0.001, 10.0, live=into(StrapLook, "width")),
    Key("strap_text", "str", STRAP_TEXT, "text printed along the strap", max_len=40),
    Key("strap_colour", "colour", "#111113", "strap base colour"),
    Key("strap_border", "colour", "#d90429", "strap edge colour"),
    Key("strap_ink", "colour", "#ffffff", "strap print colour"),
    Key("strap_samples", "int", STRAP_SAMPLES, "ribbon samples per strap segment", lo=1, hi=32),
    Key("flip", "bool", False, f"a click on the card (under {FLIP_MS:g} ms and {FLIP_TRAVEL:g} px) flips it over "
        "with a spin, to show its back"),
    Key("card_back_image", "str", "", "PNG for the card's back, relative to the level file and inside its folder "
        "(empty: the front's picture if card_image is set, else the drawn back)", max_len=300),
    _f("breeze", 0.0, "a gentle, ever-changing wind on the strap and card, units/s² at the strap's end "
       f"(0: still air; {BREEZE:g} is a light breeze); none under reduced motion", 0.0, 100.0),
    Key("finish", "choice", "glossy", "card material: the seed's glossy laminate, matte, metallic, or a "
        "holographic foil that shifts with the view", choices=("glossy", "matte", "metallic", "holographic")),
    Key("orientation", "choice", "portrait", "portrait, or landscape (card_width and card_height swapped)",
        choices=("portrait", "landscape")),
    Key("strap_image", "str", "", "PNG repeated along the strap instead of the woven print, relative to the "
        "level file and inside its folder (its height spans the strap's width)", max_len=300),
    Key("card_model", "str", "", "a glTF 2.0 binary (.glb) card, relative to the level file and inside its folder: "
        "its mesh, base-colour texture and factors replace the drawn card, scaled to card_width × card_height "
        "(empty: the drawn card)", max_len=300),
    Key("sleep", "bool", False, "a calm lanyard (still for a second, unheld, no breeze) stops stepping until a "
        "press takes the card"),
    Key("anchor", "choice", "centre", "where the strap hangs from: anchor_x from the centre of the window, or "
        "that far from a point halfway to its left or right edge", choices=("centre", "left", "right")),
    light=(LIGHT, 0, 8, "a directional light; none given: the seed's key, fill and rim"),
)


def check(cfg: dict, level: Path, key_path: str) -> None:
    """Cross-key checks, then each picture key (`IMAGE_KEYS`) resolved against the level file:
    each must be a PNG inside the level's folder that decodes completely (every pixel, here, not
    at the first draw), and ``card_model`` a GLB there. Replaces each key with the absolute path.
    Raises LevelError (file, key, expected, found).
    """
    if not cfg["near"] < cfg["far"]:
        raise LevelError(level, f"{key_path}.far", f"expected far > near ({_num(cfg['near'])}), "
                                                   f"found {_num(cfg['far'])}")
    for key in IMAGE_KEYS:
        check_png(cfg, key, level, key_path)
    check_model(cfg, level, key_path)


def check_png(cfg: dict, key: str, level: Path, key_path: str, what: str = "a PNG file") -> Path | None:
    """One picture key: a PNG inside the level's folder, replaced by its absolute path (returned)."""
    raw = cfg.get(key, "")
    if not raw:
        return None
    p = f"{key_path}.{key}"
    folder = Path(level).resolve().parent

    def fail(found):
        raise LevelError(level, p, f"expected {what} inside {folder}, found {found}")

    rel = Path(raw)
    if rel.is_absolute():
        fail(f"the absolute path {raw!r}")
    try:
        target = (folder / rel).resolve()
        if not target.is_relative_to(folder):
            fail(f"{raw!r}, which leads outside it")
        if not target.exists():
            fail(f"no file at {raw!r}")
        if not target.is_file():
            fail(f"{raw!r}, which is not a file")
    except OSError as e:          # a name too long for the file system, a loop of links
        fail(f"{raw!r}, which cannot be opened ({type(e).__name__})")
    if what != "a PNG file":
        cfg[key] = str(target)
        return target
    try:
        st = target.stat()
        stamp = (str(target), st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError as e:
        fail(f"{raw!r}, which cannot be opened ({type(e).__name__})")
    if stamp in _DECODED:                      # this very file decoded whole before: the studio validates per edit
        cfg[key] = str(target)
        return target
    try:
        with Image.open(target) as im:
            fmt, size = im.format, im.size
    except Exception as e:  # noqa: BLE001  whatever a file makes Pillow raise is one line
        fail(f"{raw!r}, which is not a readable image ({type(e).__name__})")
    if fmt != "PNG":
        fail(f"{raw!r}, a {fmt} image")
    if max(size) > MAX_IMAGE_SIDE or min(size) < 1:
        fail(f"{raw!r} of {size[0]}×{size[1]} px (at most {MAX_IMAGE_SIDE} px a side)")
    try:                                       # decode every pixel: no IDAT, a corrupt or a cut-off one
        with Image.open(target) as im:
            im.verify()
        with Image.open(target) as im:
            im.load()
    except Exception as e:  # noqa: BLE001  Pillow raises OSError, SyntaxError, ValueError, IndexError, zlib.error…
        fail(f"{raw!r}, which does not decode as a PNG ({type(e).__name__}: {str(e)[:80]})")
    _DECODED[stamp] = None
    while len(_DECODED) > MAX_DECODED:
        del _DECODED[next(iter(_DECODED))]
    cfg[key] = str(target)
    return target


# Card pictures that decoded whole, by (path, inode, size, mtime): a studio edit validates the
# whole level, and decoding a badge's two PNGs was most of a slider drag's frame. Any change
# to the file (a save, a copy over it) changes the stamp and decodes it again.
_DECODED: dict[tuple, None] = {}
MAX_DECODED = 64                  # stamps kept: oldest dropped first


def check_model(cfg: dict, level: Path, key_path: str) -> None:
    """``card_model``: a GLB inside the level's folder that `gltf.parse` reads; else one LevelError line."""
    from ropework.systems.lanyard import gltf
    what = "a glTF 2.0 binary (.glb) card model"
    target = check_png(cfg, "card_model", level, key_path, what)
    if target is None:
        return
    name = Path(cfg["card_model"]).name
    try:
        size = target.stat().st_size
        if size > gltf.MAX_BYTES:                   # refused before a byte is read
            raise gltf.ModelError("", f"expected a file of at most {gltf.MAX_BYTES:,} bytes, found {size:,}")
        gltf.parse(target.read_bytes())
    except gltf.ModelError as e:                    # the model's own line: its JSON path, expected, found
        raise LevelError(level, f"{key_path}.card_model", f"{name!r}: {e}") from None
    except OSError as e:
        raise LevelError(level, f"{key_path}.card_model",
                         f"expected {what}, found {name!r}, which cannot be read ({e.strerror})") from None


def lights(cfg: dict) -> Lights:
    """The level's directional lights (the seed's three when none are given), linear RGB."""
    chosen = cfg.get("light") or SEED_LIGHTS
    pos = np.array([[lt["x"], lt["y"], lt["z"]] for lt in chosen], np.float64)
    norm = np.linalg.norm(pos, axis=1, keepdims=True)
    direction = np.divide(pos, norm, out=np.zeros_like(pos), where=norm > 0)
    srgb = np.array([parse_colour(lt.get("colour", "#ffffff"))[:3] for lt in chosen], np.float64)
    return Lights(ambient=cfg["ambient"], direction=direction.astype(np.float32),
                  colour=(srgb ** 2.2).astype(np.float32),
                  intensity=np.array([lt.get("intensity", 1.0) for lt in chosen], np.float32))


def strap_start(n: int, rest: float, anchor, angle_deg: float) -> np.ndarray:
    """float32[n, 3]: the seed's start — a straight line from the anchor at ``angle_deg`` from up."""
    a = math.radians(angle_deg)
    j = np.arange(n, dtype=np.float64)[:, None]
    return (np.asarray(anchor, np.float64) + j * rest * np.array([math.sin(a), math.cos(a), 0.0])).astype(np.float32)


def hang_at_rest(points: Points, con: Constraints, forces: Forces, steps: int) -> None:
    """Lay the strap straight down from its pinned first point and step it until still, in place.

    Each step is one strap step of the engine's own integrate and relax (gravity
    is stored per strap step, so the engine's dt serves at any cadence); the last
    step's velocity is then dropped, so the strap starts exactly at rest. The constraints'
    schedule is planned once for all the steps (what `relax` would plan again on every call,
    ≈ 0.3 ms: most of a default strap's hang), and `solve` runs it each step, bit for bit
    as `relax` would.
    """
    from ropework.systems.integrate import integrate  # kernels only when a strap is laid out
    from ropework.systems.relax import box, paths, plan, solve
    down = points.pos[0].copy()
    down[1] -= 1.0                                # strap_start's direction at 180° from up, exactly
    points.pos[:] = points.pos[0] + np.arange(len(points.pos))[:, None] * con.rest[0] * (down - points.pos[0])
    points.prev[:] = points.pos
    n, d = points.pos.shape
    no_extra = np.zeros((0, d), np.float32)
    lo, hi = box(None, None, d)
    packed = plan(n, True, con.a, con.b)
    flags = paths(packed, d)
    for _ in range(steps):                       # steps of the whole strap: one kernel call each, no per-point loop
        integrate(points.pos, points.prev, points.inv_mass, forces.gravity, no_extra, forces.damping, STEP)
        solve(points.pos, points.inv_mass, con.rest, con.passes, lo, hi, packed, float(con.share), *flags)
    points.prev[:] = points.pos


def anchor_x(cfg: dict, width: float, height: float) -> float:
    """The strap's anchor x, units: `anchor_x`, moved halfway to the window's left or right edge
    (at the z = 0 plane the camera looks at) for ``anchor = "left"`` / ``"right"``."""
    if cfg["anchor"] == "centre":
        return cfg["anchor_x"]
    half_w = cfg["camera_z"] * math.tan(math.radians(cfg["fov"]) / 2) * width / max(height, 1.0)
    return cfg["anchor_x"] + (-1.0 if cfg["anchor"] == "left" else 1.0) * ANCHOR_SIDE * half_w


def spawn(cfg: dict, layer: Layer, frame) -> int:
    low = cfg["low_power"]
    n = cfg["low_power_nodes"] if low else cfg["nodes"]
    every = cfg["low_power_every"] if low else 1
    anchor = (anchor_x(cfg, frame.width, frame.height), cfg["anchor_y"], cfg["anchor_z"])
    points = Points.at(strap_start(n, cfg["rest"], anchor, cfg["start_angle"]))
    pins = Pins(index=np.array([0], np.int32), anchor=points.pos[:1].copy())
    pins.apply(points)
    a, b = Ropes.of_counts([n]).chain_constraints()
    con = Constraints(a=a, b=b, rest=np.full(len(a), cfg["rest"], np.float32), passes=cfg["passes"],
                      share=cfg["pin_share"])
    forces = Forces(gravity=np.array([0.0, cfg["gravity"] * every * every, 0.0], np.float32), damping=cfg["damping"])
    if frame.reduced_motion:
        hang_at_rest(points, con, forces, HANG_STEPS)
    size = np.array([cfg["card_width"], cfg["card_height"], cfg["card_thickness"]])
    if cfg["orientation"] == "landscape":
        size[[0, 1]] = size[[1, 0]]
    card = Card(size=size, drop=cfg["card_drop"], hang=np.array([0.0, 0.0, -cfg["card_offset"]]),
                proxy_margin=cfg["proxy_margin"])
    card.pos = points.pos[-1].astype(np.float64) + card.hang
    grab = CardGrab(follow=cfg["follow"], tilt_while_held=cfg["tilt_while_held"],
                    tilt=np.array([cfg["tilt_x"], cfg["tilt_y"], cfg["tilt_z"]]),
                    tilt_max=np.array([cfg["tilt_max_x"], cfg["tilt_max_y"], cfg["tilt_max_z"]]),
                    tilt_ease=cfg["tilt_ease"])
    spring = CardSpring(dt=STEP * every, ease_z=cfg["ease_z"], lift_gain=cfg["lift_gain"], lift_max=cfg["lift_max"],
                        omega_x2=cfg["omega_x2"], omega_y2=cfg["omega_y2"], drag=cfg["spin_drag"],
                        drag_base=cfg["spin_drag_base"], keep_min=cfg["spin_keep_min"])
    camera = Camera(fov=cfg["fov"], near=cfg["near"], far=cfg["far"],
                    eye=np.array([0.0, 0.0, cfg["camera_z"]]), target=np.zeros(3))
    strap = StrapLook(width=cfg["strap_width"], text=cfg["strap_text"], base=cfg["strap_colour"],
                      border=cfg["strap_border"], ink=cfg["strap_ink"], samples=cfg["strap_samples"])
    look = CardLook(title=cfg["card_title"], subtitle=cfg["card_subtitle"], colour=cfg["card_colour"],
                    ink=cfg["card_ink"], accent=cfg["card_accent"], clip=cfg["clip_colour"],
                    image=cfg["card_image"],
                    max_pixel_ratio=min(cfg["max_pixel_ratio"], cfg["low_power_pixel_ratio"]) if low
                    else cfg["max_pixel_ratio"],
                    antialias=cfg["antialias"])
    extra = [CardFinish(finish=cfg["finish"], strap_image=cfg["strap_image"], back_image=cfg["card_back_image"],
                        model=cfg["card_model"])]
    if cfg["flip"]:
        extra.append(CardFlip(max_steps=int(FLIP_MS / 1000 / STEP), max_travel=FLIP_TRAVEL, spin=FLIP_SPIN))
    if cfg["sleep"]:
        extra.append(StrapSleep(calm_steps=SLEEP_STEPS, still=SLEEP_STILL, still_spin=SLEEP_SPIN))
    if cfg["breeze"] > 0.0:
        forces.extra = np.zeros_like(points.pos)
        extra.append(Breeze(strength=cfg["breeze"] * every * every, phase=float(frame.rng.uniform(0.0, 1000.0))))
    return esper.create_entity(
        points, pins, layer, con, forces,
        Cadence(every=every), card, grab, spring, camera, lights(cfg), strap, look, *extra,
    )


def work(cfg: dict, w: float, h: float) -> Work:
    """A strap step and the card's systems; its start, the strap laid at rest (`hang_at_rest`),
    counted whatever the level's reduced motion: the M key lays it again while the scene runs."""
    links = (cfg["low_power_nodes"] if cfg["low_power"] else cfg["nodes"]) - 1
    return Work(links=links, passes=cfg["passes"], relax_ns=RELAX_NS_STRAP, step_ns=CARD_STEP_NS,
                start_ns=HANG_STEPS * (links * cfg["passes"] * HANG_NS_LINK + HANG_STEP_NS))


def cursor(scene) -> str:
    """The pointer's shape over a scene with a card, by its CSS name (the seed's).

    "grabbing" while a card is held, "grab" while the pointer is over one, and
    "default" elsewhere (a press there falls through to the layers below) or
    while a press that took no card is held.
    """
    cards = [g for _, g in scene.find(CardGrab)]
    if any(g.held for g in cards):
        return "grabbing"
    pressing = any(p.down for _, p in scene.find(Pointer))   # a press that took no card holds on
    return "grab" if not pressing and any(g.hover for g in cards) else "default"


plugin = toy(Kind(
    "lanyard",
    "A 3D badge on a woven strap hanging from the top: grab it, drag, throw; it springs back (seed 000).",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["low_power_nodes"] if cfg["low_power"] else cfg["nodes"],
    work=work,
    check=check,
    systems=("rehang", "pace", "input", "grab_card", "doze", "breeze", "integrate", "drag_card", "relax",
             "spring_card", "draw_lanyard"),
    cursor=cursor,
    motion_note="the strap starts at rest instead of swinging in, and no breeze blows; the drag, throw, flip "
                "and spring-back stay",
))
