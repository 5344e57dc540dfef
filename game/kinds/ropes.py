"""The "ropes" kind: chains hanging from a rail, grabbed and thrown (seed 001)."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Bounds, Constraints, Forces, Grab, Layer, Pins, Points, Rail, Ropes, RopeStyle
from ropework.components.collider import Colliders
from ropework.components.lanyard import CardPins
from ropework.cost import DRAW_NS_STROKE, RELAX_NS_CHAIN, Work, solve_ns
from ropework.kinds import Kind, colliders, solve_keys, toy
from ropework.live import into
from ropework.schema import Key, table
from ropework.systems.services.colour import parse_colour

GRAVITY = 900.0      # px/s², downward: the seed's pull
SEGMENT = 11.0       # rest length between neighbouring points, px
PASSES = 14          # relaxation passes per step; two would read as elastic
PIN_SHARE = 0.5      # of a link's error, the part its free end takes when the other end is pinned:
                     # seed 001's relax() moves each unpinned end by half and the pinned one not at all
DAMPING = 0.995      # fraction of implied velocity kept per step, via the Verlet history
GRAB_RADIUS = 46.0   # px: a press this close to a free point picks it up
MARGIN = 2.0         # px: free points are clamped this far inside the window box
FIT = 0.82           # a rope is shortened to fit this fraction of the window height
MIN_POINTS = 8       # ... but never below this many points
ANCHOR_Y = 6.0       # px below the top edge: where the rail and the anchors are
WIDTH = 2.4          # stroke width, px
TIP_RADIUS = 4.5     # px
ANCHOR_RADIUS = 2.5  # px
MAX_ROPE_POINTS = 100_000
MAX_PATH = 4096          # corners of a drawn rope's `path` at most: a scribble across a 4K screen, a corner a px
PINS = ("start", "end", "both", "none")   # which ends of a rope are held still
MAX_REPEAT = 50_000      # ropes one [[layer.rope]] table may repeat into: what a table of default ropes can hold
                         # under the scene's point cap (level.MAX_POINTS), with ROPE_WEIGHT for the ropes past
                         # FREE_ROPES (20 points each: 50,000 weigh 1.32 M); more ropes take more tables
FREE_ROPES = 10_000      # ropes a layer holds before they weigh on the cap: as many as it could write as tables
ROPE_WEIGHT = 8          # points' worth of memory each further rope holds: its style, pin, strip samples, end
                         # dots and their GL copies measured ~0.9 KB a rope at 8192², a point's state ~0.11 KB

# How a running body takes each live key (see ropework.live): cloth shares these.
def live_gravity(body, cfg, name):
    body.get(Forces).gravity = np.array([0.0, cfg[name]], np.float32)


def live_margin(body, cfg, name):
    m, f = cfg[name], body.frame
    bounds = body.get(Bounds)
    bounds.lo, bounds.hi = np.array([m, m], np.float32), np.array([f.width - m, f.height - m], np.float32)
    col = body.get(Colliders)
    if col is not None and col.box is not None:
        col.box[:] = (m, m, f.width - m, f.height - m)


def live_grab_pins(body, cfg, name):
    """Switch pinned grabs; a point held right now changes with them (so a release frees it)."""
    grab, pts = body.get(Grab), body.get(Points)
    grab.pin = cfg[name]
    if grab.held >= 0:
        pts.inv_mass[grab.held] = 0.0 if grab.pin else 1.0


def live_rope_colours(body, cfg, name):
    body.get(RopeStyle).colour = each_rope(cfg, "colour")


def live_rope_widths(body, cfg, name):
    body.get(RopeStyle).width = each_rope(cfg, "width")


def live_anchors(body, cfg, name):
    """Move every hanging rope's pinned first point to its anchor (the studio drags anchors); a drawn
    rope's pins stay where it was drawn."""
    pins, pts = body.get(Pins), body.get(Points)
    counts = fitted_counts(cfg, body.frame.height)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    index, anchor = pin_points(cfg, counts, laid(cfg, counts, body.frame.width, body.frame.height))
    free = ~np.isin(index, solve_keys.held_points(cfg, counts, starts)[0]) & \
        ~np.isin(index, solve_keys.card_points(cfg, counts, starts))
    pins.index, pins.anchor = index[free], anchor[free]
    pts.pos[pins.index] = pins.anchor
    pts.prev[pins.index] = pins.anchor


SEED_ROPES = [
    {"anchor": 0.18, "points": 20, "colour": "#ff6600"},
    {"anchor": 0.5, "points": 27, "colour": "#00d4ff"},
    {"anchor": 0.82, "points": 22, "colour": "#c5ff3b"},
]

ROPE = table(
    Key("anchor", "float", None, "anchor's x as a fraction of the window width", lo=0.0, hi=1.0, live=live_anchors),
    Key("points", "int", 20, "points in the rope (before fitting to the height)", lo=2, hi=MAX_ROPE_POINTS),
    Key("colour", "colour", "#ff6600", "stroke and dot colour", live=live_rope_colours),
    Key("width", "float", WIDTH, "stroke width, px", lo=0.1, hi=100.0, live=live_rope_widths),
    Key("count", "int", 1, "ropes this table declares: the rope repeated, each one `every` to the right of the "
        f"one before (a curtain of many ropes in one table); a layer's ropes past {FREE_ROPES:,} count "
        f"{ROPE_WEIGHT} points each against the scene's point cap", lo=1, hi=MAX_REPEAT),
    Key("every", "float", 0.0, "with `count`: the gap between neighbouring anchors, as a fraction of the window "
        "width like `anchor` (negative: to the left; 0: all at `anchor`); the last anchor, "
        "anchor + (count - 1) · every, must stay in 0..1", lo=-1.0, hi=1.0, live=live_anchors),
    Key("path", "pairs", [], "a drawn rope's line, its corners as [x, y] fractions of the scene's width and "
        "height: its `points` are laid along it from the first corner, the layer's `segment` apart (past its end, "
        "straight on); it hangs from no rail (`anchor` is its first corner's x) and `count` stays 1. Empty: a "
        "rope hanging from the rail", lo=0.0, hi=1.0, max_len=MAX_PATH),
    Key("pin", "choice", "start", "which ends are held still: start (the anchor; a drawn rope: its first "
        "corner), end (its tip where it was laid), both or none (it falls)", choices=PINS),
    *solve_keys.ROPE_KEYS,
    Key("radius", "float", solve_keys.LAYER, "this rope's points' radius against colliders and itself, px "
        "(unset, inf: the layer's `radius`)", lo=0.0, hi=1000.0),
)

SCHEMA = table(
    Key("gravity", "float", GRAVITY, "downward acceleration, px/s²", lo=-100_000.0, hi=100_000.0, live=live_gravity),
    Key("damping", "float", DAMPING, "fraction of velocity kept per step", lo=0.0, hi=1.0,
        live=into(Forces, "damping")),
    Key("passes", "int", PASSES, "constraint relaxation passes per step (stiffness)", lo=1, hi=500,
        live=into(Constraints, "passes")),
    Key("pin_share", "float", PIN_SHARE, "share of a link's length error its free end takes when the other end is pinned (an anchor, a pinned grab): 0.5 as seed 001's code, 1 the whole of it "
        "(stiffer right under the rail)", lo=0.5, hi=1.0, live=into(Constraints, "share")),
    Key("segment", "float", SEGMENT, "rest length between neighbouring points, px", lo=0.5, hi=1000.0),
    Key("grab_radius", "float", GRAB_RADIUS, "pick distance for a press, px", lo=0.0, hi=10_000.0,
        live=into(Grab, "radius")),
    Key("grab_pins", "bool", False, "the held point is pinned to the cursor (true) or, as the seed, put there "
        "each step and left to the solver (false)", live=live_grab_pins),
    Key("margin", "float", MARGIN, "free points stay this far inside the window, px", lo=0.0, hi=1000.0,
        live=live_margin),
    Key("fit", "float", FIT, "ropes are shortened to fit this fraction of the height", lo=0.01, hi=100.0),
    Key("min_points", "int", MIN_POINTS, "fitting never leaves a rope shorter than this", lo=2, hi=MAX_ROPE_POINTS),
    Key("anchor_y", "float", ANCHOR_Y, "anchors' distance below the top edge, px", lo=0.0, hi=100_000.0),
    Key("rail", "bool", True, "draw the faint rail the ropes hang from"),
    Key("tip_radius", "float", TIP_RADIUS, "radius of the dot at each tip, px (0: none)", lo=0.0, hi=100.0,
        live=into(RopeStyle, "tip_radius")),
    Key("anchor_radius", "float", ANCHOR_RADIUS, "radius of the dot at each anchor, px (0: none)", lo=0.0, hi=100.0,
        live=into(RopeStyle, "anchor_radius")),
    Key("draw", "bool", False, "a sandbox: a drag on empty space draws a new rope along the stroke, its points "
        "`segment` apart (Shift: start on a rope); an end on a collider is pinned there, on a rope attached to it; "
        "O pins or frees the drawn end nearest the pointer, Backspace removes the last drawn rope",
        live=lambda body, cfg, name: None),
    *solve_keys.LAYER_KEYS,
    rope=(ROPE, 1, 10_000, "one hanging rope"),
    collider=(colliders.COLLIDER, 0, colliders.MAX_COLLIDERS, "a static, kinematic or dynamic shape the ropes meet"),
    attach=(solve_keys.ATTACH, 0, 10_000, "a point of one rope held on a point of another (or the same) rope, "
            "or on a collider"),
)


def each_rope(cfg: dict, key: str) -> np.ndarray:
    """``key`` of every rope the layer declares, in order, a table of ``count`` repeated in place:
    float64 anchors (the n-th of a table at anchor + n · every), int64 points, float32 widths,
    float32[r, 4] colours."""
    tables = cfg["rope"]
    count = np.array([r["count"] for r in tables], np.int64)
    if key == "colour":
        return np.repeat(np.array([parse_colour(r["colour"]) for r in tables], np.float32), count, axis=0)
    if key == "anchor":
        n = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)   # place in its table
        every = np.repeat(np.array([r["every"] for r in tables], np.float64), count)
        return np.repeat(np.array([r["anchor"] for r in tables], np.float64), count) + n * every
    dtype = np.int64 if key == "points" else np.float64 if key == "radius" else np.float32
    return np.repeat(np.array([r[key] for r in tables], dtype), count)


def ropes_declared(cfg: dict) -> int:
    return sum(r["count"] for r in cfg["rope"])


def most_points(cfg: dict) -> int:
    """Points the layer holds at most (at any height: fitting only shortens), counted per table."""
    return sum((r["points"] if r["path"] else max(cfg["min_points"], r["points"])) * r["count"] for r in cfg["rope"])


def check(cfg: dict, level, key_path: str) -> None:
    """Every repeated rope's anchor is on the window: anchor + (count - 1) · every in 0..1; a drawn
    rope (a `path`) is one rope."""
    from ropework.schema import LevelError
    for i, r in enumerate(cfg["rope"]):
        if r["path"] and r["count"] != 1:
            raise LevelError(level, f"{key_path}.rope[{i}].count",
                             f"expected 1 for a drawn rope (one with a path), found {r['count']}")
        last = r["anchor"] + (r["count"] - 1) * r["every"]
        if not -1e-9 <= last <= 1.0 + 1e-9:
            raise LevelError(level, f"{key_path}.rope[{i}].every",
                             f"expected the last of {r['count']} anchors (anchor + (count - 1) · every) in 0..1, "
                             f"found {last:.6g}")
    solve_keys.check(cfg, level, key_path, cfg["rope"])


def fitted_counts(cfg: dict, h: float) -> np.ndarray:
    """Seed rule: each hanging rope's count capped to fit `fit`·height, but at least `min_points`;
    a drawn rope has its `points`."""
    fit = math.floor(h * cfg["fit"] / cfg["segment"])
    drawn = np.repeat(np.array([bool(r["path"]) for r in cfg["rope"]]), [r["count"] for r in cfg["rope"]])
    points = each_rope(cfg, "points")
    return np.where(drawn, points, np.maximum(cfg["min_points"], np.minimum(points, fit)))


def along(path: np.ndarray, n: int, spacing: float) -> np.ndarray:
    """float64[n, 2]: ``n`` points along the polyline ``path`` (px) from its first corner, ``spacing``
    apart along it; past its end they go straight on in its last direction."""
    path = np.asarray(path, np.float64).reshape(-1, 2)
    seg = np.hypot(*np.diff(path, axis=0).T) if len(path) > 1 else np.zeros(0)
    keep = np.r_[True, seg > 1e-9]                           # repeated corners say nothing
    path, seg = path[keep], seg[seg > 1e-9]
    s = np.arange(n) * float(spacing)
    if not len(seg):
        return np.stack([np.full(n, path[0, 0]), path[0, 1] + s], axis=1)   # a dot: straight down
    cum = np.r_[0.0, np.cumsum(seg)]
    out = np.stack([np.interp(s, cum, path[:, 0]), np.interp(s, cum, path[:, 1])], axis=1)
    past = s > cum[-1]
    if past.any():
        d = (path[-1] - path[-2]) / seg[-1]
        out[past] = path[-1] + (s[past] - cum[-1])[:, None] * d
    return out


def laid(cfg: dict, counts: np.ndarray, w: float, h: float) -> np.ndarray:
    """float64[n, 2]: every point where the layer lays it, px: a hanging rope straight down from its
    anchor, a drawn one along its path."""
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rope_of = np.repeat(np.arange(len(counts)), counts)
    j = np.arange(int(counts.sum())) - starts[rope_of]               # index along its rope
    x = each_rope(cfg, "anchor")[rope_of] * w
    pos = np.stack([x, cfg["anchor_y"] + j * cfg["segment"]], axis=1)
    r = 0
    for t in cfg["rope"]:
        if t["path"]:
            pos[starts[r]:starts[r] + counts[r]] = along(np.array(t["path"]) * (w, h), int(counts[r]), cfg["segment"])
        r += t["count"]
    return pos


def pin_points(cfg: dict, counts: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32[k] the pinned points, float32[k, 2] where each is held): each rope's ends as its `pin` says."""
    pin = np.repeat(np.array([PINS.index(r["pin"]) for r in cfg["rope"]]), [r["count"] for r in cfg["rope"]])
    starts = np.r_[0, np.cumsum(counts)[:-1]].astype(np.int64)
    tips = starts + counts - 1
    first = starts[(pin == 0) | (pin == 2)]
    last = tips[((pin == 1) | (pin == 2)) & (tips != starts)]
    index = np.sort(np.r_[first, last]).astype(np.int32)
    return index, np.asarray(pos[index], np.float32).reshape(-1, 2)


def spawn(cfg: dict, layer: Layer, frame) -> int:
    w, h = frame.width, frame.height
    counts = fitted_counts(cfg, h)
    ropes = Ropes.of_counts(counts)
    rope_of = np.repeat(np.arange(len(counts)), counts)
    points = Points.at(laid(cfg, counts, w, h))
    held = solve_keys.held_points(cfg, counts, ropes.start)   # (points, colliders, offsets, break forces)
    on_card = solve_keys.card_points(cfg, counts, ropes.start)
    index, anchor = pin_points(cfg, counts, points.pos)
    free = ~np.isin(index, held[0]) & ~np.isin(index, on_card)   # an end held elsewhere is not pinned in place
    pins = Pins(index=index[free], anchor=anchor[free])
    pins.apply(points)
    points.inv_mass[on_card] = 0.0                           # the card carries them (spring_card)
    a, b = ropes.chain_constraints()
    m = cfg["margin"]
    tables = [r for r in cfg["rope"] for _ in range(r["count"])] if solve_keys.on(cfg) else None
    layer_r = cfg["radius"] or 0.5 * cfg["segment"]
    r_each = np.array([layer_r if r == solve_keys.LAYER else r for r in each_rope(cfg, "radius")], np.float32)
    coll = colliders.build(cfg.get("collider", []), w, h, r_each[rope_of], m)
    extras = solve_keys.build(cfg, points, a, b, rope_of[a], tables, counts, cfg["segment"])
    if len(held[0]):
        colliders.hold(coll, points, *held)
        place_held(points, ropes, coll, cfg["segment"])
        lay_held(points, ropes, held[0], cfg["segment"])
    style = RopeStyle(
        colour=each_rope(cfg, "colour"),
        width=each_rope(cfg, "width"),
        tip_radius=cfg["tip_radius"], anchor_radius=cfg["anchor_radius"],
    )
    return esper.create_entity(
        points, pins, ropes, style, layer,
        Constraints(a=a, b=b, rest=np.full(len(a), cfg["segment"], np.float32), passes=cfg["passes"],
                    share=cfg["pin_share"]),
        Forces(gravity=np.array([0.0, cfg["gravity"]], np.float32), damping=cfg["damping"]),
        Bounds(lo=np.array([m, m], np.float32), hi=np.array([w - m, h - m], np.float32)),
        Grab(radius=cfg["grab_radius"], pin=cfg["grab_pins"]),
        *([Rail(y=cfg["anchor_y"] + 0.5)] if cfg["rail"] else []),
        *([extras] if extras is not None else []),
        *([coll] if coll is not None else []),
        *([CardPins(on_card)] if len(on_card) else []),
    )


def place_held(points: Points, ropes: Ropes, col: Colliders, segment: float) -> None:
    """Start each dynamic collider that holds a rope's end on that rope, taut: its held point the
    rope's length from the rope's other end — a pinned anchor, or a point held by a collider placed
    before it — in the direction of where its `at` put it. So a pendulum's bob hangs (or is pulled
    out) on its rope at any window size, `at` giving the direction and the rope the distance. Holds
    are taken in order; a collider is placed once. Then every held point is put back on its holder."""
    if col.inv_mass is None:
        return
    rope_of = np.repeat(np.arange(len(ropes.start)), ropes.count)
    placed = col.inv_mass == 0                  # static and kinematic ones stay where they are
    where = {int(p): t for t, p in enumerate(col.hold[0])}
    for t in range(col.hold.shape[1]):          # once a spawn, per hold (not a step's path)
        p, c = int(col.hold[0, t]), int(col.hold[1, t])
        r = rope_of[p]
        a, z = int(ropes.start[r]), int(ropes.start[r] + ropes.count[r] - 1)
        other = z if p == a else a if p == z else -1
        if other < 0 or placed[c]:
            continue
        if other in where:                      # held by another collider: as that one now stands
            u = where[other]
            c2 = int(col.hold[1, u])
            end = col.centre[c2].astype(np.float64) + col.offset[u]
            placed[c2] = True
        elif points.inv_mass[other] == 0:       # a pinned anchor
            end = points.pos[other].astype(np.float64)
        else:
            continue
        d = col.centre[c].astype(np.float64) + col.offset[t] - end
        length = float(np.hypot(*d))
        u_dir = d / length if length > 1e-9 else np.array([0.0, 1.0])
        col.centre[c] = end + u_dir * segment * int(ropes.count[r] - 1) - col.offset[t]
        placed[c] = True
    col.prev[:] = col.centre
    pos = col.centre[col.hold[1]] + col.offset
    points.pos[col.hold[0]] = pos
    points.prev[col.hold[0]] = pos


def lay_held(points: Points, ropes: Ropes, held: np.ndarray, segment: float) -> None:
    """Lay each rope with an end held on a collider straight between its ends, at rest: from its
    anchor (or the collider holding it) to the collider holding its tip, or, with its tip free,
    straight down its length from where its anchor is held. So a pendulum bob pulled out starts
    on a taut rope, and a chain between two balls spans them. Once, at spawn."""
    first, last = ropes.start, ropes.start + ropes.count - 1
    lay = np.flatnonzero(np.isin(first, held) | np.isin(last, held))
    for r in lay:            # once a spawn, per rope held (not a step's path)
        a, n = int(first[r]), int(ropes.count[r])
        s = points.pos[a].astype(np.float64)
        e = points.pos[a + n - 1].astype(np.float64) if last[r] in held else s + [0.0, segment * (n - 1)]
        t = np.linspace(0.0, 1.0, n)[:, None]
        points.pos[a:a + n] = (s + (e - s) * t).astype(np.float32)
        points.prev[a:a + n] = points.pos[a:a + n]


def work(cfg: dict, w: float, h: float) -> Work:
    """The ropes fitted to the height ``h`` (as `spawn` fits them), counted per table."""
    fit = math.floor(h * cfg["fit"] / cfg["segment"])
    pts = sum(max(cfg["min_points"], min(r["points"], fit)) * r["count"] for r in cfg["rope"])
    ropes = ropes_declared(cfg)
    n = pts - ropes
    sweeps, per_link, other = solve_ns(cfg, pts, max(0, pts - 2 * ropes))
    return Work(links=n, passes=sweeps, relax_ns=RELAX_NS_CHAIN if per_link is None else per_link,
                draw_ns=n * DRAW_NS_STROKE, step_ns=other)


plugin = toy(Kind(
    "ropes",
    "Verlet ropes hanging from a rail: grab, drag and throw them (seed 001).",
    SCHEMA, spawn,
    points=lambda cfg, w, h: most_points(cfg),
    weight=lambda cfg, w, h: ROPE_WEIGHT * max(0, ropes_declared(cfg) - FREE_ROPES),
    check=check,
    work=work,
    systems=("input", "integrate", "relax", "draw_colliders", "draw_ropes", "draw_strain"),
    motion_note="the ropes hold still: seed 001's loop paints one frame and stops",
    still_when_reduced=True,
))
