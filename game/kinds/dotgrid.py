"""The "dotgrid" kind: a full-window grid of dots the pointer pushes and clicks ripple (seed 000, §03)."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components.dots import DotColours, DotGrid, DotStyle, Repulsion, Shockwaves
from ropework.components.render import Layer
from ropework.systems.services.colour import parse_colour
from ropework.cost import DRAW_NS_DOT, Work
from ropework.kinds import Kind, kind
from ropework.schema import Key, table

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

SCHEMA = table(
    Key("gap", "float", GAP, "distance between dot centres, px", lo=1.0, hi=10_000.0),
    Key("dot_size", "float", DOT_SIZE, "dot diameter, px", lo=0.1, hi=1000.0),
    Key("proximity", "float", PROXIMITY, "reach of the static push around the pointer, px", lo=0.0, hi=100_000.0),
    Key("max_push", "float", MAX_PUSH, "static push at the pointer, px", lo=0.0, hi=10_000.0),
    Key("speed_trigger", "float", SPEED_TRIGGER, "pointer px per step at which the swipe push is full",
        lo=0.001, hi=100_000.0),
    Key("velocity_reach", "float", VELOCITY_REACH, "swipe push reach, as a multiple of proximity", lo=0.0, hi=100.0),
    Key("velocity_share", "float", VELOCITY_SHARE, "full swipe push, as a fraction of max_push", lo=0.0, hi=100.0),
    Key("velocity_threshold", "float", VELOCITY_THRESHOLD, "speed factor (0..1) below which a move is no swipe",
        lo=0.0, hi=1.0),
    Key("velocity_colour", "float", VELOCITY_COLOUR, "a swipe's colour force as a fraction of its push",
        lo=0.0, hi=1.0),
    Key("shock_speed", "float", SHOCK_SPEED, "click ring radius growth, px/s", lo=0.0, hi=100_000.0),
    Key("shock_band", "float", SHOCK_BAND, "half-width of the pushed band around a ring's front, px",
        lo=0.001, hi=100_000.0),
    Key("shock_strength", "float", SHOCK_STRENGTH, "push at a fresh ring's front, px", lo=0.0, hi=100_000.0),
    Key("shock_duration", "float", SHOCK_DURATION, "a ring's life, s (its push fades as 1 − age)", lo=0.0, hi=1.0),
    Key("max_rings", "int", MAX_RINGS, "rings alive at once; a click beyond replaces the oldest", lo=1, hi=4096),
    Key("colour", "colour", BASE, "dot colour at rest"),
    Key("active_colour", "colour", ACTIVE, "dot colour at full force"),
    Key("light_colour", "colour", LIGHT_BASE, "dot colour at rest on the light theme (T); `colour` is the dark one's"),
    Key("light_active_colour", "colour", LIGHT_ACTIVE, "dot colour at full force on the light theme"),
    Key("colour_ease", "float", COLOUR_EASE, "fraction of the way to the target colour per step", lo=0.0, hi=1.0),
    Key("background", "colour", "#00000000", "a fill under the dots; alpha 00 (default) leaves the scene's"),
    Key("inertia", "bool", False, "dots spring back with inertia (React Bits) instead of the seed's instant offsets"),
    Key("spring", "float", SPRING, "inertia spring stiffness, 1/s²", lo=0.0, hi=10_000.0),
    Key("spring_damping", "float", SPRING_DAMPING, "inertia damping, 1/s (the spring is stepped exactly: stable at any value)", lo=0.0, hi=1000.0),
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
               "shove and dots do not overshoot; the push under the pointer stays")


def spawn(cfg: dict, layer: Layer, frame) -> int:
    gap = fitted_gap(cfg["gap"], frame.width, frame.height)
    origin, cols, rows = layout(gap, frame.width, frame.height)
    n = len(origin)
    base = np.array(parse_colour(cfg["colour"])[:3], np.float32)
    calm = frame.reduced_motion            # MOTION_NOTE: no wave across the page, no shove, no overshoot
    inertia = cfg["inertia"] and not calm
    grid = DotGrid(origin=origin, offset=np.zeros((n, 2), np.float32),
                   velocity=np.zeros((n if inertia else 0, 2), np.float32),
                   colour=np.tile(base, (n, 1)), cols=cols, rows=rows, gap=gap)
    repulsion = Repulsion(
        proximity=cfg["proximity"], max_push=cfg["max_push"], speed_trigger=cfg["speed_trigger"],
        reach=cfg["velocity_reach"], share=0.0 if calm else cfg["velocity_share"],
        threshold=cfg["velocity_threshold"], colour_share=cfg["velocity_colour"], inertia=inertia,
        spring=cfg["spring"], spring_damping=cfg["spring_damping"])
    rings = Shockwaves.pool(cfg["max_rings"], 0.0 if calm else cfg["shock_speed"], cfg["shock_band"],
                            min(cfg["shock_strength"], cfg["max_push"]) if calm else cfg["shock_strength"],
                            cfg["shock_duration"])
    colours = DotColours(base=base, active=np.array(parse_colour(cfg["active_colour"])[:3], np.float32),
                         ease=cfg["colour_ease"])
    style = DotStyle(size=cfg["dot_size"], background=np.array(parse_colour(cfg["background"]), np.float32),
                     light_base=tuple(parse_colour(cfg["light_colour"])[:3]),
                     light_active=tuple(parse_colour(cfg["light_active_colour"])[:3]))
    return esper.create_entity(grid, repulsion, rings, colours, style, layer)


def plugin() -> None:
    """Register the dot grid toy (seed 000): its kind and the systems it brings."""
    kind(Kind(
        name="dotgrid",
        doc="A full-window dot grid: the pointer pushes dots and tints them, swipes shove, clicks ripple (seed 000).",
        schema=SCHEMA,
        spawn=spawn,
        points=lambda cfg, w, h: math.prod(grid_shape(cfg["gap"], w, h)),
        work=lambda cfg, w, h: Work(draw_ns=math.prod(grid_shape(cfg["gap"], w, h)) * DRAW_NS_DOT),
        systems=("repel", "ripple", "draw_dots"),
        counts=(("dots", DotGrid, lambda c: int(len(c.origin))),),
        motion_note=MOTION_NOTE,
    ))
