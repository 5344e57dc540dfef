"""The "bridge" composite: a chain (or, with a deck, a planked bridge) hung between two points
with a given sag."""
from __future__ import annotations

import math

import numpy as np

from ropework.components.solve import Bending, Extras
from ropework.kinds import Kind
from ropework.kinds.composites.body import (
    COLLIDER,
    MAX_POINTS,
    REFERENCE,
    SYSTEMS,
    body_keys,
    refuse,
    spawn_body,
    work_of,
    xy,
)
from ropework.schema import Key, table

MAX_LINK = 40.0   # px: a link at most this long at rest, or a peg slips between two points and the chain
                  # reads as a polygon
SAMPLES = 4096    # points of the sagging curve its length is measured on (a bridge of 4,000 points still
                  # places each to a fraction of a pixel)

SCHEMA = table(
    Key("from", "pair", [0.1, 0.35], "the first end, held: [x, y] fractions of the scene's width and height",
        lo=0.0, hi=1.0),
    Key("to", "pair", [0.9, 0.35], "the other end, held: [x, y] fractions", lo=0.0, hi=1.0),
    Key("sag", "float", 60.0, "how far the middle hangs below the straight line between the ends, px "
        f"(0: taut); the bridge's length follows, and its links must stay at most {MAX_LINK:g} px",
        lo=0.0, hi=100_000.0),
    Key("points", "int", 40, "points along the bridge (along each edge of a deck)", lo=3, hi=MAX_POINTS // 2),
    Key("deck", "float", 8.0, "deck depth, px: two chains this far apart joined by a plank at every point "
        "(0: a single chain)", lo=0.0, hi=1000.0),
    Key("stiffness", "float", 0.5, "with a deck: how firmly each plank keeps square to the deck's top edge, "
        "0..1 (0: planks fold flat under a load; 1: a stiff deck that hardly sags further)", lo=0.0, hi=1.0),
    *body_keys("#c08a4a", width=2.0),
    collider=COLLIDER,
)


def curve(p0: np.ndarray, p1: np.ndarray, sag: float, n: int) -> tuple[np.ndarray, float]:
    """n points at equal steps of arc length along the parabola from p0 to p1 whose middle hangs
    ``sag`` px below the chord (px, float64[n, 2]), and its length, px."""
    t = np.linspace(0.0, 1.0, SAMPLES)
    c = p0 + t[:, None] * (p1 - p0)
    c[:, 1] += 4.0 * sag * t * (1.0 - t)
    s = np.r_[0.0, np.cumsum(np.hypot(*np.diff(c, axis=0).T))]
    at = np.linspace(0.0, s[-1], n)
    return np.stack([np.interp(at, s, c[:, 0]), np.interp(at, s, c[:, 1])], 1), float(s[-1])


def longest_sag(p0, p1, n: int) -> float:
    """px: the largest sag at which n points still span the bridge in links of MAX_LINK px (bisection)."""
    lo, hi = 0.0, 1e5
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve(p0, p1, mid, 2)[1] <= MAX_LINK * (n - 1) else (lo, mid)
    return lo


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    """Refuse a bridge its points cannot span at its sag, one hanging below the scene, or one of no span."""
    p0, p1 = xy(cfg["from"], w, h), xy(cfg["to"], w, h)
    if np.hypot(*(p1 - p0)) < 1.0:
        refuse(level, f"{key_path}.to", f"an end at least 1 px from `from` (at {w:g}×{h:g} px)", cfg["to"])
    n = cfg["points"]
    span = float(np.hypot(*(p1 - p0)))
    if span > MAX_LINK * (n - 1):
        least = int(np.ceil(span / MAX_LINK)) + 1
        refuse(level, f"{key_path}.points", f"{least}..{MAX_POINTS // 2} to span {span:.0f} px (at {w:g}×{h:g} px) "
               f"in links of at most {MAX_LINK:g} px", n)
    length = curve(p0, p1, cfg["sag"], SAMPLES)[1]
    if length > MAX_LINK * (n - 1):
        most = longest_sag(p0, p1, n)
        refuse(level, f"{key_path}.sag", f"0..{math.floor(most)} px for {n} points (links of at most {MAX_LINK:g} px; "
               f"this sag makes the bridge {length:.1f} px long, at {w:g}×{h:g} px)", f"{cfg['sag']:g}")
    low = 0.5 * (p0[1] + p1[1]) + cfg["sag"] + cfg["deck"]
    if low > h:
        refuse(level, f"{key_path}.sag", f"0..{max(0.0, cfg['sag'] - low + h):.0f} px: the middle "
               f"inside the {h:g} px scene", f"{cfg['sag']:g}")


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b, pinned): one chain, or two (the deck's top edge, then its bottom) and a plank between
    them at every point."""
    n = cfg["points"]
    top, _ = curve(xy(cfg["from"], w, h), xy(cfg["to"], w, h), cfg["sag"], n)
    i = np.arange(n - 1)
    if cfg["deck"] <= 0:
        return top, i, i + 1, [0, n - 1]
    d = np.gradient(top, axis=0)
    normal = np.stack([-d[:, 1], d[:, 0]], 1) / np.maximum(np.hypot(*d.T), 1e-9)[:, None]
    normal *= np.where(normal[:, 1:2] < 0, -1.0, 1.0)   # down the screen
    pos = np.concatenate([top, top + cfg["deck"] * normal])
    k = np.arange(n)
    a = np.concatenate([i, n + i, k])
    b = np.concatenate([i + 1, n + i + 1, n + k])
    return pos, a, b, [0, n - 1, n, 2 * n - 1]


def plank_bends(pos: np.ndarray, n: int, stiffness: float) -> Bending:
    """At each inner top point k, an angle constraint on each side of its plank (top k-1, top k,
    bottom k) and (bottom k, top k, top k+1), at the angles laid out: a plank joined to its deck only
    by links would turn flat under a load. Links of `layout`: top k→k+1 is k, plank k is 2(n-1)+k."""
    k = np.arange(1, n - 1)
    top_prev, top, top_next, bottom = k - 1, k, k + 1, n + k
    plank = 2 * (n - 1) + k
    tri = np.concatenate([np.stack([top_prev, top, bottom]), np.stack([bottom, top, top_next])], 1)
    links = np.concatenate([np.stack([k - 1, plank]), np.stack([plank, k])], 1)
    u, v = pos[tri[0]] - pos[tri[1]], pos[tri[2]] - pos[tri[1]]
    angle = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], (u * v).sum(1)).astype(np.float32)
    return Bending(tri.astype(np.int32), angle, np.full(len(angle), stiffness, np.float32), links.astype(np.int32))


def spawn(cfg: dict, layer, frame) -> int:
    pos, a, b, pinned = layout(cfg, frame.width, frame.height)
    n = cfg["points"]
    extra = [Extras(bending=plank_bends(pos, n, cfg["stiffness"]))] if cfg["deck"] > 0 and cfg["stiffness"] else []
    return spawn_body(cfg, layer, frame, pos, a, b, pinned, extra=extra)


def links(cfg: dict) -> int:
    n = cfg["points"]
    return n - 1 if cfg["deck"] <= 0 else 3 * n - 2


KIND = Kind(
    "bridge",
    "A chain or planked bridge hung between two held points with a given sag: drop balls on it (its "
    "layer's colliders with `mass`), pluck it, shake it.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["points"] * (1 if cfg["deck"] <= 0 else 2),
    work=lambda cfg, w, h: work_of(links(cfg), cfg["passes"]),
    check=lambda cfg, level, key_path: fits(cfg, level, key_path, *REFERENCE),
    systems=SYSTEMS,
    motion_note="the bridge holds still: one frame painted, no steps",
    still_when_reduced=True,
)
