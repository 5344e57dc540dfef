"""The "sign" composite: a braced board hanging from two held points on two ropes."""
from __future__ import annotations

import numpy as np

from ropework.kinds import Kind
from ropework.kinds.cloth import grid_constraints
from ropework.kinds.composites.body import COLLIDER, REFERENCE, SYSTEMS, body_keys, refuse, spawn_body, work_of, xy
from ropework.schema import Key, table

BOARD_STEP = 30.0   # px: the board's lattice spacing at most; each cell braced both ways, so it holds square
MAX_ROPE = 10_000   # points on each rope at most

SCHEMA = table(
    Key("at", "pair", [0.5, 0.4], "the board's centre as it hangs at rest: [x, y] fractions of the scene's "
        "width and height", lo=0.0, hi=1.0),
    Key("size", "pair", [180.0, 70.0], "the board's [width, height], px", lo=1.0, hi=100_000.0),
    Key("hang", "float", 80.0, "each rope's length from its held point down to the board's top corner, px",
        lo=1.0, hi=100_000.0),
    Key("points", "int", 10, "points on each rope, its held end and the board's corner included", lo=2,
        hi=MAX_ROPE),
    *body_keys("#f2c14e", width=1.5),
    collider=COLLIDER,
)


def fits(cfg: dict, level, key_path: str, w: float, h: float) -> None:
    c, (sw, sh) = xy(cfg["at"], w, h), cfg["size"]
    top = c[1] - 0.5 * sh
    if cfg["hang"] > top + 1e-6:
        refuse(level, f"{key_path}.hang", f"1..{max(top, 1):.0f} px: the held points inside "
               f"the {w:g}×{h:g} px scene above the board", f"{cfg['hang']:g}")
    if c[0] - 0.5 * sw < 0 or c[0] + 0.5 * sw > w or c[1] + 0.5 * sh > h:
        refuse(level, f"{key_path}.size", f"a board inside the {w:g}×{h:g} px scene around `at`", f"[{sw:g}, {sh:g}]")


def layout(cfg: dict, w: float, h: float):
    """(pos, a, b, pinned): the board's lattice (row-major, braced both ways), then each rope's points
    from its held end down, the last of them joined to the board's top corner."""
    c, (sw, sh) = xy(cfg["at"], w, h), cfg["size"]
    cols = max(2, int(np.ceil(sw / BOARD_STEP)) + 1)
    rows = max(2, int(np.ceil(sh / BOARD_STEP)) + 1)
    gx, gy = np.meshgrid(np.linspace(-0.5, 0.5, cols), np.linspace(-0.5, 0.5, rows))
    board = np.stack([c[0] + gx.ravel() * sw, c[1] + gy.ravel() * sh], 1)
    a, b = grid_constraints(cols, rows, True)
    n, nb = cfg["points"] - 1, len(board)        # each rope's own points: the corner is the board's
    drop = np.linspace(0.0, 1.0, n + 1)[:-1]
    parts, ra, rb, pinned = [board], [a], [b], []
    for k, corner in enumerate((0, cols - 1)):
        first = nb + k * n
        top = board[corner] - (0.0, cfg["hang"])
        parts.append(top + drop[:, None] * (board[corner] - top))
        idx = np.r_[first + np.arange(n), corner]
        ra.append(idx[:-1])
        rb.append(idx[1:])
        pinned.append(first)
    return np.concatenate(parts), np.concatenate(ra), np.concatenate(rb), pinned


def spawn(cfg: dict, layer, frame) -> int:
    pos, a, b, pinned = layout(cfg, frame.width, frame.height)
    return spawn_body(cfg, layer, frame, pos, a, b, pinned)


def counts(cfg: dict) -> tuple[int, int]:
    """(points, links) of a sign."""
    sw, sh = cfg["size"]
    cols, rows = max(2, int(np.ceil(sw / BOARD_STEP)) + 1), max(2, int(np.ceil(sh / BOARD_STEP)) + 1)
    grid = rows * (cols - 1) + cols * (rows - 1) + 2 * (rows - 1) * (cols - 1)
    return cols * rows + 2 * (cfg["points"] - 1), grid + 2 * (cfg["points"] - 1)


KIND = Kind(
    "sign",
    "A sign: a stiff board hanging on two ropes from two held points; swing it, knock it about.",
    SCHEMA, spawn,
    points=lambda cfg, w, h: counts(cfg)[0],
    work=lambda cfg, w, h: work_of(counts(cfg)[1], cfg["passes"]),
    check=lambda cfg, level, key_path: fits(cfg, level, key_path, *REFERENCE),
    systems=SYSTEMS,
    motion_note="the sign holds still: one frame painted, no steps",
    still_when_reduced=True,
)
