"""The "blob" composite: a closed ring of points that keeps the area it encloses — a soft body.

Its area is a constraint type of its own, declared with `solver.constraint_type` as any plugin's
would be (docs/extending.md), and so solved inside every relaxation pass with the ring's links and
the layer's colliders: squeezed on one side, a blob bulges on the other."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
from ropework.systems.services.kernels import kernel
from ropework.systems.services.solver import ConstraintType, constraint_type

MAX_RING = 4096   # points round a blob at most
TINY = 1e-12      # px⁴: a ring whose area gradient is this small (every point on one spot) is left alone


@dataclass
class Area:
    """Closed rings that keep their area (the "area" constraint type).

    start, count: int32[k] — ring r is points start[r] .. start[r] + count[r] - 1, in order round it.
    rest: float32[k] — each ring's rest area, px², signed by its winding (the shoelace sum, y down).
    stiffness: float32[k] in 0..1 — the share of the area error a pass puts right.
    """

    start: np.ndarray
    count: np.ndarray
    rest: np.ndarray
    stiffness: np.ndarray


@kernel()
def keep_area(pos, prev, inv_mass, start, count, rest, stiffness):
    """Move each ring's points along the area's gradient so its area returns toward rest: the
    position-based area constraint (Müller et al.'s pressure-free soft body), each point weighted
    by its inverse mass. Gradient of A = ½ Σ (x_i y_i+1 − x_i+1 y_i) at point i:
    ½ (y_i+1 − y_i−1, x_i−1 − x_i+1)."""
    for r in range(start.shape[0]):
        s, n = start[r], count[r]
        area = 0.0
        for k in range(n):
            i, j = s + k, s + (k + 1) % n
            area += pos[i, 0] * pos[j, 1] - pos[j, 0] * pos[i, 1]
        err = 0.5 * area - rest[r]
        norm = 0.0
        for k in range(n):
            i, nx, pv = s + k, s + (k + 1) % n, s + (k - 1) % n
            gx = 0.5 * (pos[nx, 1] - pos[pv, 1])
            gy = 0.5 * (pos[pv, 0] - pos[nx, 0])
            norm += inv_mass[i] * (gx * gx + gy * gy)
        if norm < TINY:
            continue
        lam = -stiffness[r] * err / norm
        x0, y0 = pos[s, 0], pos[s, 1]           # every gradient is taken at the pass's positions:
        ox, oy = pos[s + n - 1, 0], pos[s + n - 1, 1]   # the point before, as it was before it moved
        for k in range(n):
            i = s + k
            qx, qy = (x0, y0) if k == n - 1 else (pos[i + 1, 0], pos[i + 1, 1])
            px, py = ox, oy
            ox, oy = pos[i, 0], pos[i, 1]
            w = inv_mass[i] * lam
            pos[i, 0] += w * 0.5 * (qy - py)
            pos[i, 1] += w * 0.5 * (px - qx)


AREA = constraint_type(ConstraintType("area", Area, keep_area,
                                      lambda c: (c.start, c.count, c.rest, c.stiffness), order=50.0))

SCHEMA = table(
    Key("at", "pair", [0.5, 0.2], "its centre, where it starts: [x, y] fractions of the scene's width and height",
        lo=0.0, hi=1.0),
    Key("radius", "float", 50.0, "its radius as laid out (a circle), px; more than twice `point_radius`",
        lo=0.5, hi=100_000.0),
    Key("points", "int", 32, "points round it", lo=6, hi=MAX_RING),
    Key("fill", "float", 0.9, "the area it keeps, as a fraction of its laid-out circle's (the most its ring "
        "can hold): below 1 it has room to squash without stretching its ring", lo=0.1, hi=1.0),
    Key("firmness", "float", 1.0, "how firmly it keeps its area: the share of the area error each pass puts "
        "right (1: all of it; 0: a loop of string)", lo=0.0, hi=1.0),
    *body_keys("#ff7ab0", width=2.5),
    collider=COLLIDER,
)


def sound(cfg: dict, level, key_path: str) -> None:
    if cfg["radius"] <= 2 * cfg["point_radius"]:
        refuse(level, f"{key_path}.radius", f"more than twice `point_radius` ({2 * cfg['point_radius']:g} px)"
               "..100000 px", f"{cfg['radius']:g}")


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    c, r = xy(cfg["at"], w, h), cfg["radius"]
    room = min(c[0], w - c[0], c[1], h - c[1])
    if r > room + 1e-6:
        refuse(level, f"{key_path}.radius", f"at most {room:.0f} px: the blob inside the "
               f"{w:g}×{h:g} px scene around `at`", f"{cfg['radius']:g}")


def shoelace(pos: np.ndarray) -> float:
    """px²: the signed area of the closed ring ``pos`` (float[n, 2], in order round it)."""
    x, y = pos[:, 0].astype(np.float64), pos[:, 1].astype(np.float64)
    return float(0.5 * (x * np.roll(y, -1) - np.roll(x, -1) * y).sum())


def spawn(cfg: dict, layer, frame) -> int:
    n = cfg["points"]
    pos = ring(xy(cfg["at"], frame.width, frame.height), cfg["radius"], n)
    i = np.arange(n)
    area = Area(np.zeros(1, np.int32), np.array([n], np.int32), np.array([cfg["fill"] * shoelace(pos)], np.float32),
                np.array([cfg["firmness"]], np.float32))
    return spawn_body(cfg, layer, frame, pos, i, (i + 1) % n, extra=(area,))


def check(cfg: dict, level, key_path: str) -> None:
    sound(cfg, level, key_path)
    fits(cfg, level, key_path, *REFERENCE)


KIND = Kind(
    "blob",
    "A soft blob: a closed ring of points that keeps its area (a constraint type of its own, solved "
    "in every pass); drop it, squeeze it, throw it.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["points"],
    work=lambda cfg, w, h: work_of(2 * cfg["points"], cfg["passes"]),
    check=check,
    systems=SYSTEMS,
    motion_note="the blob holds still: one frame painted, no steps",
    still_when_reduced=True,
)
