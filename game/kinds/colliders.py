"""`[[layer.collider]]`: the static, kinematic and dynamic shapes a ropes or cloth layer's body
meets, and the `Colliders` component they build (solved by the "colliders" constraint type, in
every pass); `hold` puts points of the body on colliders (`[[layer.attach]]`'s ``collider``).

A kind makes them in code as a level does: each collider a table of `COLLIDER`'s keys
(``schema.validate(table, COLLIDER, where)`` fills the defaults), `build` for the component, then
`hold` for the points it carries::

    tables = [validate({"shape": "circle", "at": [0.5, 0.6], "radius": 18, "mass": 40,
                        "restitution": 1.0}, COLLIDER, "cradle") for ...]
    col = colliders.build(tables, w, h, point_radius, margin)
    colliders.hold(col, points, index=[tip], collider=[0])   # the tip on ball 0's surface
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ropework.components.collider import CIRCLE, SHAPES, Colliders
from ropework.live import Rebuild
from ropework.schema import Key, LevelError, table

MAX_COLLIDERS = 256     # per layer: each is tested against every point in every pass
MAX_CORNERS = 64        # a polygon's corners at most
FRICTION = 0.5          # static coefficient by default: a rope rests on a slope up to atan(0.5) ≈ 27°
RESTITUTION = 0.0       # by default colliders meet as every contact of the solver does, plastically (a point
                        # on a shape, the box clamp): nothing bounces unless a level asks, and a heap comes to rest
MAX_MASS = 1e6          # a collider's mass at most, in free points' masses (as a rope's `mass`)
UNSET = math.inf        # an offset left unset: the held point sits on the collider's surface, facing where it was
SIZE = 1e5              # px: the largest radius or size a collider takes
MIN_SIZE = 0.5          # px: the smallest: half a pixel, below which a collider draws as nothing
CONVEX_EPS = 1e-6       # px²: a corner's cross product below this (of either sign) is a straight corner

def live_colliders(body, cfg, name):
    """Every collider of the layer built again in place (the studio moves, turns and tunes them): the
    body's points, the pointer's hold on one and the points held on them stay; a dynamic collider
    stays where it has moved to unless its own `at` is what changed (``body.before``: the layer's
    keys before the change, when the studio knows them)."""
    col = body.get(Colliders)
    if col is None or len(col.shape) != len(cfg["collider"]):
        raise Rebuild          # the kind adds shapes of its own (a cradle's balls): spawned again with them
    new = build(cfg["collider"], body.frame.width, body.frame.height, col.point_radius, cfg.get("margin", 0.0))
    before = (getattr(body, "before", None) or {}).get("collider") or []
    if col.prev is not None and new.prev is not None and len(col.prev) == len(new.prev) == len(before):
        stay = (new.inv_mass > 0) & np.array([b["at"] == c["at"] for b, c in zip(before, cfg["collider"])])
        new.centre[stay], new.prev[stay] = col.centre[stay], col.prev[stay]
    for f in ("shape", "centre", "axis", "half", "radius", "verts", "vstart", "mu_s", "mu_k", "kinematic", "thin",
              "reach", "inv_mass", "prev", "restitution", "box"):
        setattr(col, f, getattr(new, f))
    if col.held >= 0 and col.inv_mass is not None:       # the held one stays held: its weight waits for the release
        col.held_weight, col.inv_mass[col.held] = float(col.inv_mass[col.held]), 0.0


COLLIDER = table(
    Key("shape", "choice", None, "circle, capsule (a segment with a radius), box (oriented), polygon (convex) "
        "or plane (a half-plane, solid below its surface at angle 0)", choices=SHAPES, live=live_colliders),
    Key("at", "pair", None, "centre (a plane: a point on its surface) as [x, y] fractions of the scene's "
        "width and height", lo=0.0, hi=1.0, live=live_colliders),
    Key("radius", "float", 20.0, "a circle's or capsule's radius, px", lo=MIN_SIZE, hi=SIZE, live=live_colliders),
    Key("size", "pair", [40.0, 40.0], "a box's [width, height], px; a capsule's segment length is size[0] "
        "(its size[1] is not read)", lo=0.0, hi=SIZE, live=live_colliders),
    Key("angle", "float", 0.0, "rotation, degrees, clockwise on screen (a plane: its surface's tilt)",
        lo=-360.0, hi=360.0, live=live_colliders),
    Key("points", "pairs", [], "a polygon's corners, [x, y] px from `at` before rotation, in order around it "
        f"(3..{MAX_CORNERS}, convex)", lo=-SIZE, hi=SIZE, max_len=MAX_CORNERS, live=live_colliders),
    Key("friction", "float", FRICTION, "static friction coefficient: a rope rests on a slope of angle θ while "
        "tan θ ≤ friction", lo=0.0, hi=100.0, live=live_colliders),
    Key("kinetic", "float", -1.0, "kinetic friction coefficient while sliding (negative: the same as "
        "`friction`)", lo=-1.0, hi=100.0, live=live_colliders),
    Key("kinematic", "bool", False, "the pointer can drag it; it pushes the points it meets", live=live_colliders),
    Key("mass", "float", 0.0, "0: static (or kinematic); more: a dynamic body of this mass, in free rope points' "
        "(each weighs 1): it falls, swings and is pushed, translation only (a circle also meets the other "
        "colliders); the pointer can drag it", lo=0.0, hi=MAX_MASS, live=live_colliders),
    Key("restitution", "float", RESTITUTION, "0..1: of an impact between two colliders, the share of the approach "
        "speed they part with (the larger of the two's; 1 elastic, 0 they move on together)", lo=0.0, hi=1.0, live=live_colliders),
)


def check(cfg: dict, level, key_path: str, size=None) -> None:
    """What the ranges cannot say: a positive radius or size, a convex polygon of 3 or more corners;
    a collider wholly outside the scene (of ``size`` w, h, when known) is a warning on stderr."""
    for i, c in enumerate(cfg.get("collider", ())):
        p = f"{key_path}.collider[{i}]"
        s = c["shape"]
        if s in ("circle", "capsule") and c["radius"] <= 0:
            raise LevelError(level, f"{p}.radius", f"expected a positive radius, px, found {c['radius']:g}")
        if s == "box" and min(c["size"]) < MIN_SIZE:
            raise LevelError(level, f"{p}.size", f"expected a width and height of at least {MIN_SIZE:g} px, "
                             "found [" + ", ".join(f"{x:g}" for x in c["size"]) + "]")
        if s == "polygon":
            pts = np.array(c["points"], np.float64).reshape(-1, 2)
            if len(pts) < 3:
                raise LevelError(level, f"{p}.points", f"expected at least 3 corners, found {len(pts)}")
            if not convex(pts):
                raise LevelError(level, f"{p}.points", "expected a convex polygon (corners in order around it), "
                                 "found one that is not")
        if c["mass"] > 0 and s == "plane":
            raise LevelError(level, f"{p}.mass", f"expected 0 for a plane (it cannot move), found {c['mass']:g}")
        if c["mass"] > 0 and c["kinematic"]:
            raise LevelError(level, f"{p}.mass", f"expected 0 for a kinematic collider (the pointer moves it; "
                             f"a dynamic one is dragged anyway), found {c['mass']:g}")
        if size is not None and outside(c, *size):
            print(f"ropework: {level}: {p}: warning: the collider lies wholly outside the scene", file=sys.stderr)


def convex(pts: np.ndarray) -> bool:
    """Whether the corners, in order, bound a convex polygon of positive area (either winding)."""
    e = np.roll(pts, -1, axis=0) - pts
    cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
    turn = cross[np.abs(cross) > CONVEX_EPS]
    if len(turn) < 3 or not ((turn > 0).all() or (turn < 0).all()):
        return False
    ang = np.arctan2(e[:, 1], e[:, 0])
    total = np.abs(np.angle(np.exp(1j * (np.roll(ang, -1) - ang))).sum())
    return abs(total - 2 * math.pi) < 1e-6     # one turn around, not a star


def _reach(c: dict) -> float:
    """px: how far the collider reaches from its centre at most (a plane: unbounded)."""
    s = c["shape"]
    if s == "circle":
        return c["radius"]
    if s == "capsule":
        return 0.5 * c["size"][0] + c["radius"]
    if s == "box":
        return 0.5 * math.hypot(*c["size"])
    if s == "polygon":
        return float(np.hypot(*np.array(c["points"]).T).max())
    return math.inf


def outside(c: dict, w: float, h: float) -> bool:
    if c["shape"] == "plane":
        a = math.radians(c["angle"])
        n = np.array([math.sin(a), -math.cos(a)])
        corners = np.array([[0, 0], [w, 0], [0, h], [w, h]]) - np.array([c["at"][0] * w, c["at"][1] * h])
        return bool((corners @ n < -1e-6).sum() == 0)   # no corner of the scene is inside its solid side
    x, y, r = c["at"][0] * w, c["at"][1] * h, _reach(c)
    return x + r < 0 or y + r < 0 or x - r > w or y - r > h


def build(tables: list, w: float, h: float, point_radius: np.ndarray, margin: float = 0.0) -> Colliders | None:
    """The layer's `Colliders` at scene size w × h for a body of these point radii (px), or None;
    dynamic ones (``mass`` > 0) kept ``margin`` px inside the scene, as the body's points."""
    if not tables:
        return None
    k = len(tables)
    code = {name: i for i, name in enumerate(SHAPES)}
    shape = np.array([code[c["shape"]] for c in tables], np.int32)
    centre = np.array([[c["at"][0] * w, c["at"][1] * h] for c in tables], np.float32)
    ang = np.radians([c["angle"] for c in tables])
    axis = np.stack([np.cos(ang), np.sin(ang)], 1).astype(np.float32)
    half = np.zeros((k, 2), np.float32)
    for i, c in enumerate(tables):
        if c["shape"] in ("box", "capsule"):
            half[i] = 0.5 * np.array(c["size"], np.float32)
    radius = np.array([c["radius"] if c["shape"] in ("circle", "capsule") else 0.0 for c in tables], np.float32)
    polys = []
    for c in tables:
        v = np.array(c["points"], np.float32).reshape(-1, 2) if c["shape"] == "polygon" else np.zeros((0, 2), np.float32)
        if len(v) and _signed_area(v) < 0:      # counter-clockwise on screen (y down): positive area here
            v = v[::-1]
        polys.append(v)
    vstart = np.r_[0, np.cumsum([len(v) for v in polys])].astype(np.int32)
    verts = np.ascontiguousarray(np.concatenate(polys), np.float32) if vstart[-1] else np.zeros((1, 2), np.float32)
    mu_s = np.array([c["friction"] for c in tables], np.float32)
    mu_k = np.array([c["friction"] if c["kinetic"] < 0 else c["kinetic"] for c in tables], np.float32)
    widths = [2 * c["radius"] if c["shape"] == "circle" else 2 * c["radius"] if c["shape"] == "capsule"
              else min(c["size"]) if c["shape"] == "box" else _least_width(polys[i]) if c["shape"] == "polygon"
              else math.inf for i, c in enumerate(tables)]
    col = Colliders(shape, centre, axis, half, radius, verts, vstart, mu_s, mu_k,
                    np.array([c["kinematic"] for c in tables], bool), np.ascontiguousarray(point_radius, np.float32),
                    thin=float(min(min(widths), 1e4)),
                    reach=np.array([min(_reach(c), 1e30) for c in tables], np.float64))
    mass = np.array([c.get("mass", 0.0) for c in tables], np.float64)
    if (mass > 0).any():      # only then: a layer of static shapes keeps the fields it always had
        col.inv_mass = np.where(mass > 0, 1.0 / np.maximum(mass, 1e-30), 0.0).astype(np.float32)
        col.prev = centre.copy()
        col.restitution = np.array([c.get("restitution", RESTITUTION) for c in tables], np.float32)
        col.box = np.array([margin, margin, w - margin, h - margin], np.float32)
    return col


def hold(col: Colliders, points, index, collider, offset=None, break_force=None) -> None:
    """Hold points of the body (int[h] ``index``) on colliders (int[h] ``collider``), each at
    ``offset`` px from its centre (float[h, 2]; a row of `UNSET` or None for all: on the
    collider's surface, toward where the point is; a held point does not collide with its holder). Moves each point
    there, at rest; ``break_force`` (float[h], point mass · px/s², 0 never) lets one go. Adds to
    any holds ``col`` has. A pinned point held stays pinned: the caller frees it (a rope's anchor
    held by a collider is the collider's to carry)."""
    index = np.asarray(index, np.int32).reshape(-1)
    collider = np.asarray(collider, np.int32).reshape(-1)
    k = len(index)
    off = np.full((k, 2), UNSET, np.float64) if offset is None else np.array(offset, np.float64).reshape(k, 2)
    unset = ~np.isfinite(off).all(axis=1)
    if unset.any():
        d = points.pos[index[unset]].astype(np.float64) - col.centre[collider[unset]]
        length = np.hypot(d[:, 0], d[:, 1])
        d = np.where(length[:, None] > 1e-9, d / np.maximum(length, 1e-9)[:, None], [0.0, -1.0])
        c = collider[unset]
        out = np.where(col.shape[c] == CIRCLE, col.radius[c], np.minimum(col.reach[c], SIZE))   # a circle's surface,
        off[unset] = d * out[:, None]                                              # else its reach: outside it every way
    pos = (col.centre[collider] + off).astype(np.float32)
    points.pos[index] = pos
    points.prev[index] = pos
    brk = np.zeros(k, np.float32) if break_force is None else np.asarray(break_force, np.float32).reshape(k)
    if col.hold is None:
        col.hold, col.offset = np.zeros((2, 0), np.int32), np.zeros((0, 2), np.float32)
        col.hold_break, col.hold_pull = np.zeros(0, np.float32), np.zeros(0, np.float32)
        col.held_by = np.full(len(points.pos), -1, np.int32)
    col.hold = np.ascontiguousarray(np.concatenate([col.hold, np.stack([index, collider])], axis=1), np.int32)
    col.offset = np.ascontiguousarray(np.concatenate([col.offset, off.astype(np.float32)]), np.float32)
    col.hold_break = np.concatenate([col.hold_break, brk]).astype(np.float32)
    col.hold_pull = np.zeros(len(col.hold_break), np.float32)
    col.held_by[index] = collider


def _signed_area(v: np.ndarray) -> float:
    x, y = v[:, 0], v[:, 1]
    return float(0.5 * (x * np.roll(y, -1) - np.roll(x, -1) * y).sum())


def _least_width(v: np.ndarray) -> float:
    """px: a convex polygon's least width across (over its edges' normals)."""
    e = np.roll(v, -1, axis=0) - v
    n = np.stack([e[:, 1], -e[:, 0]], 1) / np.maximum(np.hypot(e[:, 0], e[:, 1]), 1e-12)[:, None]
    proj = v @ n.T
    return float((proj.max(0) - proj.min(0)).min())
