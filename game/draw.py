"""Ropes drawn with the pointer: a stroke on empty space becomes a rope entry of the level.

    pen = Pen()
    pen.down(scene, x, y)            # True: a stroke starts (nothing grabbable there)
    pen.move(x, y); ...
    pen.up(scene, studio)            # the rope, through the studio's model: validated, undoable, saved

A ropes layer with ``draw = true`` is a sandbox: a drag that starts where the pointer can
take nothing (no free point within the grab radius, no kinematic collider) draws; with the
studio open every ropes layer is. On release the stroke is laid as a rope of points the
layer's ``segment`` apart along it (`lay`) and added to the level as an ordinary
``[[layer.rope]]`` whose ``path`` is the stroke's corners (`simplify`: within `TOLERANCE`) and
whose ``points`` are laid along it (ropework.kinds.ropes), through the studio's model (ropework.studio), so
it is validated like any edit (one past the scene's point budget is refused with
validate's line), undone with Ctrl+Z, and saved with Ctrl+S. An end on a collider is
pinned there (``pin``); an end on another rope is attached to it (``[[layer.attach]]``).
Everything here runs once a gesture, never per step.
"""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Grab, Layer, Points
from ropework.components.collider import PLANE, Colliders
from ropework.kinds.ropes import MAX_PATH, MAX_ROPE_POINTS, PINS, along, fitted_counts
from ropework.systems.services.contact import outline
from ropework.systems.services.hitquery import shape_at

STROKE_STEP = 1.0        # px the pointer moves before a stroke keeps another sample
MAX_STROKE = 100_000     # samples a stroke keeps at most (the rest of a longer drag is not kept)
ATTACH_REACH = 10.0      # px: an end this close to another rope's point is attached to that rope
COLLIDER_REACH = 4.0     # px: an end this close to a collider's outline is pinned on it
PIN_REACH = 30.0         # px: O pins or frees a drawn rope's end this close to the pointer
DIGITS = 4               # decimals of a path's fractions: 0.1 px on a 1280 px scene
TOLERANCE = 0.5          # px: a drawn rope's path keeps the stroke this close
PALETTE = ("#ff6600", "#00d4ff", "#c5ff3b", "#ff3ba7", "#ffd23b", "#9b7bff")   # drawn ropes' colours, in turn


def layer_index(scene, any_ropes: bool) -> int | None:
    """The topmost ropes layer drawing goes to: one with ``draw = true``, or (``any_ropes``: the
    studio is open) any ropes layer; None if there is none."""
    best = None
    for i, cfg in enumerate(scene.level.layers):
        if cfg["kind"] == "ropes" and (cfg["draw"] or any_ropes):
            if best is None or cfg["z"] >= scene.level.layers[best]["z"]:
                best = i
    return best


def _body(scene, name: str):
    with scene.active():
        for ent, lay in esper.get_component(Layer):
            if lay.name == name and esper.has_component(ent, Points):
                return ent
    return None


def takes(scene, x: float, y: float) -> bool:
    """Whether a press at (x, y) would take something: a free point within a body's grab radius
    or a kinematic collider (the input system's pick, asked without picking)."""
    with scene.active():
        for _, col in esper.get_component(Colliders):
            moving = np.flatnonzero(col.kinematic & (col.shape != PLANE))
            if len(moving) and shape_at([outline(col, int(i), 0.0, 0.0) for i in moving], x, y) >= 0:
                return True
        for _, (pts, grab) in esper.get_components(Points, Grab):
            free = pts.inv_mass > 0
            if free.any():
                d = np.hypot(pts.pos[free, 0] - x, pts.pos[free, 1] - y)
                if float(d.min()) <= grab.radius:
                    return True
    return False


def simplify(line: np.ndarray, tolerance: float) -> np.ndarray:
    """The corners of ``line`` (float[k, 2] px) that keep it within ``tolerance`` px (Douglas-Peucker):
    a stroke of hundreds of samples is a path of a few corners in the level file."""
    line = np.asarray(line, np.float64).reshape(-1, 2)
    if len(line) < 3:
        return line
    keep = np.zeros(len(line), bool)
    keep[[0, -1]] = True
    todo = [(0, len(line) - 1)]
    while todo:
        i, j = todo.pop()
        if j - i < 2:
            continue
        a, b = line[i], line[j]
        d = b - a
        n = math.hypot(*d)
        mid = line[i + 1:j] - a
        off = np.abs(mid[:, 0] * d[1] - mid[:, 1] * d[0]) / n if n > 1e-12 else np.hypot(mid[:, 0], mid[:, 1])
        k = int(off.argmax())
        if off[k] > tolerance:
            keep[i + 1 + k] = True
            todo += [(i, i + 1 + k), (i + 1 + k, j)]
    return line[keep]


def path_of(line: np.ndarray, w: float, h: float) -> list:
    """A line (px) as a rope's `path`: its corners within `TOLERANCE` px (more if it would have more than
    `MAX_PATH`), as fractions of the scene kept to `DIGITS` decimals."""
    tol = TOLERANCE
    corners = simplify(line, tol)
    while len(corners) > MAX_PATH:
        tol *= 2
        corners = simplify(line, tol)
    return np.round(corners / (w, h), DIGITS).clip(0.0, 1.0).astype(float).tolist()


def inside(loop: np.ndarray, p: np.ndarray) -> np.ndarray:
    """bool[s]: which points ``p`` (float[s, 2]) lie inside the convex loop ``loop`` (float[k, 2], either
    way round)."""
    e = np.roll(loop, -1, axis=0) - loop
    rel = p[:, None, :] - loop[None, :, :]
    cross = e[None, :, 0] * rel[..., 1] - e[None, :, 1] * rel[..., 0]
    return (cross >= 0).all(1) | (cross <= 0).all(1)


def trimmed(stroke: np.ndarray, start, end) -> np.ndarray:
    """The stroke without its samples inside the collider it starts or ends on: a rope pinned on a
    collider is pinned at its rim (pinned inside it, its next points would be pushed out, the first
    link stretched by the collider's depth)."""
    if start is not None and start[0] == "collider":
        out = np.flatnonzero(~inside(start[2], stroke))
        if not len(out):
            return stroke[-1:]
        k = out[0]
        stroke = stroke[k:] if k == 0 else np.vstack([_rim(start[2], stroke[k], stroke[k - 1]), stroke[k:]])
    if end is not None and end[0] == "collider":
        out = np.flatnonzero(~inside(end[2], stroke))
        if not len(out):
            return stroke[:1]
        k = out[-1]
        stroke = stroke[:k + 1] if k == len(stroke) - 1 else np.vstack([stroke[:k + 1], _rim(end[2], stroke[k], stroke[k + 1])])
    return stroke


def _rim(loop: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float[1, 2]: where the segment from ``a`` (outside the loop) to ``b`` (inside) crosses its rim,
    to a hundredth of a pixel (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(14):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if inside(loop, (a + mid * (b - a))[None])[0] else (mid, hi)
    return (a + lo * (b - a))[None]


def lay(stroke: np.ndarray, spacing: float) -> np.ndarray:
    """float64[n, 2]: a stroke's points ``spacing`` apart along it (n = its length // spacing + 1)."""
    stroke = np.asarray(stroke, np.float64).reshape(-1, 2)
    length = float(np.hypot(*np.diff(stroke, axis=0).T).sum()) if len(stroke) > 1 else 0.0
    return along(stroke, int(length // spacing) + 1, spacing)


def end_on(scene, i: int, x: float, y: float, skip: int = -1):
    """What a stroke's end at (x, y) is on, in layer ``i``: ("collider", k), ("rope", r, at) — rope r
    of the layer's ropes (not ``skip``), ``at`` along it — or None."""
    cfg = scene.level.layers[i]
    ent = _body(scene, cfg["name"])
    if ent is None:
        return None
    with scene.active():
        col = esper.try_component(ent, Colliders)
        pts = esper.component_for_entity(ent, Points)
    if col is not None:
        loops = [outline(col, j, scene.width, scene.height) for j in range(len(col.shape))]
        k = shape_at(loops, x, y, COLLIDER_REACH)
        if k >= 0:
            return ("collider", k, loops[k])
    counts = fitted_counts(cfg, scene.height)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    if not len(pts.pos):
        return None
    d = np.hypot(pts.pos[:, 0] - x, pts.pos[:, 1] - y)
    if skip >= 0:
        d[starts[skip]:starts[skip] + counts[skip]] = np.inf
    p = int(d.argmin())
    if d[p] > ATTACH_REACH:
        return None
    r = int(np.searchsorted(starts, p, side="right")) - 1
    return ("rope", r, round((p - starts[r]) / max(1, counts[r] - 1), DIGITS))


class Pen:
    """One pointer's stroke, from press to release."""

    def __init__(self):
        self.stroke: list[tuple[float, float]] | None = None   # scene px, while a drag draws
        self.layer = -1
        self.start = None                                      # what the stroke started on (`end_on`)

    @property
    def drawing(self) -> bool:
        return self.stroke is not None

    def down(self, scene, x: float, y: float, any_ropes: bool = False, on_rope: bool = False) -> bool:
        """A press: start a stroke if a drawing layer is there and the press takes nothing (with
        ``on_rope`` — Shift — it draws from a rope too, attached to it). True if it started."""
        i = layer_index(scene, any_ropes)
        if i is None or (takes(scene, x, y) and not on_rope):
            return False
        self.stroke, self.layer = [(float(x), float(y))], i
        self.start = end_on(scene, i, x, y)
        return True

    def move(self, x: float, y: float) -> bool:
        if self.stroke is None:
            return False
        px, py = self.stroke[-1]
        if len(self.stroke) < MAX_STROKE and math.hypot(x - px, y - py) >= STROKE_STEP:
            self.stroke.append((float(x), float(y)))
        return True

    def cancel(self) -> None:
        self.stroke = None

    def up(self, scene, studio) -> str | None:
        """The release: the stroke becomes a rope of the level (through ``studio``, the model).
        Returns what to tell the player ("" when all went well), or None if no stroke was drawn."""
        if self.stroke is None:
            return None
        stroke, self.stroke = np.array(self.stroke, np.float64), None
        i, cfg = self.layer, scene.level.layers[self.layer]
        end = end_on(scene, i, *stroke[-1])
        stroke = trimmed(stroke, self.start, end)
        pts = lay(stroke, cfg["segment"])
        if len(pts) < 2:
            return "too short to be a rope: drag further"
        if len(pts) > MAX_ROPE_POINTS:
            return f"a rope holds at most {MAX_ROPE_POINTS} points, this one {len(pts)}: draw it shorter"
        n_ropes = sum(t["count"] for t in cfg["rope"])
        pins, attach = [], []
        for which, on in (("start", self.start), ("end", end)):
            if on is None:
                continue
            if on[0] == "collider":
                pins.append(which)
            else:
                attach.append({"from": n_ropes, "from_at": 0.0 if which == "start" else 1.0,
                               "to": on[1], "at": on[2]})
        pin = "both" if len(pins) == 2 else pins[0] if pins else "none"
        path = path_of(stroke, scene.width, scene.height)
        rope = {"anchor": path[0][0], "points": len(pts), "pin": pin,
                "colour": PALETTE[len(studio.drawn(i)) % len(PALETTE)], "path": path}
        if not studio.add_drawn(i, rope, attach):
            return studio.error
        return ""


def toggle_pin(scene, studio, x: float, y: float, any_ropes: bool = False) -> str:
    """O: pin the drawn rope's end nearest (x, y) where it is now, or free it if pinned. Returns what
    to tell the player."""
    i = layer_index(scene, any_ropes)
    if i is None:
        return "no layer draws ropes here (draw = true on a ropes layer, or open the studio)"
    cfg = scene.level.layers[i]
    ent = _body(scene, cfg["name"])
    drawn = studio.drawn(i)
    if ent is None or not drawn:
        return "no drawn rope to pin"
    with scene.active():
        pos = esper.component_for_entity(ent, Points).pos
    counts = fitted_counts(cfg, scene.height)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    first = np.cumsum([0] + [t["count"] for t in cfg["rope"]])[:-1]     # each table's first rope
    best = None
    for j in drawn:
        r = int(first[j])
        for end, p in (("start", starts[r]), ("end", starts[r] + counts[r] - 1)):
            d = math.hypot(pos[p, 0] - x, pos[p, 1] - y)
            if d <= PIN_REACH and (best is None or d < best[0]):
                best = (d, j, r, end)
    if best is None:
        return f"no drawn rope's end within {PIN_REACH:g} px of the pointer"
    _, j, r, end = best
    now = cfg["rope"][j]["pin"]
    held = {"start": now in ("start", "both"), "end": now in ("end", "both")}
    held[end] = not held[end]
    pin = PINS[[(True, False), (False, True), (True, True), (False, False)].index((held["start"], held["end"]))]
    path = path_of(pos[starts[r]:starts[r] + counts[r], :2], scene.width, scene.height)
    if not studio.pin_drawn(i, j, pin, path):
        return studio.error
    return f"{'pinned' if held[end] else 'freed'} the rope's {end}"
