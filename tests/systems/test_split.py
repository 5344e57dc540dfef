"""Two threads for the largest bodies: the same bits as one, and never below the threshold.

`split.PARALLEL_POINTS` decides when integrate and relax share a step between threads;
below it the one-thread kernels run and no thread is entered. Above it, each piece is
the one-thread kernel on points no other piece touches, so the state must be bit for bit
the one-thread state — checked here on bodies just below and just above the threshold.
"""
from types import SimpleNamespace

import esper
import numpy as np
import pytest

from ropework.components import Bounds, Constraints, Forces, Points
from ropework.systems import integrate as integrate_mod
from ropework.systems import relax as relax_mod
from ropework.systems.integrate import _NO_EXTRA, Integrate, integrate
from ropework.systems.relax import WIDE, Relax, chain_points, paths, plan, solve, solve_split
from ropework.systems.services import split
from tests.systems.test_relax_runs import chains, graph, grid, sequential, state

FRAME = SimpleNamespace(dt=1 / 60)
LINK = 40   # points per rope, as W4/W5


def body(ropes: int, rng, boxed: bool):
    """``ropes`` ropes of LINK points, pinned at point 0, then a small cloth and 3 loose points:
    chain groups, a level-ordered piece and points in no constraint in one body."""
    n, a, b = chains([LINK] * ropes, 0)
    ga, gb = grid(6, 5, at=n)
    a, b = np.r_[a, ga].astype(np.int32), np.r_[b, gb].astype(np.int32)
    n += 30 + 3
    pos = rng.normal(0, 40, (n, 2)).astype(np.float32) + np.float32(400)
    inv = np.ones(n, np.float32)
    inv[0:ropes * LINK:LINK] = 0.0
    pts = Points(pos=pos, prev=(pos - rng.normal(0, 1, (n, 2))).astype(np.float32), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=np.full(len(a), 8.0, np.float32), passes=8, share=1.0)
    lo, hi = (np.full(2, 300, np.float32), np.full(2, 500, np.float32)) if boxed else (relax_mod._NO_BOX,) * 2
    return pts, con, Forces(gravity=np.array((0.0, 900.0), np.float32), damping=0.995), lo, hi


def ropes_around_threshold():
    """(ropes below, ropes at or above): the largest rope count whose chain groups and points
    both stay under `split.PARALLEL_POINTS`, and the smallest where both reach it."""
    per_group = WIDE * LINK                       # point slots of one full group of LINK-point ropes
    above = -(-split.PARALLEL_POINTS // per_group) * WIDE
    return above - WIDE, above


@pytest.mark.parametrize("side", ["below", "above"])
def test_the_systems_give_the_one_thread_bits_on_either_side_of_the_threshold(side):
    rng = np.random.default_rng(1 if side == "below" else 2)
    ropes = ropes_around_threshold()[side == "above"]
    pts, con, forces, lo, hi = body(ropes, rng, boxed=side == "above")
    n = len(pts.pos)
    slots = chain_points(plan(n, True, con.a, con.b))
    if side == "below":
        assert slots < split.PARALLEL_POINTS and n < split.PARALLEL_POINTS
    else:
        assert slots >= split.PARALLEL_POINTS and n >= split.PARALLEL_POINTS
    want_pos, want_prev = pts.pos.copy(), pts.prev.copy()
    parts = [pts, con, forces] + ([Bounds(lo=lo, hi=hi)] if lo.size else [])
    esper.create_entity(*parts)
    before = split.calls
    for _ in range(3):
        Integrate().process(FRAME)
        Relax().process(FRAME)
        integrate(want_pos, want_prev, pts.inv_mass, forces.gravity, _NO_EXTRA, forces.damping, FRAME.dt)
        packed = plan(n, True, con.a, con.b)
        solve(want_pos, pts.inv_mass, con.rest, con.passes, lo, hi, packed, con.share, *paths(packed, 2))
    assert np.array_equal(want_pos.view(np.uint32), pts.pos.view(np.uint32))
    assert np.array_equal(want_prev.view(np.uint32), pts.prev.view(np.uint32))
    entered = split.calls - before
    if side == "below" or split.threads() < 2:
        assert entered == 0
    else:
        assert entered == 6          # integrate and relax, each step


@pytest.mark.parametrize("kind", ["ropes", "even ropes", "mixed ropes", "ropes and cloth", "random"])
def test_split_solve_matches_the_plain_sweep_in_small_pieces(kind, monkeypatch):
    """Pieces of a few points each, so every grouping case (WIDE, NARROW, leftover ropes
    in level order, loose points, a box) is shared out between the threads."""
    monkeypatch.setattr(split, "PIECE_POINTS", 64)
    rng = np.random.default_rng(["ropes", "even ropes", "mixed ropes", "ropes and cloth", "random"].index(kind))
    for t in range(6):
        n, a, b = graph(rng, kind)
        pos, inv, rest = state(rng, n, len(a), 2)
        box = t % 2 == 0
        lo = np.full(2 if box else 0, 80, np.float32)
        hi = np.full(2 if box else 0, 130, np.float32)
        con = Constraints(a=a, b=b, rest=rest, passes=int(rng.integers(1, 9)), share=(0.5, 1.0, 0.75)[t % 3])
        relax_mod.schedule(con, pos.shape)
        want, got = pos.copy(), pos.copy()
        for _ in range(3):
            sequential(want, inv, a, b, rest, con.passes, lo, hi, con.share)
            solve_split(got, inv, rest, con.passes, lo, hi, con.schedule, con.share)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32)), (kind, t, n, len(a))


def test_split_integrate_is_integrate_bit_for_bit(monkeypatch):
    monkeypatch.setattr(split, "PIECE_POINTS", 100)
    rng = np.random.default_rng(5)
    n = 1037
    pos = rng.normal(0, 50, (n, 2)).astype(np.float32)
    prev = (pos + rng.normal(0, 2, (n, 2))).astype(np.float32)
    inv = (rng.random(n) > 0.1).astype(np.float32)
    g = np.array((0.0, 900.0), np.float32)
    for extra in (_NO_EXTRA, rng.normal(0, 300, (n, 2)).astype(np.float32)):
        p1, q1, p2, q2 = pos.copy(), prev.copy(), pos.copy(), prev.copy()
        for _ in range(4):
            integrate(p1, q1, inv, g, extra, 0.995, 1 / 60)
            integrate_mod.integrate_split(p2, q2, inv, g, extra, 0.995, 1 / 60)
        assert np.array_equal(p1.view(np.uint32), p2.view(np.uint32))
        assert np.array_equal(q1.view(np.uint32), q2.view(np.uint32))


def test_shipped_scenes_never_enter_the_split_path(scenes, monkeypatch):
    def tripwire(*_):
        raise AssertionError("a small scene took the two-thread path")
    monkeypatch.setattr(relax_mod, "solve_split", tripwire)
    monkeypatch.setattr(integrate_mod, "integrate_split", tripwire)
    before = split.calls
    for level in ("rope.toml", "tendrils.toml", "cloth.toml"):
        s = scenes(level)
        s.pointer_move(400, 300)
        s.pointer_down(400, 300)
        s.step(20)
        s.pointer_up(400, 300)
    assert split.calls == before


def test_pieces_cover_the_range_once_in_order():
    for total, most in ((0, 5), (1, 5), (10, 5), (11, 5), (1_000_000, 65_536)):
        got = split.pieces(total, most)
        flat = [i for a, b in got for i in range(a, b)] if total < 100 else None
        assert all(0 < b - a <= most for a, b in got)
        assert not got or (got[0][0] == 0 and got[-1][1] == total)
        assert all(x[1] == y[0] for x, y in zip(got, got[1:]))
        if flat is not None:
            assert flat == list(range(total))
