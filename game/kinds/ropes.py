"""The "ropes" kind: chains hanging from a rail, grabbed and thrown (seed 001)."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Bounds, Constraints, Forces, Grab, Layer, Pins, Points, Rail, Ropes, RopeStyle
from ropework.systems.services.colour import parse_colour
from ropework.cost import DRAW_NS_STROKE, RELAX_NS_CHAIN, Work
from ropework.kinds import Kind, kind
from ropework.schema import Key, table

GRAVITY = 900.0      # px/s², downward: the seed's pull
SEGMENT = 11.0       # rest length between neighbouring points, px
PASSES = 14          # relaxation passes per step; two would read as elastic
DAMPING = 0.995      # fraction of implied velocity kept per step, via the Verlet history
GRAB_RADIUS = 46.0   # px: a press this close to a free point picks it up
MARGIN = 2.0         # px: free points are clamped this far inside the window box
FIT = 0.82           # a rope is shortened to fit this fraction of the window height
MIN_POINTS = 8       # ... but never below this many points
ANCHOR_Y = 6.0       # px below the top edge: where the rail and the anchors are
WIDTH = 2.4          # stroke width, px
TIP_RADIUS = 4.5     # px
ANCHOR_RADIUS = 2.5  # px
MAX_ROPE_POINTS = 100_000

SEED_ROPES = [
    {"anchor": 0.18, "points": 20, "colour": "#ff6600"},
    {"anchor": 0.5, "points": 27, "colour": "#00d4ff"},
    {"anchor": 0.82, "points": 22, "colour": "#c5ff3b"},
]

ROPE = table(
    Key("anchor", "float", None, "anchor's x as a fraction of the window width", lo=0.0, hi=1.0),
    Key("points", "int", 20, "points in the rope (before fitting to the height)", lo=2, hi=MAX_ROPE_POINTS),
    Key("colour", "colour", "#ff6600", "stroke and dot colour"),
    Key("width", "float", WIDTH, "stroke width, px", lo=0.1, hi=100.0),
)

SCHEMA = table(
    Key("gravity", "float", GRAVITY, "downward acceleration, px/s²", lo=-100_000.0, hi=100_000.0),
    Key("damping", "float", DAMPING, "fraction of velocity kept per step", lo=0.0, hi=1.0),
    Key("passes", "int", PASSES, "constraint relaxation passes per step (stiffness)", lo=1, hi=500),
    Key("segment", "float", SEGMENT, "rest length between neighbouring points, px", lo=0.5, hi=1000.0),
    Key("grab_radius", "float", GRAB_RADIUS, "pick distance for a press, px", lo=0.0, hi=10_000.0),
    Key("grab_pins", "bool", False, "the held point is pinned to the cursor (true) or, as the seed, put there "
        "each step and left to the solver (false)"),
    Key("margin", "float", MARGIN, "free points stay this far inside the window, px", lo=0.0, hi=1000.0),
    Key("fit", "float", FIT, "ropes are shortened to fit this fraction of the height", lo=0.01, hi=100.0),
    Key("min_points", "int", MIN_POINTS, "fitting never leaves a rope shorter than this", lo=2, hi=MAX_ROPE_POINTS),
    Key("anchor_y", "float", ANCHOR_Y, "anchors' distance below the top edge, px", lo=0.0, hi=100_000.0),
    Key("rail", "bool", True, "draw the faint rail the ropes hang from"),
    Key("tip_radius", "float", TIP_RADIUS, "radius of the dot at each tip, px (0: none)", lo=0.0, hi=100.0),
    Key("anchor_radius", "float", ANCHOR_RADIUS, "radius of the dot at each anchor, px (0: none)", lo=0.0, hi=100.0),
    rope=(ROPE, 1, 10_000, "one hanging rope"),
)


def fitted_counts(cfg: dict, h: float) -> list[int]:
    """Seed rule: each rope's count capped to fit `fit`·height, but at least `min_points`."""
    fit = math.floor(h * cfg["fit"] / cfg["segment"])
    return [max(cfg["min_points"], min(r["points"], fit)) for r in cfg["rope"]]


def spawn(cfg: dict, layer: Layer, frame) -> int:
    w, h = frame.width, frame.height
    counts = fitted_counts(cfg, h)
    ropes = Ropes.of_counts(counts)
    n = int(ropes.count.sum())
    rope_of = np.repeat(np.arange(len(counts)), counts)
    j = np.arange(n) - ropes.start[rope_of]                  # index along its rope
    x = np.array([r["anchor"] for r in cfg["rope"]])[rope_of] * w
    pos = np.stack([x, cfg["anchor_y"] + j * cfg["segment"]], axis=1)
    points = Points.at(pos)
    pins = Pins(index=ropes.start.copy(), anchor=points.pos[ropes.start].copy())
    pins.apply(points)
    a, b = ropes.chain_constraints()
    m = cfg["margin"]
    style = RopeStyle(
        colour=np.array([parse_colour(r["colour"]) for r in cfg["rope"]], np.float32),
        width=np.array([r["width"] for r in cfg["rope"]], np.float32),
        tip_radius=cfg["tip_radius"], anchor_radius=cfg["anchor_radius"],
    )
    return esper.create_entity(
        points, pins, ropes, style, layer,
        Constraints(a=a, b=b, rest=np.full(len(a), cfg["segment"], np.float32), passes=cfg["passes"]),
        Forces(gravity=np.array([0.0, cfg["gravity"]], np.float32), damping=cfg["damping"]),
        Bounds(lo=np.array([m, m], np.float32), hi=np.array([w - m, h - m], np.float32)),
        Grab(radius=cfg["grab_radius"], pin=cfg["grab_pins"]),
        *([Rail(y=cfg["anchor_y"] + 0.5)] if cfg["rail"] else []),
    )


def work(cfg: dict, w: float, h: float) -> Work:
    n = sum(max(cfg["min_points"], r["points"]) - 1 for r in cfg["rope"])
    return Work(links=n, passes=cfg["passes"], relax_ns=RELAX_NS_CHAIN, draw_ns=n * DRAW_NS_STROKE)


def plugin() -> None:
    """Register the Verlet rope toy (seed 001): its kind and the systems it brings."""
    kind(Kind(
        name="ropes",
        doc="Verlet ropes hanging from a rail: grab, drag and throw them (seed 001).",
        schema=SCHEMA,
        spawn=spawn,
        points=lambda cfg, w, h: sum(max(cfg["min_points"], r["points"]) for r in cfg["rope"]),  # most at any height
        work=work,
        systems=("input", "integrate", "relax", "draw_ropes"),
        motion_note="the ropes hold still: seed 001's loop paints one frame and stops",
        still_when_reduced=True,
    ))
