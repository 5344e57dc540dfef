"""The solve keys a ropes or cloth layer shares — bend, compliance, substeps, break_at,
self_collide, sleep, radius — its ropes' overrides, `[[layer.attach]]`, and the `Extras` they
build. Every key's default leaves the body as the seeds have it (no `Extras` at all)."""
from __future__ import annotations

import math

import numpy as np

from ropework.components.body import Constraints
from ropework.components.rope import Ropes
from ropework.components.solve import Attachments, Bending, Breaking, Compliance, Extras, SelfContact, Sleep
from ropework.schema import Key, LevelError, table

MAX_SUBSTEPS = 64        # substeps per step at most: 64 × a rope's kernels is already ~ the seeds' 14 passes × 4
LAYER = math.inf         # a rope's bend, compliance or break_at left unset (shown as inf): the layer's value
NONE = -1                # an attachment's `to` or `collider` left unset
SLEEP_STILL = 0.01       # px per step: no point of a sleeping body moved more (0.6 px a second) ...
SLEEP_STEPS = 60         # ... for this many steps in a row (a second at 60 Hz), as the lanyard's sleep
CROOK = 0.5              # px: a self-colliding body's sideways wave at spawn (`build`)
RADIUS = 0.0             # px: a point's radius for self-contact; 0: half the segment (the spacing, for cloth)

def _per_link(body, cfg: dict, key: str):
    """(float32[m] the layer's or each rope's ``key`` for every link the body has now, each link's rope
    or None): a rope's links are found through the breaking's groups once any broke, else its chain."""
    con, ex, ropes = body.get(Constraints), body.get(Extras), body.get(Ropes)
    tables = cfg.get("rope")
    if not tables or ropes is None:                       # a cloth: the layer's value on every link
        return np.full(len(con.a), cfg[key], np.float32), None
    if ex is not None and ex.breaking is not None and ex.breaking.group is not None:
        link_rope = ex.breaking.group
    else:                                                 # nothing broke: the ropes are the declared ones
        link_rope = (np.searchsorted(ropes.start, con.a, side="right") - 1).astype(np.int32)
    each = np.array([cfg[key] if r[key] == LAYER else r[key] for r in tables for _ in range(r["count"])], np.float32)
    return each[link_rope], np.asarray(link_rope, np.int32)


def _extras(body, cfg: dict, ex: Extras | None) -> None:
    """Hold ``ex`` on the body while it has anything, as a fresh spawn would (none when every key is at its
    default)."""
    has = ex is not None and any(getattr(ex, f) is not None for f in
                                 ("bending", "compliance", "breaking", "attachments", "contact", "sleep"))
    if has and body.get(Extras) is None:
        body.put(ex)
    elif not has and not on(cfg) and body.get(Extras) is not None:
        body.drop(Extras)


def live_break(body, cfg, name):
    """The links' break ratios, in place: a link that broke stays broken."""
    ratio, link_rope = _per_link(body, cfg, "break_at")
    ex = body.get(Extras) or Extras()
    ex.breaking = Breaking(ratio, link_rope) if (ratio > 0).any() else None
    _extras(body, cfg, ex)


def live_compliance(body, cfg, name):
    """The links' compliance, in place (read only with substeps)."""
    ex = body.get(Extras)
    if cfg["substeps"] and ex is not None and ex.compliance is not None:
        ex.compliance.compliance = _per_link(body, cfg, "compliance")[0]


LAYER_KEYS = (
    Key("bend", "float", 0.0, "bending stiffness: 0 the seeds' slack chain, 1 a stiff wire that holds its "
        "straight shape (verlet-js's angle constraint on every three neighbours, stable at every value)",
        lo=0.0, hi=1.0),
    Key("compliance", "float", 0.0, "XPBD compliance of the links, px per unit force (a free point weighs 1, so "
        "a link holding a point against gravity g stretches compliance · g px); 0 rigid. Read only with "
        "substeps ≥ 1", lo=0.0, hi=1e6, live=live_compliance),
    Key("substeps", "int", 0, f"XPBD substeps per step (0: off, the seeds' passes; at most {MAX_SUBSTEPS}): each "
        "integrates dt / substeps and solves every link once, so a rope's stretch follows its compliance "
        "and not `passes` — the way to a rope that does not stretch", lo=0, hi=MAX_SUBSTEPS),
    Key("break_at", "float", 0.0, "a link breaks when stretched past this ratio of its rest length (1.5: 150 %); "
        "0 never", lo=0.0, hi=100.0, live=live_break),
    Key("self_collide", "bool", False, "the body's points keep two radii apart (a grid of cells): a rope dropped "
        "on itself piles up"),
    Key("sleep", "bool", False, f"a body still for {SLEEP_STEPS} steps (no point moving {SLEEP_STILL} px a step) "
        "costs no solve time until a press takes one of its points"),
    Key("radius", "float", RADIUS, "a point's radius for self-contact, px (0: half the segment or spacing)",
        lo=0.0, hi=1000.0),
)

ROPE_KEYS = (
    Key("bend", "float", LAYER, "this rope's bending stiffness 0..1 (unset, inf: the layer's `bend`)", lo=0.0, hi=1.0),
    Key("compliance", "float", LAYER, "this rope's links' compliance, px per unit force (unset, inf: the layer's)",
        lo=0.0, hi=1e6, live=live_compliance),
    Key("break_at", "float", LAYER, "this rope's links' break ratio, 0 never (unset, inf: the layer's)",
        lo=0.0, hi=100.0, live=live_break),
    Key("mass", "float", 1.0, "each point's mass, in free points' (1: the seeds' every point alike)",
        lo=1e-3, hi=1e6),
    Key("tip_mass", "float", 0.0, "the tip's mass, a pendulum bob's (0: `mass`, as every other point)",
        lo=0.0, hi=1e6),
)

ATTACH = table(
    Key("from", "int", None, "the rope (its index among the layer's ropes, from 0) whose point is attached",
        lo=0, hi=10_000_000),
    Key("from_at", "float", 1.0, "which point of it, as a fraction of its length (1: its tip)", lo=0.0, hi=1.0),
    Key("to", "int", NONE, "the rope it is attached to (index, from 0); or give `collider` or `card` instead (unset, -1)",
        lo=0, hi=10_000_000),
    Key("at", "float", LAYER, "where on rope `to`, as a fraction of its length (0: its anchor, 1: its tip); "
        "needed with `to`", lo=0.0, hi=1.0),
    Key("break_force", "float", 0.0, "the attachment lets go past this force, point mass · px/s² "
        "(gravity on one free point is 900); 0 never", lo=0.0, hi=1e12),
    Key("collider", "int", NONE, "the collider (its index among the layer's [[layer.collider]], from 0) the point "
        "is held on, instead of a rope: a pendulum bob, a chain between two balls (unset, -1: `to`). A rope's "
        "anchor held on a collider leaves the rail: the collider carries it", lo=0, hi=10_000_000),
    Key("card", "bool", False, "instead of `to` or `collider`: the point is pinned to the lanyard's card in the same "
        "scene (the clip at its top, as the screen shows it), one way: the card is 3-D and stepped on its strap's "
        "own cadence, so the rope follows it and cannot pull it. A rope's anchor so held leaves the rail"),
    Key("offset", "pair", [LAYER, LAYER], "with `collider`: where on it, [x, y] px from its centre (it does not turn); "
        "unset (inf): on its surface, facing where the point starts (a circle; other shapes: their reach)", lo=-1e5, hi=1e5),
)


def on(cfg: dict) -> bool:
    """Whether a layer's solve keys ask for any extra (else it is the seeds' body, no `Extras`)."""
    ropes = cfg.get("rope", ())
    return bool(cfg["bend"] or cfg["substeps"] or cfg["break_at"] or cfg["self_collide"] or cfg["sleep"]
                or cfg.get("attach") or any(r["bend"] != LAYER and r["bend"] > 0 or r["break_at"] != LAYER and r["break_at"] > 0
                                     or r["mass"] != 1.0 or r["tip_mass"] > 0 for r in ropes))


def check(cfg: dict, level, key_path: str, tables=None) -> None:
    """The checks a key's range cannot make: an attachment to a rope that does not exist, or one
    that cannot be solved. ``tables``: the layer's rope tables, each with its ``points`` and
    ``count`` (None for a cloth, which has no ropes). Never expands the tables' counts: a rope
    index is found through the running totals."""
    attach = cfg.get("attach") or ()
    if not attach:
        return
    count = np.array([t["count"] for t in tables or ()], np.int64)
    points = np.array([t["points"] for t in tables or ()], np.int64)
    ends = np.cumsum(count)                                   # ropes declared up to each table
    before = np.r_[0, np.cumsum(count * points)[:-1]] if len(count) else count   # points before each table
    nr = int(ends[-1]) if len(ends) else 0

    def rope(r):                                              # (start, points) of rope r, unfitted
        t = int(np.searchsorted(ends, r, side="right"))
        return int(before[t] + (r - (ends[t] - count[t])) * points[t]), int(points[t])

    ncol = len(cfg.get("collider", ()))
    for i, a in enumerate(attach):
        p = f"{key_path}.attach[{i}]"
        targets = (a["to"] != NONE) + (a["collider"] != NONE) + bool(a.get("card"))
        if targets != 1:
            raise LevelError(level, p, "expected one of `to` (a rope index), `collider` (a collider index) or "
                             "`card = true`, found " + ("none" if targets == 0 else "more than one"))
        if a["collider"] == NONE and (math.isfinite(a["offset"][0]) or math.isfinite(a["offset"][1])):
            raise LevelError(level, f"{p}.offset", "expected `offset` only with `collider`, found it with "
                             + ("`card`" if a.get("card") else "`to`"))
        if a.get("card"):
            if a["from"] >= nr:
                raise LevelError(level, f"{p}.from", f"expected a rope index 0..{nr - 1} (the layer has {nr} "
                                 f"ropes), found {a['from']}")
            continue
        if a["collider"] != NONE:
            if a["collider"] >= ncol:
                raise LevelError(level, f"{p}.collider", f"expected a collider index 0..{ncol - 1} (the layer has "
                                 f"{ncol} colliders), found {a['collider']}" if ncol else
                                 f"expected a collider index, found {a['collider']} (the layer has no colliders)")
            if a["from"] >= nr:
                raise LevelError(level, f"{p}.from", f"expected a rope index 0..{nr - 1} (the layer has {nr} "
                                 f"ropes), found {a['from']}")
            continue
        if a["at"] == LAYER:
            raise LevelError(level, f"{p}.at", "expected `at`, a fraction 0..1 of rope `to`'s length, found none")
        for k in ("from", "to"):
            if a[k] >= nr:
                raise LevelError(level, f"{p}.{k}", f"expected a rope index 0..{nr - 1} (the layer has {nr} "
                                 f"ropes), found {a[k]}")
        (s0, n0), (s1, n1) = rope(a["from"]), rope(a["to"])
        src, seg = attach_points(np.array([n0, n1]), np.array([s0, s1]), dict(a, **{"from": 0, "to": 1}))
        if src in seg[:2]:
            raise LevelError(level, p, f"expected a point attached to another point, found rope {a['from']}'s "
                             "point attached to itself (a cycle that cannot be solved)")
        if src == s0 and ((seg[0] == s1 and seg[2] == 0.0) or (seg[1] == s1 and seg[2] == 1.0)):
            raise LevelError(level, p, "expected at least one free end, found a pinned anchor attached to a "
                             "pinned anchor (a cycle that cannot be solved)")


def held_points(cfg: dict, counts, start) -> tuple:
    """The `[[layer.attach]]` entries that name a collider, as `colliders.hold` takes them: (points
    int32[h], colliders int32[h], offsets float64[h, 2] (inf: unset), break forces float32[h])."""
    rows = [t for t in cfg.get("attach") or () if t["collider"] != NONE]
    src = [_point(counts, start, t) for t in rows]
    return (np.array(src, np.int32), np.array([t["collider"] for t in rows], np.int32),
            np.array([t["offset"] for t in rows], np.float64).reshape(-1, 2),
            np.array([t["break_force"] for t in rows], np.float32))


def card_points(cfg: dict, counts, start) -> np.ndarray:
    """int32[k]: the points `[[layer.attach]]` pins to the lanyard's card (``card = true``)."""
    return np.array([_point(counts, start, t) for t in cfg.get("attach") or () if t.get("card")], np.int32)


def _point(counts, start, t: dict) -> int:
    """The point at ``from_at`` of rope ``from`` (the nearest)."""
    return int(start[t["from"]]) + int(round(t["from_at"] * (int(counts[t["from"]]) - 1)))


def attach_points(counts, start, a: dict):
    """(the attached point, (q0, q1, f)): the point at ``from_at`` of rope ``from`` (nearest), and the
    segment q0 → q1 of rope ``to`` holding the point ``at`` along it, f of the way."""
    n_from = int(counts[a["from"]])
    src = int(start[a["from"]]) + int(round(a["from_at"] * (n_from - 1)))
    n_to = int(counts[a["to"]])
    x = a["at"] * (n_to - 1)
    k = min(int(math.floor(x)), n_to - 2)
    q0 = int(start[a["to"]]) + k
    return src, (q0, q0 + 1, float(x - k))


def build(cfg: dict, points, a: np.ndarray, b: np.ndarray, link_rope,
          ropes=None, counts=None, segment: float = 0.0) -> Extras | None:
    """The layer's `Extras` over its spawned `Points` (None when every key is at its default).
    link_rope: int[m] each link's rope (None: a cloth, the layer's values); ropes: the rope tables,
    one per rope (counts repeated in). Writes the points' inv_mass for ropes of another mass, and
    bends a self-colliding body by `CROOK`."""
    if not on(cfg):
        return None
    pos, inv_mass = points.pos, points.inv_mass
    per = lambda key: (np.full(len(a), cfg[key], np.float32) if link_rope is None else   # noqa: E731
                       np.array([cfg[key] if r[key] == LAYER else r[key] for r in ropes], np.float32)[link_rope])
    ex = Extras()
    if ropes is not None:
        mass = np.repeat(np.array([r["mass"] for r in ropes], np.float32), counts)
        tips = np.cumsum(counts) - 1
        tip = np.array([r["tip_mass"] for r in ropes], np.float32)
        mass[tips[tip > 0]] = tip[tip > 0]
        inv_mass[:] = np.where(inv_mass > 0, np.float32(1.0) / mass, np.float32(0.0))
    stiff = per("bend")
    if (stiff > 0).any():
        ex.bending = _bends(pos, a, b, stiff, link_rope)
    if cfg["substeps"]:
        ex.compliance = Compliance(per("compliance"), int(cfg["substeps"]))
    ratio = per("break_at")
    if (ratio > 0).any():
        ex.breaking = Breaking(ratio, None if link_rope is None else np.asarray(link_rope, np.int32))
    on_ropes = [t for t in cfg.get("attach") or () if t["to"] != NONE]   # the rest: `held_points`, `card_points`
    if on_ropes:
        start = np.r_[0, np.cumsum(counts)[:-1]]
        rows = [attach_points(counts, start, t) for t in on_ropes]
        at = np.array([[s, q0, q1] for s, (q0, q1, _) in rows], np.int32).T.copy()
        frac = np.array([f for _, (_, _, f) in rows], np.float32)
        ex.attachments = Attachments(at, frac, np.array([t["break_force"] for t in on_ropes], np.float32),
                                     np.zeros(len(frac), np.float32))
    if cfg["self_collide"]:
        radius = cfg["radius"] or 0.5 * segment
        rest = pos.copy()
        if ex.attachments is not None:   # an attached point rests where it is held: no contact with what holds it
            at, f = ex.attachments.at, ex.attachments.frac[:, None]
            rest[at[0]] = (1 - f) * pos[at[1]] + f * pos[at[2]]
        ex.contact = SelfContact(float(radius), rest)
        # no rope is laid perfectly straight: a rope that falls on itself in one exact line can only
        # fold along it, its contacts pushing straight back into its links; a sideways wave of
        # CROOK px lets it heap up as a real one does
        wave = np.float32(CROOK) * np.sin(np.arange(len(pos)) * np.float32(1.7)).astype(np.float32)
        pos[:, 0] += np.where(inv_mass > 0, wave, np.float32(0.0))   # pinned points stay on their pins
        points.prev[:] = pos
    if cfg["sleep"]:
        ex.sleep = Sleep(SLEEP_STILL, SLEEP_STEPS)
    return ex


def _bends(pos, a, b, stiff, link_rope=None) -> Bending:
    """A bend on every two links k, k' that continue each other at rest — along a rope (``link_rope``:
    each link's rope) the next link of the same rope, whatever the angle it is laid at (a drawn rope
    curves); in a cloth b[k] = a[k'] pointing the same way, to a sixteenth of a turn (its rows and
    columns) — with the angle they make now as rest and the softer link's stiffness."""
    if link_rope is not None:
        lr = np.asarray(link_rope)
        k = np.flatnonzero((b[:-1] == a[1:]) & (lr[:-1] == lr[1:]))
        k2 = k + 1
        keep = (stiff[k] > 0) & (stiff[k2] > 0)
        return _bend_rows(pos, a, b, stiff, k[keep], k2[keep])
    d = pos[b] - pos[a]
    code = np.round(np.arctan2(d[:, 1], d[:, 0]) / (2 * math.pi / 16)).astype(np.int64) % 16
    key = a.astype(np.int64) * 16 + code
    order = np.argsort(key, kind="stable")
    want = b.astype(np.int64) * 16 + code
    at = np.minimum(np.searchsorted(key[order], want), len(key) - 1)
    k = np.flatnonzero((key[order][at] == want) & (stiff > 0))
    k2 = order[at[k]]
    k, k2 = k[stiff[k2] > 0], k2[stiff[k2] > 0]
    return _bend_rows(pos, a, b, stiff, k, k2)


def _bend_rows(pos, a, b, stiff, k, k2) -> Bending:
    """The bends of link pairs (k, k2), k2 continuing k: their points, rest angle and stiffness."""
    i, j, c = a[k], b[k], b[k2]
    u, v = pos[i] - pos[j], pos[c] - pos[j]
    angle = np.arctan2(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0], (u * v).sum(1)).astype(np.float32)
    return Bending(np.stack([i, j, c]).astype(np.int32), angle, np.minimum(stiff[k], stiff[k2]).astype(np.float32),
                   np.stack([k, k2]).astype(np.int32))
