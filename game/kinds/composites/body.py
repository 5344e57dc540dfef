"""What every composite shares: the keys of its body (gravity, passes, look, point radius,
colliders) and `spawn_body`, which turns a laid-out graph of points and links into one body
entity the built-in systems integrate, relax, grab and draw — the same components a ropes or
cloth layer is made of, so a composite is nothing the solver does not already know."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Bounds, Constraints, Forces, Grab, Layer, LinkStyle, Pins, Points
from ropework.cost import DRAW_NS_LINK, RELAX_NS_MESH, Work
from ropework.kinds import colliders
from ropework.kinds import ropes as rope_defaults
from ropework.live import into
from ropework.schema import Key, LevelError
from ropework.systems.services.colour import parse_colour

PASSES = 20          # relaxation passes per step: a composite's loops and braces hold their shape with a few
                     # more than a single hanging rope's 14
POINT_RADIUS = 3.0   # px: a point's radius against the layer's colliders (a rim, a plank, a thread)
MAX_POINTS = 100_000  # points one composite layer may lay out: a web or net this size already costs ~1 ms a pass
REFERENCE = (1280, 720)   # px: the default scene, where a composite's layout is judged (`validate` loads a
                         # level at this size): one that cannot be built there — a bridge its points cannot
                         # span, a web whose hub is on an edge — is refused; in any other size it is laid
                         # out by the same keys, and the box clamp keeps its free points inside
SYSTEMS = ("input", "integrate", "relax", "draw_colliders", "draw_links", "draw_strain")


def body_keys(colour: str, width: float = 2.0, passes: int = PASSES, damping: float = rope_defaults.DAMPING) -> tuple:
    """The keys of a composite's body, with the composite's own colour, stroke, passes and damping as defaults."""
    return (
        Key("gravity", "float", rope_defaults.GRAVITY, "downward acceleration, px/s²", lo=-100_000.0, hi=100_000.0,
            live=rope_defaults.live_gravity),
        Key("damping", "float", damping, "fraction of velocity kept per step", lo=0.0, hi=1.0,
            live=into(Forces, "damping")),
        Key("passes", "int", passes, "constraint relaxation passes per step (stiffness)", lo=1, hi=500,
            live=into(Constraints, "passes")),
        Key("colour", "colour", colour, "the links' colour", live=live_colour),
        Key("width", "float", width, "the links' stroke width, px", lo=0.1, hi=100.0, live=into(LinkStyle, "width")),
        Key("margin", "float", rope_defaults.MARGIN, "free points stay this far inside the window, px", lo=0.0,
            hi=1000.0, live=rope_defaults.live_margin),
        Key("grab_radius", "float", rope_defaults.GRAB_RADIUS, "pick distance for a press, px", lo=0.0, hi=10_000.0,
            live=into(Grab, "radius")),
        Key("point_radius", "float", POINT_RADIUS, "each point's radius against the layer's colliders, px",
            lo=0.0, hi=1000.0),
    )


def live_colour(body, cfg, name):
    body.get(LinkStyle).colour = parse_colour(cfg[name])


COLLIDER = (colliders.COLLIDER, 0, colliders.MAX_COLLIDERS, "a static, kinematic or dynamic shape the composite meets")


def xy(at, w: float, h: float) -> np.ndarray:
    """A position key's [x, y] scene fractions as float64 px."""
    return np.array([at[0] * w, at[1] * h], np.float64)


def refuse(level, key_path: str, expected: str, found) -> None:
    raise LevelError(level, key_path, f"expected {expected}, found {found}")


def spawn_body(cfg: dict, layer: Layer, frame, pos: np.ndarray, a, b, pinned=(), rest=None,
               point_radius=None, extra=(), shapes=(), held=None) -> int:
    """One body entity: points at ``pos`` (float[n, 2] px), links a[i]–b[i] with ``rest`` lengths
    (None: as laid out), the points ``pinned`` held where they are, the composite's own collider
    tables ``shapes`` (`colliders.COLLIDER`'s keys, filled) then the layer's colliders, the points
    ``held`` = (index, collider) on those colliders (`colliders.hold`: on each one's surface), and
    ``extra`` components (a constraint type's data). Returns the entity."""
    w, h = frame.width, frame.height
    points = Points.at(pos)
    pinned = np.asarray(pinned, np.int32)
    pins = Pins(index=pinned, anchor=points.pos[pinned].copy())
    pins.apply(points)
    a, b = np.ascontiguousarray(a, np.int32), np.ascontiguousarray(b, np.int32)
    if rest is None:
        rest = np.linalg.norm(points.pos[b] - points.pos[a], axis=1)
    radius = np.full(len(pos), cfg["point_radius"], np.float32) if point_radius is None else point_radius
    m = cfg["margin"]
    coll = colliders.build([*shapes, *cfg.get("collider", [])], w, h, radius, m)
    if held is not None:
        colliders.hold(coll, points, *held)
    return esper.create_entity(
        points, pins, layer, *([coll] if coll is not None else []), *extra,
        Constraints(a=a, b=b, rest=np.ascontiguousarray(rest, np.float32), passes=cfg["passes"], share=1.0),
        Forces(gravity=np.array([0.0, cfg["gravity"]], np.float32), damping=cfg["damping"]),
        Bounds(lo=np.array([m, m], np.float32), hi=np.array([w - m, h - m], np.float32)),
        Grab(radius=cfg["grab_radius"], pin=True),
        LinkStyle(colour=parse_colour(cfg["colour"]), width=cfg["width"]),
    )


def work_of(links: int, passes: int) -> Work:
    """validate's real-time estimate for a composite of ``links`` links."""
    return Work(links=links, passes=passes, relax_ns=RELAX_NS_MESH, draw_ns=links * DRAW_NS_LINK)


def ring(centre, radius: float, n: int, phase: float = 0.0) -> np.ndarray:
    """n points evenly round a circle, clockwise on screen from angle ``phase`` (radians), px."""
    t = phase + 2 * math.pi * np.arange(n) / n
    return np.stack([centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)], 1)
