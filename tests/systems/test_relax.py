"""Relaxation: as stiff as the seed's sequential loop, pins hold, bounds hold."""
from pathlib import Path

import numpy as np
import pytest

from ropework.components import Points, Ropes
from ropework.level import resolve
from ropework.testing import reference as ref

ROPE_LEVEL = resolve("rope")


def rope_body(scene):
    (ent, pts), = scene.find(Points)
    (_, ropes), = scene.find(Ropes)
    return pts, ropes


def seed_ropes(pts, ropes, w, h):
    """Seed 001's loop (game/testing/reference.py) on the engine's initial state, float64."""
    out = []
    for s, c in zip(ropes.start, ropes.count):
        xs, ys = pts.pos[s:s + c, 0].astype(float), pts.pos[s:s + c, 1].astype(float)
        out.append(ref.RefRope(xs, ys, [i == 0 for i in range(c)]))
    return ref.Seed001(out, w, h)


def sync(seed, pts, ropes):
    """Put the engine's state (pos, prev) into the seed's ropes."""
    for r, s, c in zip(seed.ropes, ropes.start, ropes.count):
        r.x, r.y = pts.pos[s:s + c, 0].tolist(), pts.pos[s:s + c, 1].tolist()
        r.px, r.py = pts.prev[s:s + c, 0].tolist(), pts.prev[s:s + c, 1].tolist()


def gap(seed, pts, ropes) -> float:
    """Largest |engine − seed| position over every point, px."""
    return max(float(np.max(np.abs(pts.pos[s:s + c].astype(float) - np.stack([r.x, r.y], 1))))
               for r, s, c in zip(seed.ropes, ropes.start, ropes.count))


def engine_stretch(pts, ropes, rest=11.0):
    worst = 0.0
    for s, c in zip(ropes.start, ropes.count):
        seg = np.linalg.norm(np.diff(pts.pos[s:s + c].astype(float), axis=0), axis=1)
        worst = max(worst, float(np.max(np.abs(seg - rest) / rest)))
    return worst


def test_hanging_rope_settles_where_seed_001s_does(scenes):
    """At rest the links right under the rail carry the most weight; with the seed's half
    share the 27-point rope's top link is 7.7 % long (the whole-correction rule: 3.8 %)."""
    w, h = 800, 600
    scene = scenes("rope.toml", size=(w, h))
    pts, ropes = rope_body(scene)
    seed = seed_ropes(pts, ropes, w, h)
    for _ in range(600):
        scene.step(1)
        seed.frame(0.0, 0.0)
    assert gap(seed, pts, ropes) < 1e-3
    assert engine_stretch(pts, ropes) == pytest.approx(ref.max_stretch(seed.ropes, 11.0), abs=1e-4)
    assert engine_stretch(pts, ropes) < 0.08
    speed = np.abs(pts.pos - pts.prev).max()
    assert speed < 0.05


def _throw_script(step, vx=8, vy=4):
    """Pointer path for a grab-and-throw of the middle rope's tip: (frame) -> (event, x, y) list."""
    if step == 0:
        return [("down", 400, 290)]
    if step < 40:
        return [("move", 400 + vx * step, 290 + vy * step)]
    if step == 40:
        return [("up", 400 + vx * 39, 290 + vy * 39)]
    return []


def _throw_beside_the_seed(scene, w, h, vx, vy, resync):
    """Drive the scene and seed 001's loop with the same pointer, step by step. Returns
    (largest engine − seed gap after any one step, longest link: engine, seed).
    resync: start every step of the seed from the engine's state, so a gap is one step's."""
    pts, ropes = rope_body(scene)
    seed = seed_ropes(pts, ropes, w, h)
    worst_gap, longest = 0.0, [0.0, 0.0]
    px = py = 0.0
    for f in range(240):
        for ev, x, y in _throw_script(f, vx, vy):
            getattr(scene, f"pointer_{ev}")(x, y)
            if ev == "down":
                seed.grab(x, y)
            elif ev == "up":
                seed.release()
            px, py = x, y
        if resync:
            sync(seed, pts, ropes)
        scene.step(1)
        seed.frame(px, py)
        worst_gap = max(worst_gap, gap(seed, pts, ropes))
        seg = np.linalg.norm(np.diff(pts.pos.astype(float), axis=0), axis=1)
        seg[ropes.tips[:-1]] = 0.0                 # the step from one rope's tip to the next rope's anchor
        longest[0] = max(longest[0], float(seg.max()))
        longest[1] = max(longest[1], ref.longest_link(seed.ropes))
    return worst_gap, longest[0], longest[1]


def test_each_step_is_seed_001s_loop_through_a_grab_and_throw(scenes, tmp_path):
    """From the same state and pointer, one engine step is one frame of seed 001's code: the
    anchor's neighbour moves half the error (its relax() halves every correction and skips
    a pinned end). The whole-correction rule is a different rope, seen at once."""
    w, h = 800, 600
    gap_seed, *_ = _throw_beside_the_seed(scenes("rope.toml", size=(w, h)), w, h, 8, 4, resync=True)
    assert gap_seed < 1e-2                          # float32 against float64, one step (measured 2e-3)
    whole = tmp_path / "whole.toml"
    whole.write_text(Path(ROPE_LEVEL).read_text().replace('kind = "ropes"', 'kind = "ropes"\npin_share = 1.0'))
    gap_whole, *_ = _throw_beside_the_seed(scenes(whole, size=(w, h)), w, h, 8, 4, resync=True)
    assert gap_whole > 0.1


@pytest.mark.parametrize("vx, vy", [(8, 4), (24, 10)])
def test_a_throw_stretches_the_rope_as_far_as_the_seeds_does(scenes, vx, vy):
    """Run free beside seed 001's loop through a throw: the longest link the engine reaches
    is the seed's (float32 rounding lets the two drift apart only slightly)."""
    w, h = 800, 600
    _, engine, seed = _throw_beside_the_seed(scenes("rope.toml", size=(w, h)), w, h, vx, vy, resync=False)
    assert engine == pytest.approx(seed, rel=0.03)
    assert seed > 11.0 * 1.5                        # the throw really stretched a link


def test_pinned_points_stay_on_their_anchors(scenes):
    scene = scenes("rope.toml")
    pts, ropes = rope_body(scene)
    anchors = pts.pos[ropes.start].copy()
    scene.pointer_down(*pts.pos[ropes.start[1] + 3])
    for k in range(60):
        scene.pointer_move(100 + 10 * k, 500)
        scene.step(1)
    scene.pointer_up(700, 500)
    scene.step(60)
    assert np.array_equal(pts.pos[ropes.start], anchors)


@pytest.mark.parametrize("corner", [(0, 0), (799, 599), (0, 599), (799, 0)])
def test_bounds_hold_under_a_drag_into_a_corner(scenes, corner):
    scene = scenes("rope.toml", size=(800, 600))
    pts, ropes = rope_body(scene)
    tip = ropes.tips[1]
    scene.pointer_down(*pts.pos[tip])
    scene.step(1)
    x0, y0 = pts.pos[tip]
    for k in range(1, 61):
        u = k / 60
        scene.pointer_move(x0 + (corner[0] - x0) * u, y0 + (corner[1] - y0) * u)
        scene.step(1)
        free = pts.inv_mass > 0
        held = np.zeros(len(free), bool)
        held[tip] = True
        p = pts.pos[free & ~held]
        assert p.min() >= 2 - 1e-4 and p[:, 0].max() <= 798 + 1e-4 and p[:, 1].max() <= 598 + 1e-4
    scene.pointer_up(*corner)
    scene.step(120)
    p = pts.pos[pts.inv_mass > 0]
    assert p.min() >= 2 - 1e-4 and p[:, 0].max() <= 798 + 1e-4 and p[:, 1].max() <= 598 + 1e-4


LONG_ROPE = """
[[layer]]
kind = "ropes"
fit = 100            # no fitting: the rope is longer than the window is tall
[[layer.rope]]
anchor = 0.5
points = 40
colour = "#00d4ff"
"""


def test_rope_pushed_into_the_floor_lies_and_slides_along_it(scenes, tmp_path):
    level = tmp_path / "long.toml"
    level.write_text(LONG_ROPE)
    scene = scenes(level, size=(800, 200))
    pts, ropes = rope_body(scene)
    tip = ropes.tips[0]
    scene.pointer_down(*pts.pos[tip])          # swing the tip out sideways and let go
    for k in range(20):
        scene.pointer_move(400 + 10 * k, 150)
        scene.step(1)
    scene.pointer_up(600, 150)
    scene.step(400)
    y = pts.pos[:, 1]
    assert y.max() <= 198 + 1e-4
    on_floor = np.isclose(y, 198, atol=1e-3)
    assert on_floor.sum() >= 8                 # clamped onto the floor, not bounced off it
    x_before = pts.pos[on_floor, 0].copy()
    scene.pointer_down(*pts.pos[tip])          # drag the tip along the floor: the rope slides with it
    for _ in range(30):
        scene.pointer_move(pts.pos[tip, 0] - 4, 198)
        scene.step(1)
    assert np.abs(pts.pos[on_floor, 0] - x_before).max() > 20
    assert pts.pos[:, 1].max() <= 198 + 1e-4


def test_any_constraint_graph_matches_a_plain_sequential_sweep():
    """The kernel on a cloth grid, at the rope seed's half share, equals the obvious loop over
    the same constraint list, in order."""
    import math

    from ropework.kinds.cloth import grid_constraints
    from ropework.systems.relax import relax
    cols, rows = 6, 5
    a, b = grid_constraints(cols, rows, shear=True)
    rng = np.random.default_rng(1)
    pos = (np.stack(np.meshgrid(np.arange(cols), np.arange(rows)), -1).reshape(-1, 2) * 10.0
           + rng.normal(0, 2.0, (cols * rows, 2))).astype(np.float32)
    rest = np.full(len(a), 10.0, np.float32)
    rest[-2 * (cols - 1) * (rows - 1):] = 10.0 * math.sqrt(2)
    inv = np.ones(cols * rows, np.float32)
    inv[[0, cols - 1]] = 0.0
    ref_pos = pos.astype(float).tolist()
    for _ in range(7):                 # seed 001's relax() over the cloth's links: half each, a pin stays
        for c in range(len(a)):
            i, j = a[c], b[c]
            dx, dy = ref_pos[j][0] - ref_pos[i][0], ref_pos[j][1] - ref_pos[i][1]
            d = math.hypot(dx, dy) or 1e-4
            correction = (d - rest[c]) / d / 2
            if inv[i]:
                ref_pos[i][0] += dx * correction
                ref_pos[i][1] += dy * correction
            if inv[j]:
                ref_pos[j][0] -= dx * correction
                ref_pos[j][1] -= dy * correction
    empty = np.zeros(0, np.float32)
    relax(pos, inv, a, b, rest, 7, empty, empty, 0.5)
    np.testing.assert_allclose(pos, np.array(ref_pos), atol=2e-3)


def _cloth_through_a_drag(scene):
    """(state hash, [(max, mean) stretch]) of a cloth at rest, then dragged hard sideways and down."""
    from ropework.components import Constraints
    (_, pts), = scene.find(Points)
    (_, con), = scene.find(Constraints)

    def stretch():
        d = np.linalg.norm(pts.pos[con.b].astype(float) - pts.pos[con.a], axis=1)
        s = np.abs(d - con.rest) / con.rest
        return float(s.max()), float(s.mean())
    scene.step(120)
    seen = [stretch()]                        # at rest
    scene.pointer_down(450, 300)
    for k in range(40):
        scene.pointer_move(450 + 9 * k, 300 + 6 * k)
        scene.step(1)
        seen.append(stretch())                # under the drag
    scene.pointer_up(810, 540)
    scene.step(60)
    seen.append(stretch())
    return scene.state_hash(), seen


def test_cloth_is_exactly_as_stiff_as_the_declared_order_at_rest_and_under_a_drag(scenes, monkeypatch):
    """The solver reorders a cloth's repairs (level order) for speed; the rule is that
    it must not be softer than sequential Gauss–Seidel at the same passes. It is not even
    different: the same drag with the plain declared-order sweep gives the same bits."""
    import ropework.systems.relax as relax_mod
    from ropework.components import Constraints
    from tests.systems.test_relax_runs import sequential
    fast = _cloth_through_a_drag(scenes("cloth.toml", size=(900, 600)))
    scene = scenes("cloth.toml", size=(900, 600))
    (_, con), = scene.find(Constraints)
    monkeypatch.setattr(relax_mod, "solve", lambda pos, inv, rest, passes, lo, hi, plan, share, *paths:
                        sequential(pos, inv, con.a, con.b, rest, passes, lo, hi, share))
    plain = _cloth_through_a_drag(scene)
    assert fast == plain
    assert max(s[0] for s in fast[1]) > 0.2    # the drag really stretched the cloth


def _tendrils_relax_beside_seed_002(scene):
    """Step a whipped tendrils scene; around each step's relax system, run seed 002's four
    constraint passes on a float64 copy of the same input. Returns the largest gap, px."""
    from ropework.components import Constraints
    (ent, pts), = scene.find(Points)
    ropes, con = scene.component(ent, Ropes), scene.component(ent, Constraints)
    proc = next(p for p in scene.processors if p.system_name == "relax")
    inner = proc.process
    worst = [0.0]

    def beside(frame):
        before = pts.pos.astype(float)
        inner(frame)
        for s, c in zip(ropes.start, ropes.count):
            x, y = before[s:s + c, 0].tolist(), before[s:s + c, 1].tolist()
            ref.relax_002(x, y, float(con.rest[s]), con.passes)
            worst[0] = max(worst[0], float(np.abs(pts.pos[s:s + c] - np.stack([x, y], 1)).max()))
    proc.process = beside
    for k in range(120):                      # circles fast enough to throw sparks
        a = k * 0.35
        scene.pointer_move(640 + 300 * np.cos(a), 360 + 200 * np.sin(a))
        scene.step(1)
    return worst[0]


def test_tendrils_relax_is_seed_002s_constraint_loop(scenes, tmp_path):
    """Seed 002 gives point 1 the whole of the first segment's correction: the tendrils' default."""
    assert _tendrils_relax_beside_seed_002(scenes("tendrils.toml")) < 1e-2
    half = tmp_path / "half.toml"
    half.write_text('[[layer]]\nkind = "tendrils"\npin_share = 0.5\n')
    assert _tendrils_relax_beside_seed_002(scenes(half)) > 0.1
