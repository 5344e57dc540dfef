"""The "wheel" composite: a rim braced into a stiff ring, spokes and a hub, that rolls on friction."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Points
from ropework.kinds import Kind
from ropework.kinds.composites.body import (
    COLLIDER,
    REFERENCE,
    SYSTEMS,
    body_keys,
    refuse,
    ring,
    spawn_body,
    work_of,
    xy,
)
from ropework.schema import Key, table

MAX_RIM = 1024   # rim points at most: a wheel's rim smoother than this shows nothing more

SCHEMA = table(
    Key("at", "pair", [0.2, 0.3], "the hub, where it starts: [x, y] fractions of the scene's width and height",
        lo=0.0, hi=1.0),
    Key("radius", "float", 40.0, "the rim's radius, px; more than twice `point_radius`", lo=0.5, hi=100_000.0),
    Key("points", "int", 24, "points round the rim; each is tied to its two neighbours on either side, "
        "so the rim holds round", lo=6, hi=MAX_RIM),
    Key("spokes", "int", 12, "spokes from the hub to the rim, evenly round it (3..`points`): one to every other "
        "rim point holds the braced rim rigid; fewer, a tyre that gives between them and dents where it lands; "
        "more only fight each other (the solver jitters)", lo=3, hi=MAX_RIM),
    Key("spin", "float", 0.0, "turns per second it starts with, clockwise on screen (negative: the other way)",
        lo=-100.0, hi=100.0),
    *body_keys("#6f8196", width=2.5, passes=24),
    collider=COLLIDER,
)


def sound(cfg: dict, level, key_path: str) -> None:
    """Refuse a wheel no bigger than its points, or more spokes than rim points."""
    if cfg["radius"] <= 2 * cfg["point_radius"]:
        refuse(level, f"{key_path}.radius", f"more than twice `point_radius` ({2 * cfg['point_radius']:g} px) "
               "..100000 px, so the rim's points clear the hub's", f"{cfg['radius']:g}")
    if cfg["spokes"] > cfg["points"]:
        refuse(level, f"{key_path}.spokes", f"3..{cfg['points']} (one spoke a rim point at most)", cfg["spokes"])


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    c, r = xy(cfg["at"], w, h), cfg["radius"]
    room = min(c[0], w - c[0], c[1], h - c[1])
    if r > room + 1e-6:
        refuse(level, f"{key_path}.radius", f"at most {room:.0f} px: the rim inside the "
               f"{w:g}×{h:g} px scene around `at`", f"{cfg['radius']:g}")


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b): the hub (point 0), then the rim clockwise from the right; rim links to the next
    point and the one after (a braced, stiff ring), then the spokes."""
    n, r = cfg["points"], cfg["radius"]
    hub = xy(cfg["at"], w, h)
    pos = np.concatenate([hub[None], ring(hub, r, n)])
    i = np.arange(n)
    spoke = 1 + (np.arange(cfg["spokes"]) * n) // cfg["spokes"]
    a = np.concatenate([1 + i, 1 + i, np.zeros(len(spoke), np.int64)])
    b = np.concatenate([1 + (i + 1) % n, 1 + (i + 2) % n, spoke])
    return pos, a, b


def spawn(cfg: dict, layer, frame) -> int:
    pos, a, b = layout(cfg, frame.width, frame.height)
    ent = spawn_body(cfg, layer, frame, pos, a, b)
    if cfg["spin"]:
        pts = esper.component_for_entity(ent, Points)
        turn = 2 * math.pi * cfg["spin"] * frame.dt          # radians a step
        d = pts.pos - pts.pos[0]
        back = np.stack([d[:, 0] * math.cos(-turn) - d[:, 1] * math.sin(-turn),
                         d[:, 0] * math.sin(-turn) + d[:, 1] * math.cos(-turn)], 1)
        pts.prev[:] = pts.pos[0] + back                       # velocity is pos - prev: a turn a step back
    return ent


def check(cfg: dict, level, key_path: str) -> None:
    sound(cfg, level, key_path)
    fits(cfg, level, key_path, *REFERENCE)


KIND = Kind(
    "wheel",
    "A wheel: a braced rim, spokes and a hub, that rolls on the friction of the colliders it meets — "
    "down a slope, over pegs and bridges.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["points"] + 1,
    work=lambda cfg, w, h: work_of(2 * cfg["points"] + cfg["spokes"], cfg["passes"]),
    check=check,
    systems=SYSTEMS,
    motion_note="the wheel holds still: one frame painted, no steps",
    still_when_reduced=True,
)
