"""The "cloth" kind: a grid of points joined by distance constraints, pinned along the top."""
from __future__ import annotations

import esper
import numpy as np

from ropework.components import Bounds, Constraints, Forces, Grab, Layer, LinkStyle, Pins, Points
from ropework.cost import DRAW_NS_LINK, RELAX_NS_MESH, Work, solve_ns
from ropework.kinds import Kind, colliders, solve_keys, toy
from ropework.kinds import ropes as rope_defaults
from ropework.live import into
from ropework.schema import Key, table
from ropework.systems.services.colour import parse_colour

COLS = 40          # points across
ROWS = 30          # points down
SPACING = 12.0     # px between grid neighbours at rest
TOP = 40.0         # px from the top edge to the first row
FIT = 0.9          # a cloth wider or taller than this fraction of the window is laid out smaller
MAX_SIDE = 1000    # points along a side: 1,000,000 points is already past the scene cap

SCHEMA = table(
    Key("cols", "int", COLS, "points across", lo=2, hi=MAX_SIDE),
    Key("rows", "int", ROWS, "points down", lo=2, hi=MAX_SIDE),
    Key("spacing", "float", SPACING, "rest distance between grid neighbours, px", lo=0.5, hi=1000.0),
    Key("top", "float", TOP, "the first row's distance below the top edge, px", lo=0.0, hi=100_000.0),
    Key("fit", "float", FIT, "in a smaller window the spacing shrinks so the cloth spans at most this fraction "
        "of the width, and of the height below `top`", lo=0.01, hi=1.0),
    Key("pin", "choice", "top", "which points hang fixed: the whole top row, its two corners, "
        "every `pin_every`-th top point, or none", choices=("top", "corners", "every", "none")),
    Key("pin_every", "int", 4, "with pin = \"every\": pin every this many top points, counted from the left; "
        "the top right corner is always pinned too, so the cloth hangs even", lo=1, hi=MAX_SIDE),
    Key("shear", "bool", False, "add diagonal constraints too (resists shearing)"),
    Key("gravity", "float", rope_defaults.GRAVITY, "downward acceleration, px/s²", lo=-100_000.0, hi=100_000.0,
        live=rope_defaults.live_gravity),
    Key("damping", "float", rope_defaults.DAMPING, "fraction of velocity kept per step", lo=0.0, hi=1.0,
        live=into(Forces, "damping")),
    Key("passes", "int", rope_defaults.PASSES, "constraint relaxation passes per step (stiffness)", lo=1, hi=500,
        live=into(Constraints, "passes")),
    Key("pin_share", "float", rope_defaults.PIN_SHARE, "share of a link's length error its free end takes when the other end is pinned (an anchor, a pinned grab): 0.5 as the rope seed's solver, "
        "1 the whole of it", lo=0.5, hi=1.0, live=into(Constraints, "share")),
    Key("grab_radius", "float", rope_defaults.GRAB_RADIUS, "pick distance for a press, px", lo=0.0, hi=10_000.0,
        live=into(Grab, "radius")),
    Key("grab_pins", "bool", True, "the held point is pinned to the cursor (true) or, as the rope seed, put "
        "there each step and left to the solver (false)", live=rope_defaults.live_grab_pins),
    Key("margin", "float", rope_defaults.MARGIN, "free points stay this far inside the window, px", lo=0.0, hi=1000.0,
        live=rope_defaults.live_margin),
    Key("colour", "colour", "#00d4ff", "line colour", live=into(LinkStyle, "colour", parse_colour)),
    Key("width", "float", 1.2, "line width, px", lo=0.1, hi=100.0, live=into(LinkStyle, "width")),
    *solve_keys.LAYER_KEYS,
    collider=(colliders.COLLIDER, 0, colliders.MAX_COLLIDERS, "a static, kinematic or dynamic shape the cloth meets"),
)


def grid_constraints(cols: int, rows: int, shear: bool):
    """(a, b) int32[m]: row-major structural links (right, then down, per point), then diagonals."""
    idx = np.arange(cols * rows, dtype=np.int32).reshape(rows, cols)
    right = np.stack([idx[:, :-1], idx[:, 1:]], -1)
    down = np.stack([idx[:-1, :], idx[1:, :]], -1)
    # interleave per point so a sweep moves through the cloth row by row, like a rope along its chain
    links = np.full((rows, cols, 2, 2), -1, np.int32)
    links[:, :-1, 0] = right
    links[:-1, :, 1] = down
    pairs = links.reshape(-1, 2)
    pairs = pairs[pairs[:, 0] >= 0]
    if shear:
        d1 = np.stack([idx[:-1, :-1], idx[1:, 1:]], -1).reshape(-1, 2)
        d2 = np.stack([idx[:-1, 1:], idx[1:, :-1]], -1).reshape(-1, 2)
        pairs = np.concatenate([pairs, d1, d2])
    return np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])


def pinned_every(cols: int, every: int) -> np.ndarray:
    """int32 top-row columns 0, every, 2·every, … and always the last: both top corners hang fixed
    (48 columns every 4 stop at 44, and the three right-hand columns would dangle in a spike)."""
    return np.union1d(np.arange(0, cols, every), [cols - 1]).astype(np.int32)


def fitted_spacing(cfg: dict, w: float, h: float) -> float:
    """The level's spacing, shrunk so the cloth fits `fit` of the window (never wider than the bounds)."""
    room_x = w * cfg["fit"] / (cfg["cols"] - 1)
    room_y = max(h * cfg["fit"] - cfg["top"], h * 0.1) / (cfg["rows"] - 1)
    return max(min(cfg["spacing"], room_x, room_y), 1e-3)


def spawn(cfg: dict, layer: Layer, frame) -> int:
    cols, rows = cfg["cols"], cfg["rows"]
    sp = fitted_spacing(cfg, frame.width, frame.height)
    x0 = (frame.width - (cols - 1) * sp) / 2
    gx, gy = np.meshgrid(np.arange(cols), np.arange(rows))
    pos = np.stack([x0 + gx.ravel() * sp, cfg["top"] + gy.ravel() * sp], 1)
    points = Points.at(pos)
    top = np.arange(cols, dtype=np.int32)
    pinned = {"top": top, "corners": top[[0, -1]], "every": pinned_every(cols, cfg["pin_every"]),
              "none": top[:0]}[cfg["pin"]]
    pins = Pins(index=pinned, anchor=points.pos[pinned].copy())
    pins.apply(points)
    a, b = grid_constraints(cols, rows, cfg["shear"])
    rest = np.linalg.norm(points.pos[b] - points.pos[a], axis=1).astype(np.float32)
    m = cfg["margin"]
    coll = colliders.build(cfg.get("collider", []), frame.width, frame.height,
                           np.full(len(points.pos), cfg["radius"] or 0.5 * sp, np.float32), m)
    extras = solve_keys.build(cfg, points, a, b, None, segment=sp)
    return esper.create_entity(
        points, pins, layer, *([extras] if extras is not None else []), *([coll] if coll is not None else []),
        Constraints(a=a, b=b, rest=rest, passes=cfg["passes"], share=cfg["pin_share"]),
        Forces(gravity=np.array([0.0, cfg["gravity"]], np.float32), damping=cfg["damping"]),
        Bounds(lo=np.array([m, m], np.float32), hi=np.array([frame.width - m, frame.height - m], np.float32)),
        Grab(radius=cfg["grab_radius"], pin=cfg["grab_pins"]),
        LinkStyle(colour=parse_colour(cfg["colour"]), width=cfg["width"]),
    )


def links(cols: int, rows: int, shear: bool) -> int:
    """How many constraints `grid_constraints` makes."""
    return rows * (cols - 1) + cols * (rows - 1) + (2 * (rows - 1) * (cols - 1) if shear else 0)


def work(cfg: dict, w: float, h: float) -> Work:
    cols, rows = cfg["cols"], cfg["rows"]
    n = links(cols, rows, cfg["shear"])
    bends = rows * max(0, cols - 2) + cols * max(0, rows - 2)        # three neighbours along each row and column
    sweeps, per_link, other = solve_ns(cfg, cols * rows, bends)
    return Work(links=n, passes=sweeps, relax_ns=RELAX_NS_MESH if per_link is None else per_link,
                draw_ns=n * DRAW_NS_LINK, step_ns=other)


plugin = toy(Kind(
    "cloth",
    "A hanging cloth: a grid of Verlet points joined by distance constraints; grab and throw it.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["cols"] * cfg["rows"],
    work=work,
    check=lambda cfg, level, key_path: solve_keys.check(cfg, level, key_path),
    systems=("input", "integrate", "relax", "draw_colliders", "draw_links", "draw_strain"),
    # No seed has a cloth; it is seed 001's rope woven, so it does as seed 001's loop does.
    motion_note="the cloth holds still, as seed 001's rope: one frame painted, no steps",
    still_when_reduced=True,
))
