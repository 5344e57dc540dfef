"""The "cradle" composite: Newton's cradle — a row of balls, each a dynamic collider on a string of
points, touching at rest; the first one lifted aside swings down and its impact is handed along the
row to the last one (the colliders' restitution pass)."""
from __future__ import annotations

import math

import numpy as np

from ropework.kinds import Kind
from ropework.kinds import colliders as coll
from ropework.kinds.composites.body import COLLIDER, REFERENCE, SYSTEMS, body_keys, refuse, spawn_body, work_of, xy
from ropework.schema import Key, table, validate

MAX_BALLS = 64   # balls in a row at most (each is a dynamic collider: the layer takes 256)
PASSES = 40       # relaxation passes per step: a string carrying a ball a hundred times its points' weight
                  # stretches 5 % at 20 passes, 2.5 % at 40
DAMPING = 0.9995  # fraction of velocity kept per step: a cradle runs for half a minute, not the ropes' few seconds

SCHEMA = table(
    Key("at", "pair", [0.5, 0.6], "the row's middle, the balls' centres at rest: [x, y] fractions of the scene's "
        "width and height", lo=0.0, hi=1.0),
    Key("balls", "int", 5, "balls in the row", lo=2, hi=MAX_BALLS),
    Key("radius", "float", 20.0, "each ball's radius, px", lo=1.0, hi=1000.0),
    Key("spacing", "float", 40.5, "from one ball's centre to the next, px: at least 2 × radius (balls that "
        "overlap at rest cannot hang still); a hair more, so they just touch", lo=1.0, hi=10_000.0),
    Key("length", "float", 180.0, "each string's length, from its held end to its ball's surface, px",
        lo=1.0, hi=100_000.0),
    Key("points", "int", 8, "points on each string, its held end included", lo=2, hi=1000),
    Key("mass", "float", 100.0, "each ball's mass, in the string's points' (each weighs 1): heavy balls swing "
        "light strings", lo=0.01, hi=coll.MAX_MASS),
    Key("restitution", "float", 1.0, "of an impact, the share of the approach speed the balls part with: 1 "
        "hands it all on, 0 they move on together", lo=0.0, hi=1.0),
    Key("lift", "float", 30.0, "how far the first ball starts pulled aside, degrees of its string's swing "
        "(negative: the last ball, the other way; 0: all at rest)", lo=-90.0, hi=90.0),
    *body_keys("#7c7c90", width=1.2, passes=PASSES, damping=DAMPING),
    collider=COLLIDER,
)


def check(cfg: dict, level, key_path: str) -> None:
    """Refuse balls that overlap at rest, and a cradle that does not fit the default scene."""
    if cfg["spacing"] < 2 * cfg["radius"]:
        refuse(level, f"{key_path}.spacing", f"{2 * cfg['radius']:g}..10000 px (2 × radius: balls that overlap "
               "at rest cannot hang still)", f"{cfg['spacing']:g}")
    w, h = REFERENCE
    c = xy(cfg["at"], w, h)
    half = 0.5 * (cfg["balls"] - 1) * cfg["spacing"] + cfg["radius"]
    if c[0] - half < 0 or c[0] + half > w or c[1] + cfg["radius"] > h:
        refuse(level, f"{key_path}.spacing", f"a row inside the {w}×{h} px scene around `at`",
               f"{cfg['balls']} balls {cfg['spacing']:g} px apart")
    if cfg["length"] + cfg["radius"] > c[1]:
        refuse(level, f"{key_path}.length", f"1..{max(c[1] - cfg['radius'], 1):.0f} px: the strings held inside the "
               f"{w}×{h} px scene", f"{cfg['length']:g}")


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b, pinned, tips, centres): string i's points from its held end down, its tip on the
    top of ball i; ball i's centre. The first ball (the last with a negative lift) starts swung aside."""
    n, k = cfg["balls"], cfg["points"]
    c = xy(cfg["at"], w, h)
    x = c[0] + (np.arange(n) - 0.5 * (n - 1)) * cfg["spacing"]
    pr = cfg["point_radius"]
    reach = max(cfg["length"] - pr, 1.0)                        # held end to the tip's centre, px
    top = c[1] - cfg["radius"] - pr - reach
    j = np.arange(k) / (k - 1)
    pos = np.stack([np.repeat(x, k), top + np.tile(j, n) * reach], 1)
    centres = np.stack([x, np.full(n, c[1])], 1)
    if cfg["lift"]:
        i = 0 if cfg["lift"] > 0 else n - 1
        turn = math.radians(cfg["lift"])                          # positive: the first ball out to the left
        pivot = np.array([x[i], top])
        rot = np.array([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
        sl = slice(i * k, (i + 1) * k)
        pos[sl] = pivot + (pos[sl] - pivot) @ rot.T
        centres[i] = pivot + (centres[i] - pivot) @ rot.T
    s = np.arange(n * k).reshape(n, k)
    return pos, s[:, :-1].ravel(), s[:, 1:].ravel(), s[:, 0], s[:, -1], centres


def spawn(cfg: dict, layer, frame) -> int:
    w, h = frame.width, frame.height
    pos, a, b, pinned, tips, centres = layout(cfg, w, h)
    balls = [validate({"shape": "circle", "at": [float(np.clip(p[0] / w, 0, 1)), float(np.clip(p[1] / h, 0, 1))],
                       "radius": cfg["radius"], "mass": cfg["mass"], "restitution": cfg["restitution"],
                       "friction": 0.0}, coll.COLLIDER, "cradle") for p in centres]
    return spawn_body(cfg, layer, frame, pos, a, b, pinned, shapes=balls,
                      held=(tips, np.arange(len(tips))))     # each tip on its ball's surface, toward its string


KIND = Kind(
    "cradle",
    "Newton's cradle: balls (dynamic colliders) on strings, touching in a row; the first swings down and "
    "its impact is handed along the row to the last.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["balls"] * cfg["points"],
    work=lambda cfg, w, h: work_of(cfg["balls"] * (cfg["points"] - 1), cfg["passes"]),
    check=check,
    systems=SYSTEMS,
    motion_note="the cradle holds still: one frame painted, no steps",
    still_when_reduced=True,
)
