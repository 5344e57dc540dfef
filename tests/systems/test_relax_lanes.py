"""A big body's chain groups keep rest lengths and divisors between steps (`relax.LaneCache`):
whatever changes them between two steps — a pin, a grab and its release, a weight off 0 and 1,
another share, a tear, a new rest array, a rehang — the next step has the bits of the plain
sequential sweep, which keeps nothing. Rest lengths stay their owner's: edited in place, they
stay writable and the next step sees the edit.
"""
import esper
import numpy as np
import pytest

from ropework.components import Bounds, Constraints, Pins, Points
from ropework.systems import relax as relax_mod
from ropework.systems.relax import IN_ORDER_POINTS, OFF_ONE, WIDE, Relax, schedule, solve_split
from ropework.systems.services import split
from tests.systems.test_relax_runs import chains, sequential

D = 2


def body(rng, counts=None):
    """Ropes of ``counts`` points stored in order (by default of 11 and 12: sorted by length, a
    first WIDE group with padded lanes and three regular ones); and loose points that make the
    body `big`. Each rope's first point pinned."""
    if counts is None:
        counts = [12] * (3 * WIDE) + [11 + r % 2 for r in range(WIDE)]
    n, a, b = chains(counts, spare=IN_ORDER_POINTS)
    heads = np.r_[0, np.cumsum(counts)[:-1]]
    pos = rng.normal(100, 30, (n, D)).astype(np.float32)
    inv = np.ones(n, np.float32)
    inv[heads] = 0.0
    rest = rng.uniform(2, 9, len(a)).astype(np.float32)
    return pos, inv, a, b, rest, heads


def edits(step, rng, pts, cons, heads):
    """What happens to the body before step ``step``: each of the cache's writers once."""
    inv, con = pts.inv_mass, cons[0]
    if step == 1:                                  # pins along ropes (input, Pins): a padded group, a regular one
        inv[5] = 0.0
        inv[20 * 12 + 5] = 0.0
    elif step == 2:                                # a grab: held where the pointer is, weightless
        inv[WIDE * 12 + 7] = 0.0
        pts.pos[WIDE * 12 + 7] += 15.0
    elif step == 3:                                # and released
        inv[WIDE * 12 + 7] = 1.0
    elif step == 4:                                # a weight neither 0 nor 1: the general divisor
        inv[2 * WIDE * 12 + 3] = 0.5
    elif step == 5:                                # the studio's live share
        for c in cons:
            c.share = 0.5
    elif step == 6:                                # more weights off 1 in a group than the cache lists
        inv[:OFF_ONE + 20] = 0.0
    elif step == 7:
        inv[:OFF_ONE + 20] = 1.0
        inv[heads] = 0.0
    elif step == 8:                                # a tear: new a, b, rest (the tearing plugin)
        keep = rng.random(len(con.a)) > 0.05
        for c in cons:
            c.a, c.b, c.rest = c.a[keep], c.b[keep], c.rest[keep]
    elif step == 9:                                # new rest lengths, the same links
        rest = (con.rest * np.float32(1.25)).astype(np.float32)
        for c in cons:
            c.rest = rest
    elif step == 10:                               # a rehang: laid out again, pins re-applied
        pins = Pins(index=heads.astype(np.int32), anchor=pts.pos[heads].copy())
        pts.pos[:] = rng.normal(100, 30, pts.pos.shape).astype(np.float32)
        pins.apply(pts)
    elif step == 11:                               # rest lengths as a view of another array
        base = np.r_[con.rest * np.float32(0.8), np.float32(1.0)].astype(np.float32)
        for c in cons:
            c.rest = base[:-1]
        return base
    return None


def test_a_big_body_matches_the_plain_sweep_through_every_change_of_weights_rest_and_share(monkeypatch):
    rng = np.random.default_rng(15)
    pos, inv, a, b, rest, heads = body(rng)
    assert relax_mod.big(len(pos))
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=rest, passes=5, share=1.0)    # one pinned end: D = 1, not 2
    two = Constraints(a=a, b=b, rest=rest, passes=5, share=1.0)     # the same body, split over threads
    box = Bounds(lo=np.full(D, 40, np.float32), hi=np.full(D, 170, np.float32))
    esper.create_entity(pts, con, box)
    monkeypatch.setattr(split, "PIECE_POINTS", 2 * WIDE * 12)        # a piece per group or two
    want, split_pos = pos.copy(), pos.copy()
    base = None
    for step in range(14):
        view = edits(step, rng, pts, (con, two), heads)
        if step == 2:
            want[WIDE * 12 + 7] += 15.0
            split_pos[WIDE * 12 + 7] += 15.0
        if step == 10:
            want[:], split_pos[:] = pts.pos, pts.pos
        base = view if view is not None else base
        if step == 12:                             # an edit through the viewed array: seen too
            base[:10] = np.float32(3.0)
        Relax().process(None)
        schedule(two, split_pos.shape)
        solve_split(split_pos, pts.inv_mass, two.rest, two.passes, box.lo, box.hi, two.schedule, two.share)
        sequential(want, pts.inv_mass, con.a, con.b, con.rest, con.passes, box.lo, box.hi, con.share)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), step
        assert np.array_equal(want.view(np.uint32), split_pos.view(np.uint32)), step
        want += np.float32(0.5)                    # the points move on between steps
        pts.pos += np.float32(0.5)
        split_pos += np.float32(0.5)
    assert con.schedule.calls.lanes is not None


def test_rest_lengths_edited_in_place_on_a_big_body_are_seen_and_stay_writable():
    """A plugin that shortens ropes may write Constraints.rest in place, as on a small body: the
    array, or a view of it taken before the first step, stays writable through steps, a tear
    and a body that drops below IN_ORDER_POINTS with the same rest, and the next step sees each
    edit (the plain sweep's bits)."""
    rng = np.random.default_rng(16)
    pos, inv, a, b, rest, heads = body(rng)
    early = rest[: 12 * WIDE]                          # a view, taken before any step
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=rest, passes=3, share=1.0)
    esper.create_entity(pts, con)
    want = pts.pos.copy()
    none = np.zeros(0, np.float32)
    for step, edit in enumerate([
            lambda: None,
            lambda: con.rest.__setitem__(slice(0, 40), np.float32(1.5)),      # in place
            lambda: early.__setitem__(slice(100, 140), np.float32(7.0)),      # through the early view
            lambda: con.rest.__imul__(np.float32(0.9)),                       # every rope shorter
            lambda: None]):
        edit()
        Relax().process(None)
        sequential(want, inv, a, b, con.rest, 3, none, none, 1.0)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), step
        assert con.rest.flags.writeable, step
    con.a, con.b = a[12:], b[12:]                      # a tear: the first rope's links gone, a new plan
    for step in range(2):
        Relax().process(None)
        sequential(want, inv, con.a, con.b, con.rest, 3, none, none, 1.0)
        assert np.array_equal(want.view(np.uint32), pts.pos.view(np.uint32)), ("torn", step)
        assert con.rest.flags.writeable
        con.rest[12:52] = np.float32(3.0)              # and in place after it


def test_a_one_off_relax_leaves_the_callers_rest_writable():
    rng = np.random.default_rng(17)
    pos, inv, a, b, rest, _ = body(rng)
    relax_mod.relax(pos, inv, a, b, rest, 2, None, None, 0.5)
    assert rest.flags.writeable


def test_small_bodies_keep_no_lane_cache(scenes):
    scene = scenes("tendrils.toml")
    scene.step(2)
    for _, con in esper.get_component(Constraints):
        assert con.schedule.calls.lanes is None and con.rest.flags.writeable


def test_a_group_of_ropes_of_mixed_lengths_keeps_its_divisors_between_quiet_steps():
    """Ropes of 5 to 40 points, pinned at the head: sorted by length, a group's lanes end at
    different rows, so most groups have padding slots (more than OFF_ONE in all). Padding weighs
    nothing and never changes, so it is no weight the cache has to check: after quiet steps every
    group keeps its divisors (meta[g, 0] >= 0: the next step checks them, not makes them), with
    the plain sweep's bits."""
    rng = np.random.default_rng(18)
    pos, inv, a, b, rest, heads = body(rng, list(rng.integers(5, 41, 5 * WIDE + 3)))
    pts = Points(pos=pos.copy(), prev=pos.copy(), inv_mass=inv)
    con = Constraints(a=a, b=b, rest=rest, passes=4, share=1.0)
    esper.create_entity(pts, con)
    for step in range(3):
        Relax().process(None)
        sequential(pos, inv, a, b, rest, 4, np.zeros(0, np.float32), np.zeros(0, np.float32), 1.0)
        assert np.array_equal(pos.view(np.uint32), pts.pos.view(np.uint32)), step
    groups, _, pmap = con.schedule.views[:3]
    assert (groups[:-1, 3] == 0).sum() >= 4 and (pmap < 0).sum() > OFF_ONE   # padded groups, much padding
    kept = con.schedule.calls.lanes.meta[:, 0]
    assert (kept >= 0).all(), kept


@pytest.mark.parametrize("at", [0, relax_mod.BLOCK - 1, relax_mod.BLOCK, 2 * relax_mod.BLOCK + 5, -1])
def test_the_rest_compare_sees_one_bit_anywhere(at):
    """`same_bits` (what the cache compares rest with) finds one flipped bit in any block or the
    tail; and 0.0 / -0.0, equal as floats, differ to it, while a NaN equals itself."""
    x = np.random.default_rng(19).uniform(2, 9, 2 * relax_mod.BLOCK + 9).astype(np.float32)
    y = x.copy()
    assert relax_mod.same_bits(x.view(np.uint32), y.view(np.uint32))
    y.view(np.uint32)[at] ^= 1
    assert not relax_mod.same_bits(x.view(np.uint32), y.view(np.uint32))
    x[at], y[at] = 0.0, -0.0
    assert not relax_mod.same_bits(x.view(np.uint32), y.view(np.uint32))
    x[at] = y[at] = np.nan
    assert relax_mod.same_bits(x.view(np.uint32), y.view(np.uint32))


def test_the_chain_scratch_starts_on_a_cache_line_whatever_malloc_gives():
    """At 16 or 48 bytes mod 64 the lane loop's 32-byte loads split across lines (W5's relax ≈ 1.17×).
    numpy gives 16-byte alignment, so among scratches of many sizes some would land there."""
    from ropework.systems import relax
    keep = []
    for n in range(1, 400, 7):
        a = relax.aligned_zeros(n)
        keep.append(a)
        assert a.__array_interface__["data"][0] % relax.SCRATCH_ALIGN == 0
        assert a.shape == (n,) and a.dtype == np.float32 and not a.any() and a.flags.c_contiguous
    groups = np.array([[0, 0, 32, 1], [320, 352, 8, 0], [400, 420, 0, 0]], np.int32)
    for s in relax.chain_scratch(groups):
        assert s.__array_interface__["data"][0] % relax.SCRATCH_ALIGN == 0
