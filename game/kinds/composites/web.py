"""The "web" composite: a spider web — radial threads from a hub out to the scene's edges, where
they are held, and a spiral thread wound across them."""
from __future__ import annotations

import math

import numpy as np

from ropework.kinds import Kind
from ropework.kinds.composites.body import COLLIDER, REFERENCE, SYSTEMS, body_keys, refuse, spawn_body, work_of, xy
from ropework.schema import Key, table

MAX_THREADS = 128     # radial threads at most
MAX_TURNS = 200       # spiral turns at most
ROOM = 16.0           # px: the hub at least this far inside the scene's edges, so no thread is a point

SCHEMA = table(
    Key("at", "pair", [0.5, 0.45], "the hub: [x, y] fractions of the scene's width and height", lo=0.0, hi=1.0),
    Key("threads", "int", 12, "radial threads, evenly round the hub, each held where it meets the scene's edge",
        lo=3, hi=MAX_THREADS),
    Key("turns", "int", 8, "turns of the spiral thread (0: radial threads only)", lo=0, hi=MAX_TURNS),
    Key("reach", "float", 0.7, "how far out the spiral winds, as a fraction of the shortest thread's length "
        "(the hub's distance to the nearest held edge)", lo=0.05, hi=1.0),
    Key("angle", "float", 0.0, "the first thread's direction, degrees clockwise from the right", lo=-360.0,
        hi=360.0),
    Key("spread", "float", 360.0, "the fan the threads cover, degrees clockwise from `angle`: 360 all round "
        "(a spiral), less a web in a corner or along an edge (the spiral then runs in arcs across the fan, "
        "end thread to end thread)", lo=10.0, hi=360.0),
    *body_keys("#8c8ca8", width=1.2),
    collider=COLLIDER,
)


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    c, m = xy(cfg["at"], w, h), ROOM
    if not (m <= c[0] <= w - m and m <= c[1] <= h - m):
        refuse(level, f"{key_path}.at", f"a hub at least {m:g} px inside the {w:g}×{h:g} px scene's edges",
               list(cfg["at"]))


def edge_reach(c: np.ndarray, d: np.ndarray, lo: float, hi_x: float, hi_y: float) -> np.ndarray:
    """px: how far from c, along each unit direction d, the box [lo, hi_x] × [lo, hi_y] ends."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tx = np.where(d[:, 0] > 0, (hi_x - c[0]) / d[:, 0], np.where(d[:, 0] < 0, (lo - c[0]) / d[:, 0], np.inf))
        ty = np.where(d[:, 1] > 0, (hi_y - c[1]) / d[:, 1], np.where(d[:, 1] < 0, (lo - c[1]) / d[:, 1], np.inf))
    return np.minimum(tx, ty)


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b, pinned): the hub (point 0); thread i's spiral crossings, turn k at
    1 + i · turns + k; then the held ends. All round, the spiral climbs 1/threads of a turn from
    one thread to the next, so it winds out as one thread; a fan has an arc a turn instead."""
    t, k = cfg["threads"], cfg["turns"]
    c = xy(cfg["at"], w, h)
    whole = cfg["spread"] >= 360.0                                  # all round: a spiral
    ang = math.radians(cfg["angle"]) + math.radians(cfg["spread"]) * np.arange(t) / (t if whole else t - 1)
    d = np.stack([np.cos(ang), np.sin(ang)], 1)
    length = np.maximum(edge_reach(c, d, 0.0, w, h), 1.0)          # held on the scene's edges
    i, j = np.meshgrid(np.arange(t), np.arange(k), indexing="ij")
    climb = i / t if whole else 0.0                                   # a spiral climbs a turn round; arcs do not
    r = cfg["reach"] * length.min() * (j + 1 + climb) / (k + 1)     # px from the hub: round, not the box's shape
    cross = c + r[..., None] * d[:, None, :]                           # [t, k, 2]
    ends = c + length[:, None] * d
    pos = np.concatenate([c[None], cross.reshape(-1, 2), ends])
    node = 1 + np.arange(t * k).reshape(t, k)
    end = 1 + t * k + np.arange(t)
    chain = np.concatenate([np.zeros((t, 1), np.int64), node, end[:, None]], 1)   # hub → crossings → end
    ra, rb = chain[:, :-1].ravel(), chain[:, 1:].ravel()
    if whole:
        spiral = node.T.ravel()                                       # thread 0 turn 0, thread 1 turn 0, …
        sa, sb = spiral[:-1], spiral[1:]
    else:
        sa, sb = node[:-1].ravel(), node[1:].ravel()                  # each arc: thread i to i + 1, no wrap
    return pos, np.r_[ra, sa], np.r_[rb, sb], end


def spawn(cfg: dict, layer, frame) -> int:
    pos, a, b, pinned = layout(cfg, frame.width, frame.height)
    return spawn_body(cfg, layer, frame, pos, a, b, pinned)


def links(cfg: dict) -> int:
    t, k = cfg["threads"], cfg["turns"]
    return t * (k + 1) + (max(t * k - 1, 0) if cfg["spread"] >= 360.0 else (t - 1) * k)


KIND = Kind(
    "web",
    "A spider web: radial threads held at the scene's edges and a spiral across them; pluck it, "
    "drop things into it.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: 1 + cfg["threads"] * (cfg["turns"] + 1),
    work=lambda cfg, w, h: work_of(links(cfg), cfg["passes"]),
    check=lambda cfg, level, key_path: fits(cfg, level, key_path, *REFERENCE),
    systems=SYSTEMS,
    motion_note="the web holds still: one frame painted, no steps",
    still_when_reduced=True,
)
