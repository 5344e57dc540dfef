"""The "net" composite: a mesh of links held at its corners (or its top corners, or its border)."""
from __future__ import annotations

import numpy as np

from ropework.kinds import Kind
from ropework.kinds.cloth import grid_constraints
from ropework.kinds.composites.body import COLLIDER, REFERENCE, SYSTEMS, body_keys, refuse, spawn_body, work_of, xy
from ropework.schema import Key, table

MAX_SIDE = 300   # knots along a side: 90,000 knots, near a composite's point cap

SCHEMA = table(
    Key("at", "pair", [0.5, 0.4], "the net's centre: [x, y] fractions of the scene's width and height",
        lo=0.0, hi=1.0),
    Key("size", "pair", [360.0, 200.0], "[width, height] between its corners, px, as laid out", lo=1.0,
        hi=100_000.0),
    Key("cols", "int", 16, "knots across", lo=2, hi=MAX_SIDE),
    Key("rows", "int", 10, "knots down", lo=2, hi=MAX_SIDE),
    Key("pin", "choice", "corners", "what holds it: its four corners, its two top corners, or its whole border",
        choices=("corners", "top", "border")),
    Key("slack", "float", 0.06, "how much longer each thread is than the gap it spans, as a fraction "
        "(0: taut; 0.06: 6 % longer, so the net sags)", lo=0.0, hi=1.0),
    *body_keys("#9ad1c0", width=1.5),
    collider=COLLIDER,
)


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    """Refuse a net whose corners lie outside the scene."""
    c, (sw, sh) = xy(cfg["at"], w, h), cfg["size"]
    room = 2 * min(c[0], w - c[0]), 2 * min(c[1], h - c[1])
    if sw > room[0] + 1e-6 or sh > room[1] + 1e-6:
        refuse(level, f"{key_path}.size", f"at most [{room[0]:.0f}, {room[1]:.0f}] px: the corners inside the "
               f"{w:g}×{h:g} px scene around `at`", f"[{sw:g}, {sh:g}]")


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b, pinned) of the net, row-major, knot (r, c) at r · cols + c."""
    cols, rows = cfg["cols"], cfg["rows"]
    c, (sw, sh) = xy(cfg["at"], w, h), cfg["size"]
    gx, gy = np.meshgrid(np.linspace(-0.5, 0.5, cols), np.linspace(-0.5, 0.5, rows))
    pos = np.stack([c[0] + gx.ravel() * sw, c[1] + gy.ravel() * sh], 1)
    a, b = grid_constraints(cols, rows, False)
    idx = np.arange(cols * rows).reshape(rows, cols)
    corners = [idx[0, 0], idx[0, -1], idx[-1, 0], idx[-1, -1]]
    pinned = {"corners": corners, "top": corners[:2],
              "border": np.unique(np.r_[idx[0], idx[-1], idx[:, 0], idx[:, -1]])}[cfg["pin"]]
    return pos, a, b, pinned


def spawn(cfg: dict, layer, frame) -> int:
    pos, a, b, pinned = layout(cfg, frame.width, frame.height)
    rest = np.linalg.norm(pos[b] - pos[a], axis=1) * (1.0 + cfg["slack"])
    return spawn_body(cfg, layer, frame, pos, a, b, pinned, rest)


def links(cfg: dict) -> int:
    cols, rows = cfg["cols"], cfg["rows"]
    return rows * (cols - 1) + cols * (rows - 1)


KIND = Kind(
    "net",
    "A net of knotted threads held at its corners (or top corners, or border): drop things in it, "
    "pull it about.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: cfg["cols"] * cfg["rows"],
    work=lambda cfg, w, h: work_of(links(cfg), cfg["passes"]),
    check=lambda cfg, level, key_path: fits(cfg, level, key_path, *REFERENCE),
    systems=SYSTEMS,
    motion_note="the net holds still: one frame painted, no steps",
    still_when_reduced=True,
)
