"""Documented ranges hold: every numeric key at its low and its high bound — alone, and with the
numeric keys declared beside it at theirs — loads, runs 300 steps under a scripted hand and
draws, with every state array finite.

The cases come from the declarations (`tests.levelgen.key_sites`: the top table, every
registered kind's layer table and its sub-tables), so a new key is walked with no edit. A
value the loader refuses is a failure too — the declared range promised it — except where a
declared cross-key check (lanyard: far > near) says which neighbour must move with it, or counts
each in range pass a scene's caps together (its points, its work a step or before its first).
Scenes are small (160×90) and a scene whose work per step is large (points × passes) runs
fewer steps: stability shows within a few steps at the largest counts, and the counts
themselves are what the memory test (tests/game/test_memory.py) holds to.
"""
from __future__ import annotations

import numpy as np
import pytest

from ropework import cost, kinds, level
from ropework.components import Points
from ropework.render import Offscreen
from ropework.scene import Scene
from ropework.schema import LevelError
from tests import levelgen

SIZE = (160, 90)           # px: small, so 300 steps of any kind stay cheap
STEPS = 300                # the bar: 300 steps must stay finite
WORK = 3_000_000           # point-passes per case at most: larger scenes run fewer steps (never under MIN_STEPS)
MIN_STEPS = 2
CROSS_KEY = {              # (kind, key, bound) refused by a declared cross-key check, and the message it gives
    ("lanyard", "near", "hi"): "expected far > near",
    ("lanyard", "far", "lo"): "expected far > near",
    ("ropes", "count", "hi"): "expected the last of",   # many ropes `every` apart must end inside the window
    ("ropes", "every", "hi"): "expected the last of",
    ("ropes", "collider", "hi"): "expected a collider index",   # an attachment names a collider the layer has
    ("ropes", "from", "hi"): "expected a rope index",    # an attachment names a rope the layer has
    ("ropes", "to", "hi"): "expected a rope index",
    ("ropes", "at", "hi"): "cannot be solved",           # rope 0's tip on rope 0's tip: itself
    ("ropes", "from_at", "lo"): "cannot be solved",      # rope 0's anchor on rope 0's anchor
    # a composite is judged in the default scene: its size against where it is, its points against its size
    ("bridge", "sag", "hi"): "sag: expected 0..",       # links too long for its points, or hung below the scene
    ("bridge", "deck", "hi"): "sag: expected 0..",
    ("bridge", "points", "lo"): "to span",
    ("wheel", "radius", "lo"): "more than twice `point_radius`",
    ("wheel", "radius", "hi"): "the rim inside",
    ("wheel", "point_radius", "hi"): "more than twice `point_radius`",
    ("wheel", "spokes", "hi"): "one spoke a rim point",
    ("wheel", "points", "lo"): "one spoke a rim point",
    ("blob", "radius", "lo"): "more than twice `point_radius`",
    ("blob", "radius", "hi"): "the blob inside",
    ("blob", "point_radius", "hi"): "more than twice `point_radius`",
    ("sign", "hang", "hi"): "the held points inside",
    ("cradle", "spacing", "lo"): "spacing: expected",    # balls that overlap at rest, or a row past the scene
    ("cradle", "spacing", "hi"): "spacing: expected",
    ("cradle", "balls", "hi"): "spacing: expected",
    ("cradle", "radius", "hi"): "spacing: expected",
    ("cradle", "length", "hi"): "length: expected",
}
SCENE_CAP = f"expected at most {level.MAX_POINTS} points in a scene"   # counts each in range, together past the cap
WORK_CAPS = (f"expected a level that steps in at most {cost.MAX_STEP_MS:.0f} ms",     # ... or past the work a step
             f"expected a level that starts with at most {cost.MAX_START_MS:.0f} ms")  # or before the first step


def _numeric(table) -> list[str]:
    return [n for n, k in table.keys.items() if k.type in ("int", "float") and n != "seed"]


def _bools(kind: str, where: tuple) -> dict:
    """Every bool key of the case's layer (and of the top table) flipped from its default: the other
    paths (the dot grid's inertia spring, the lanyard's low power, cloth shear, reduced motion…)."""
    tables = [("top", level.TOP)] + ([("layer", levelgen.layer_schema(kind))] if kind != "<top>" else [])
    return {(where_, n): not k.default for where_, t in tables for n, k in t.keys.items() if k.type == "bool"}


def cases():
    """Each numeric key at each bound: alone with the defaults, and with the numeric keys declared
    before and after it at the same bound and every bool flipped (alone with the bools flipped
    where it has no neighbour): each key meets the flipped paths at its bound either way."""
    out = []
    for kind, prefix, table, where in levelgen.key_sites():
        names = _numeric(table)
        for i, name in enumerate(names):
            group = tuple(names[max(0, i - 1):i + 2])
            for bound in ("lo", "hi"):
                out.append(pytest.param(kind, where, (name,), bound, False, id=f"{kind}:{prefix}.{name}={bound}"))
                if len(group) > 1:          # the neighbours' case has the bools flipped: the key alone need not
                    out.append(pytest.param(kind, where, group, bound, True,
                                            id=f"{kind}:{prefix}.{name}+neighbours={bound},flipped"))
                else:
                    out.append(pytest.param(kind, where, (name,), bound, True,
                                            id=f"{kind}:{prefix}.{name}={bound},flipped"))
    return out


def hand(scene: Scene, f: int) -> None:
    """A scripted hand: grab the middle, drag across, let go, click twice, leave."""
    w, h = scene.width, scene.height
    if f == 0:
        scene.pointer_move(w / 2, h / 3)
    elif f == 5:
        scene.pointer_down(w / 2, h / 3)
    elif 5 < f < 60:
        u = (f - 5) / 55
        scene.pointer_move(w * (0.5 - 0.4 * u), h * (1 / 3 + 0.5 * u))
    elif f == 60:
        scene.pointer_up(w * 0.1, h * 0.83)
    elif f in (80, 140):
        scene.pointer_down(w * 0.7, h * 0.5)
    elif f in (81, 141):
        scene.pointer_up(w * 0.7, h * 0.5)
    elif f == 150:
        scene.pointer_leave()


def steps_for(lv) -> int:
    work = 0
    for cfg in lv.layers:
        passes = max([cfg.get("passes", 1)] + [r.get("passes", 1) for r in cfg.get("rope", [])])
        work += kinds.KINDS[cfg["kind"]].points(cfg, *SIZE) * max(1, passes)
    return max(MIN_STEPS, min(STEPS, WORK // max(1, work)))


def finite(scene: Scene) -> list[str]:
    bad = []
    for _ent, comps in scene.arrays().items():
        for cname, fields in comps.items():
            for fname, a in fields.items():
                if a.dtype.kind == "f" and not np.isfinite(a).all():
                    bad.append(f"{cname}.{fname}")
    return bad


@pytest.mark.parametrize("kind,where,names,bound,flipped", cases())
def test_every_numeric_key_at_its_bounds_runs_and_draws_finitely(kind, where, names, bound, flipped, tmp_path,
                                                                 gl_window):
    doc = levelgen.doc_for(kind, where, names)
    if flipped:
        for (in_, name), v in _bools(kind, where).items():
            (doc if in_ == "top" else doc["layer"][0])[name] = v
    table = levelgen.at(doc, where)
    site = next(t for k, _p, t, w in levelgen.key_sites() if k == kind and w == where)
    for name in names:
        key = site.keys[name]
        table[name] = key.lo if bound == "lo" else key.hi
    path = tmp_path / "case.toml"
    path.write_text(levelgen.dumps(doc), "utf-8")
    try:
        lv = level.load(path, SIZE)
    except LevelError as e:
        why = next((m for (k, n, b), m in CROSS_KEY.items() if k == kind and n in names and b == bound), None)
        if len(names) > 1 and SCENE_CAP in str(e):
            why = SCENE_CAP
        if len(names) > 1 and any(cap in str(e) for cap in WORK_CAPS):
            why = next(cap for cap in WORK_CAPS if cap in str(e))
        assert why is not None and why in str(e), f"the declared range is refused: {e}"
        return
    scene = Scene(lv, SIZE, seed=1)
    off = Offscreen(gl_window.ctx, SIZE)
    try:
        n = steps_for(lv)
        for f in range(n):
            hand(scene, f)
            scene.step(1)
            if f == n - 1 or (f == 0 and n == STEPS):   # drawn after the first step and the last
                off.render(scene)
                assert not finite(scene), f"non-finite after {f + 1} steps: {finite(scene)}"
        assert scene.point_count == sum(p.n for _, p in scene.find(Points))
    finally:
        off.release()
        scene.close()
