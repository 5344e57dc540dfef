"""The "dotgrid" kind: a full-window grid of dots the pointer pushes and clicks ripple (seed 000, §03)."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components.dotgrid import (
    DotColours,
    DotGrid,
    DotLook,
    DotSleep,
    DotStyle,
    Jelly,
    Repulsion,
    Shockwaves,
    TravellingRings,
)
from ropework.components.frame import STEP
from ropework.components.render import Layer
from ropework.cost import DRAW_NS_DOT, RING_NS_DOT, Work
from ropework.kinds import Kind, toy
from ropework.live import into
from ropework.schema import Key, table
from ropework.systems.services.colour import parse_colour


def rgb(colour: str) -> np.ndarray:
    return np.array(parse_colour(colour)[:3], np.float32)


def rgba(colour: str) -> np.ndarray:
    return np.array(parse_colour(colour), np.float32)

GAP = 50.0                # px between dot centres: ~600 dots on a laptop screen, as the seed
DOT_SIZE = 5.0            # dot diameter, px: a background texture, not content
PROXIMITY = 200.0         # px: the static push reaches this far from the pointer
MAX_PUSH = 5.0            # px: static push at the pointer; more would distract from the page
SPEED_TRIGGER = 80.0      # px moved in one step at which the swipe push is full
VELOCITY_REACH = 1.6      # a swipe pushes out to this multiple of the proximity (320 px)
VELOCITY_SHARE = 0.6      # a full swipe's push as a fraction of MAX_PUSH
VELOCITY_THRESHOLD = 0.2  # speed factor under which a move is not a swipe (16 px per step)
VELOCITY_COLOUR = 0.8     # a swipe colours dots by this fraction of its push factor
SHOCK_SPEED = 250.0       # px/s: how fast a click's ring spreads (the seed calls it radius)
SHOCK_BAND = 75.0         # px either side of the ring's front that it pushes
SHOCK_STRENGTH = 45.0     # px: push at a fresh ring's front, ten times the static push: a burst
SHOCK_DURATION = 0.85     # s: shorter and the ring is not seen to spread; longer and clicks overlap
MAX_RINGS = 64            # rings alive at once: a click every step for 0.85 s still fits
BASE = "#f0f0f0"          # resting colour: light grey
ACTIVE = "#86ead4"        # colour at full force: cyan-green, low saturation like the grey
LIGHT_BASE = "#3a3a40"    # resting colour on a light page: the grey's contrast (≈ 11:1 against #f4f4f1), reversed
LIGHT_ACTIVE = "#0e9f83"  # full force on a light page: the cyan-green, dark enough to read on it (≈ 3.4:1)
COLOUR_EASE = 0.12        # fraction of the way to the target colour per step: no jumps
SPRING = 150.0            # 1/s²: inertia spring stiffness (≈0.5 s period), React Bits-like return
SPRING_DAMPING = 8.0      # 1/s: inertia damping; below critical (≈24), so dots overshoot once or twice
MAX_DOTS = 2_000_000      # dots per grid: a resize to a huge window widens the gap instead of allocating more
BOUNCE = 0.5              # damping ratio 0.5 when return_duration is set: one clear overshoot, then still
RING_SPEED = 600.0        # px/s: a travelling ring's front, about React Bits' shock (its 250 px in ~0.4 s)
RING_WIDTH = 90.0         # px across a travelling ring's cosine bump
RING_RADIUS = 300.0       # px: a travelling ring fades to nothing as its front reaches this
RING_STRENGTH = 14.0      # px: a fresh travelling ring's push, ~3 × the static push (React Bits' strength 5 × its ease)

# Tuned looks a level names with `preset`; any key the level sets itself wins over its preset's.
PRESETS = {
    "jelly": {"tension": 0.3, "return_duration": 0.9, "bounce": 0.6, "rings": "travel", "swell": 0.6,
              "max_push": 8.0},
    "streak": {"return_duration": 0.7, "bounce": 0.35, "stretch": 0.08, "max_push": 10.0, "velocity_share": 2.0,
               "rings": "travel"},
    "pixel": {"shape": "square", "gap": 18.0, "dot_size": 10.0, "swell": 0.4, "colour_ease": 0.5, "max_push": 4.0},
    "dense": {"gap": 14.0, "dot_size": 3.0, "proximity": 150.0, "glow": 0.6, "fade": 120.0, "swell": 1.0},
    "calm": {"max_push": 3.0, "shock_strength": 15.0, "return_duration": 1.6, "bounce": 0.1, "colour_ease": 0.05,
             "intro": 1.2},
}

SCHEMA = table(
    Key("gap", "float", GAP, "distance between dot centres, px", lo=1.0, hi=10_000.0),
    Key("dot_size", "float", DOT_SIZE, "dot diameter, px", lo=0.1, hi=1000.0, live=into(DotStyle, "size")),
    Key("proximity", "float", PROXIMITY, "reach of the static push around the pointer, px", lo=0.0, hi=100_000.0, live=into(Repulsion, "proximity")),
    Key("max_push", "float", MAX_PUSH, "static push at the pointer, px", lo=0.0, hi=10_000.0, live=into(Repulsion, "max_push")),
    Key("speed_trigger", "float", SPEED_TRIGGER, "pointer px per step at which the swipe push is full",
        lo=0.001, hi=100_000.0, live=into(Repulsion, "speed_trigger")),
    Key("velocity_reach", "float", VELOCITY_REACH, "swipe push reach, as a multiple of proximity", lo=0.0, hi=100.0, live=into(Repulsion, "reach")),
    Key("velocity_share", "float", VELOCITY_SHARE, "full swipe push, as a fraction of max_push", lo=0.0, hi=100.0, live=into(Repulsion, "share")),
    Key("velocity_threshold", "float", VELOCITY_THRESHOLD, "speed factor (0..1) below which a move is no swipe",
        lo=0.0, hi=1.0, live=into(Repulsion, "threshold")),
    Key("velocity_colour", "float", VELOCITY_COLOUR, "a swipe's colour force as a fraction of its push",
        lo=0.0, hi=1.0, live=into(Repulsion, "colour_share")),
    Key("shock_speed", "float", SHOCK_SPEED, "click ring radius growth, px/s", lo=0.0, hi=100_000.0, live=into(Shockwaves, "speed")),
    Key("shock_band", "float", SHOCK_BAND, "half-width of the pushed band around a ring's front, px",
        lo=0.001, hi=100_000.0, live=into(Shockwaves, "band")),
    Key("shock_strength", "float", SHOCK_STRENGTH, "push at a fresh ring's front, px", lo=0.0, hi=100_000.0, live=into(Shockwaves, "strength")),
    Key("shock_duration", "float", SHOCK_DURATION, "a ring's life, s: it pushes from its click's own step (age 0) to this age, fading as 1 − age", lo=0.0, hi=1.0, live=into(Shockwaves, "duration")),
    Key("max_rings", "int", MAX_RINGS, "rings alive at once; a click beyond replaces the oldest", lo=1, hi=4096),
    Key("colour", "colour", BASE, "dot colour at rest", live=into(DotColours, "base", rgb)),
    Key("active_colour", "colour", ACTIVE, "dot colour at full force", live=into(DotColours, "active", rgb)),
    Key("light_colour", "colour", LIGHT_BASE, "dot colour at rest on the light theme (T); `colour` is the dark one's",
        live=into(DotStyle, "light_base", lambda c: tuple(parse_colour(c)[:3]))),
    Key("light_active_colour", "colour", LIGHT_ACTIVE, "dot colour at full force on the light theme",
        live=into(DotStyle, "light_active", lambda c: tuple(parse_colour(c)[:3]))),
    Key("colour_ease", "float", COLOUR_EASE, "fraction of the way to the target colour per step", lo=0.0, hi=1.0,
        live=into(DotColours, "ease")),
    Key("background", "colour", "#00000000", "a fill under the dots; alpha 00 (default) leaves the scene's",
        live=into(DotStyle, "background", rgba)),
    Key("inertia", "bool", False, "dots spring back with inertia (React Bits) instead of the seed's instant offsets"),
    Key("spring", "float", SPRING, "inertia spring stiffness, 1/s²", lo=0.0, hi=10_000.0, live=into(Repulsion, "spring")),
    Key("spring_damping", "float", SPRING_DAMPING, "inertia damping, 1/s (the spring is stepped exactly: stable at any value)", lo=0.0, hi=1000.0, live=into(Repulsion, "spring_damping")),
    Key("preset", "choice", "", "a tuned look (" + "; ".join(f"{n}: " + ", ".join(f"{k} {v!r}" if isinstance(v, str)
        else f"{k} {v:g}" for k, v in keys.items()) for n, keys in PRESETS.items())
        + "); keys the level sets win over its preset's", choices=("", *PRESETS)),
    Key("tension", "float", 0.0, "jelly: fraction of the gap to the four neighbours' mean offset and velocity each "
        "dot closes per step, so a push travels (0: independent dots, the seed)", lo=0.0, hi=1.0),
    Key("return_duration", "float", 0.0, "dots spring back to rest in about this long, s, with `bounce` "
        "(0: the seed's offsets, or inertia's spring / spring_damping)", lo=0.0, hi=60.0),
    Key("bounce", "float", BOUNCE, "with return_duration: 0 returns without overshoot, toward 1 rings longer "
        "(damping ratio 1 − bounce); integrated exactly, stable at any value", lo=0.0, hi=1.0),
    Key("rings", "choice", "band", "a click's shock: the seed's band (shock_*) or React Bits' travelling ring "
        "(ring_*)", choices=("band", "travel")),
    Key("ring_speed", "float", RING_SPEED, "travelling ring: front speed, px/s", lo=1.0, hi=100_000.0),
    Key("ring_width", "float", RING_WIDTH, "travelling ring: width of its front, px", lo=1.0, hi=100_000.0),
    Key("ring_radius", "float", RING_RADIUS, "travelling ring: radius at which it has faded out and ends, px",
        lo=1.0, hi=100_000.0),
    Key("ring_strength", "float", RING_STRENGTH, "travelling ring: push of a fresh front, px", lo=0.0, hi=100_000.0),
    Key("swell", "float", 0.0, "a fully lit dot is drawn (1 + swell) times its size", lo=0.0, hi=10.0),
    Key("stretch", "float", 0.0, "a moving dot is drawn as a streak this many seconds of its motion long, s "
        "(turns on inertia)", lo=0.0, hi=1.0),
    Key("glow", "float", 0.0, "opacity of a soft halo around lit dots", lo=0.0, hi=1.0),
    Key("fade", "float", 0.0, "dots fade out over this many px along the window's edges", lo=0.0, hi=10_000.0),
    Key("shape", "choice", "circle", "dot shape", choices=("circle", "square")),
    Key("intro", "float", 0.0, "the grid pops in from the centre over this long after load (not after a resize), s (0: none; off "
        "under reduced motion)", lo=0.0, hi=10.0),
)


def grid_shape(gap: float, w: float, h: float) -> tuple[int, int]:
    """(cols, rows) = (ceil(w/gap), ceil(h/gap)): the last column and row may overhang the edge."""
    return max(1, math.ceil(w / gap)), max(1, math.ceil(h / gap))


def fitted_gap(gap: float, w: float, h: float) -> float:
    """The level's gap, widened only if the window would need more than MAX_DOTS."""
    while math.prod(grid_shape(gap, w, h)) > MAX_DOTS:
        gap *= 1.01
    return gap


def layout(gap: float, w: float, h: float) -> tuple[np.ndarray, int, int]:
    """float32[n, 2] cell centres, row by row from the top-left, and (cols, rows)."""
    cols, rows = grid_shape(gap, w, h)
    x = (np.arange(cols) + 0.5) * gap
    y = (np.arange(rows) + 0.5) * gap
    origin = np.empty((rows, cols, 2), np.float32)
    origin[..., 0] = x[None, :]
    origin[..., 1] = y[:, None]
    return origin.reshape(-1, 2), cols, rows


# Seed 000 says nothing of reduced motion. All the grid's motion answers the pointer, but a click's
# ring racing across the whole page and a swipe's shove are bursts nobody asked to watch.
MOTION_NOTE = ("a click tints and nudges only the dots around it (its ring does not spread), swipes do not "
               "shove and dots do not overshoot (no jelly wobble, travelling ring or pop-in either); the push "
               "under the pointer stays")


def jelly(cfg: dict) -> bool:
    """Whether the level turns on the jelly model (exact spring, coupling, travelling rings)."""
    return (cfg["tension"] > 0.0 or cfg["return_duration"] > 0.0 or cfg["rings"] == "travel"
            or (cfg["stretch"] > 0.0 and not cfg["inertia"]))


def spawn(cfg: dict, layer: Layer, frame) -> int:
    gap = fitted_gap(cfg["gap"], frame.width, frame.height)
    origin, cols, rows = layout(gap, frame.width, frame.height)
    n = len(origin)
    base = np.array(parse_colour(cfg["colour"])[:3], np.float32)
    calm = frame.reduced_motion            # MOTION_NOTE: no wave across the page, no shove, no overshoot
    inertia = cfg["inertia"] and not calm
    dynamic = jelly(cfg) and not calm      # reduced motion: no jelly wobble, no travelling ring
    moving = inertia or dynamic
    grid = DotGrid(origin=origin, offset=np.zeros((n, 2), np.float32),
                   velocity=np.zeros((n if moving else 0, 2), np.float32),
                   colour=np.tile(base, (n, 1)), cols=cols, rows=rows, gap=gap)
    repulsion = Repulsion(
        proximity=cfg["proximity"], max_push=cfg["max_push"], speed_trigger=cfg["speed_trigger"],
        reach=cfg["velocity_reach"], share=0.0 if calm else cfg["velocity_share"],
        threshold=cfg["velocity_threshold"], colour_share=cfg["velocity_colour"], inertia=inertia,
        spring=cfg["spring"], spring_damping=cfg["spring_damping"])
    travel = cfg["rings"] == "travel" and not calm
    rings = Shockwaves.pool(cfg["max_rings"], 0.0 if calm else cfg["shock_speed"], cfg["shock_band"],
                            min(cfg["shock_strength"], cfg["max_push"]) if calm else cfg["shock_strength"],
                            cfg["ring_radius"] / cfg["ring_speed"] if travel else cfg["shock_duration"])
    colours = DotColours(base=base, active=np.array(parse_colour(cfg["active_colour"])[:3], np.float32),
                         ease=cfg["colour_ease"])
    style = DotStyle(size=cfg["dot_size"], background=np.array(parse_colour(cfg["background"]), np.float32),
                     light_base=tuple(parse_colour(cfg["light_colour"])[:3]),
                     light_active=tuple(parse_colour(cfg["light_active_colour"])[:3]))
    look = DotLook(swell=cfg["swell"], stretch=cfg["stretch"], glow=cfg["glow"], fade=cfg["fade"],
                   shape=cfg["shape"], intro=0.0 if calm or frame.relaid else cfg["intro"])   # on load only
    extra = []
    if dynamic:
        from ropework.systems.dotgrid.repel import spring_constants, spring_step  # kernels only for a jelly grid
        k, c = (spring_constants(cfg["bounce"], cfg["return_duration"]) if cfg["return_duration"] > 0.0
                else (cfg["spring"], cfg["spring_damping"]))
        extra.append(Jelly(step=spring_step(k, c, frame.dt), tension=cfg["tension"],
                           scratch=np.zeros((n, 6), np.float32)))
    if travel:
        extra.append(TravellingRings(speed=cfg["ring_speed"], width=cfg["ring_width"], radius=cfg["ring_radius"],
                                     strength=cfg["ring_strength"]))
    return esper.create_entity(grid, repulsion, rings, colours, style, look, DotSleep(), layer, *extra)


def work(cfg: dict, w: float, h: float) -> Work:
    """The dots' draw, and every dot against each ring that can be live at once: one click a
    step at most, each living `shock_duration`, no more than the pool's `max_rings`."""
    dots = math.prod(grid_shape(cfg["gap"], w, h))
    rings = min(cfg["max_rings"], math.floor(cfg["shock_duration"] / STEP) + 1)
    return Work(draw_ns=dots * DRAW_NS_DOT, step_ns=dots * rings * RING_NS_DOT)


plugin = toy(Kind(
    "dotgrid",
    "A full-window dot grid: the pointer pushes dots and tints them, swipes shove, clicks ripple (seed 000).",
    SCHEMA, spawn,
    points=lambda cfg, w, h: math.prod(grid_shape(cfg["gap"], w, h)),
    work=work,
    systems=("repel", "ripple", "draw_dots"),
    counts=(("dots", DotGrid, lambda c: int(len(c.origin))),),
    presets=PRESETS,
    motion_note=MOTION_NOTE,
))
