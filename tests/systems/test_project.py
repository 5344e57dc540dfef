"""Ropes and cloth with solve extras: bending, XPBD substeps, breaking, attachments, self-contact,
sleep — driven through the headless scene, beside transcriptions where an anchor has a loop."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components import Constraints, Points
from ropework.components.solve import Extras
from ropework.scene import Scene
from ropework.systems.services import split

SIZE = (800, 600)


def scene(tmp_path, layer: str, name="t.toml") -> Scene:
    f = tmp_path / name
    f.write_text('[[layer]]\nkind = "ropes"\n' + layer)
    return Scene.load(str(f), size=SIZE, seed=1)


def body(s: Scene):
    ent, c = next((e, c) for e, c in s.arrays().items() if "Points" in c)
    return c["Points"]["pos"]


def comp(s: Scene, cls):
    return s.find(cls)[0][1]


def rope(points=20, **keys) -> str:
    extra = "".join(f"{k} = {v}\n" for k, v in keys.items())
    return f'[[layer.rope]]\nanchor = 0.5\npoints = {points}\n{extra}'


def drag_tip(s: Scene, to, steps=40):
    pos = body(s)
    s.pointer_down(float(pos[-1, 0]), float(pos[-1, 1]))
    x0, y0 = float(pos[-1, 0]), float(pos[-1, 1])
    for k in range(1, steps + 1):
        s.pointer_move(x0 + (to[0] - x0) * k / steps, y0 + (to[1] - y0) * k / steps)
        s.step()


def sag(pos) -> float:
    """Largest distance of a rope's points from the line through its ends."""
    a, b = pos[0].astype(np.float64), pos[-1].astype(np.float64)
    d = (b - a) / np.linalg.norm(b - a)
    r = pos - a
    return float(np.abs(r[:, 0] * d[1] - r[:, 1] * d[0]).max())


def test_a_stiff_wire_springs_back_straight_where_a_slack_rope_stays_bent(tmp_path):
    sags = {}
    for bend in (0.0, 1.0):
        s = scene(tmp_path, f"bend = {bend}\ngravity = 0\n" + rope(), f"b{bend}.toml")
        pos = body(s)
        s.pointer_down(float(pos[10, 0]), float(pos[10, 1]))    # the middle, pushed 100 px aside
        for k in range(1, 21):
            s.pointer_move(float(pos[10, 0]) + 5 * k, float(pos[10, 1]))
            s.step()
        bent = sag(body(s))
        s.pointer_up(float(pos[10, 0]) + 100, float(pos[10, 1]))
        s.step(600)
        sags[bend] = (bent, sag(body(s)))
        s.close()
    assert sags[0.0][0] > 30 and sags[1.0][0] > 10     # both were bent
    assert sags[0.0][1] > 10                           # the chain keeps the bend it was given
    assert sags[1.0][1] < 2                            # the wire holds its own shape: straight


@pytest.mark.parametrize("bend", [0.05, 0.3, 0.7, 1.0])
def test_bend_is_stable_at_every_value(tmp_path, bend):
    s = scene(tmp_path, f"bend = {bend}\n" + rope(30))
    drag_tip(s, (100, 500), steps=20)
    s.pointer_up(100, 500)
    s.step(600)
    pos = body(s)
    assert np.isfinite(pos).all()
    speed = np.abs(pos - comp(s, Points).prev).max()
    assert speed < 3.0 and (pos[:, 1] <= 600).all()   # swinging down, never ringing up or blowing apart


def tmp_simulate(pos, inv, edges, rest, comp, g, dt, substeps):
    """Ten Minute Physics' simulate() (preSolve, solveEdges, postSolve per substep), float64."""
    sdt = dt / substeps
    vel = np.zeros_like(pos)
    out = []
    for _ in range(60):
        for _ in range(substeps):
            free = inv > 0
            vel[free] += g * sdt
            prev = pos.copy()
            pos[free] += vel[free] * sdt
            alpha = comp / sdt / sdt
            for (i, j), r in zip(edges, rest):
                w = inv[i] + inv[j]
                if w == 0:
                    continue
                d = pos[i] - pos[j]
                ln = math.hypot(*d)
                if ln == 0:
                    continue
                s = -(ln - r) / (w + alpha)
                pos[i] += d / ln * s * inv[i]
                pos[j] -= d / ln * s * inv[j]
            vel = (pos - prev) / sdt
        out.append(pos.copy())
    return out


def test_substeps_follow_ten_minute_physics_xpbd_loop(tmp_path):
    s = scene(tmp_path, "substeps = 8\ncompliance = 0.001\ndamping = 1.0\nmargin = 0\n" + rope(10))
    pos = body(s).astype(np.float64)
    pos[1:, 0] += np.arange(1, 10) * 6.0          # a rope laid out slanted, so it swings
    pts = comp(s, Points)
    pts.pos[:] = pos
    pts.prev[:] = pos
    inv = np.r_[0.0, np.ones(9)]
    ref = tmp_simulate(pos.copy(), inv, [(k, k + 1) for k in range(9)], np.full(9, 11.0), 0.001,
                       np.array([0.0, 900.0]), 1 / 60, 8)
    for k in range(60):
        s.step()
        np.testing.assert_allclose(body(s), ref[k], atol=0.05)


def hanging_stretch(tmp_path, passes, substeps, compliance=0.0, points=30, name="h.toml"):
    layer = f"passes = {passes}\nsubsteps = {substeps}\ncompliance = {compliance}\n" + rope(points)
    s = scene(tmp_path, layer, name)
    s.step(600)
    pos = body(s)
    length = float(np.linalg.norm(np.diff(pos, axis=0), axis=1).sum())
    state = s.state_hash()
    s.close()
    return length / ((points - 1) * 11.0) - 1.0, state


def test_with_substeps_the_stretch_no_longer_depends_on_passes(tmp_path):
    few, h1 = hanging_stretch(tmp_path, 2, 16, name="a.toml")
    many, h2 = hanging_stretch(tmp_path, 200, 16, name="b.toml")
    assert h1 == h2                       # passes are not read at all
    loose2, _ = hanging_stretch(tmp_path, 2, 0, name="c.toml")
    loose14, _ = hanging_stretch(tmp_path, 14, 0, name="d.toml")
    assert loose2 > 2 * loose14 > 0       # without substeps they are: the seeds' stiffness is a pass count
    assert few < loose14                  # and 16 substeps stretch less than the seeds' 14 passes


def test_compliance_stretches_by_compliance_times_force(tmp_path):
    c = 1e-4
    stretch, _ = hanging_stretch(tmp_path, 1, 32, c, points=10)
    rigid, _ = hanging_stretch(tmp_path, 1, 32, 0.0, points=10, name="r.toml")
    # link k holds the 9 - k points below it: total stretch c · g · Σ(9 - k), over the rest length 9 · 11
    want = c * 900.0 * sum(range(1, 10)) / (9 * 11.0)
    assert stretch - rigid == pytest.approx(want, rel=0.1)


def energy(pos, prev, g=900.0, dt=1 / 60) -> float:
    v = (pos - prev) / dt
    return float(0.5 * (v * v).sum() - g * pos[:, 1].sum())


@pytest.mark.parametrize("keys", ["bend = 0.6", "substeps = 8\ncompliance = 0.01", "self_collide = true",
                                  "bend = 1.0\nsubsteps = 4"])
def test_energy_never_grows_at_rest(tmp_path, keys):
    s = scene(tmp_path, keys + "\n" + rope(25))
    s.step(300)
    last = None
    for _ in range(120):
        s.step()
        c = comp(s, Points)
        e = energy(c.pos.astype(np.float64), c.prev.astype(np.float64))
        if last is not None:
            assert e <= last + 1e-3 * abs(last)
        last = e


def test_a_link_breaks_past_its_ratio_and_not_before(tmp_path):
    s = scene(tmp_path, "break_at = 1.5\ngrab_pins = true\n" + rope(10))
    m = len(comp(s, Constraints).a)
    drag_tip(s, (400, 120), steps=60)      # pushed up: shorter, nothing breaks
    assert len(comp(s, Constraints).a) == m
    drag_tip(s, (400, 590), steps=30)      # 99 px of rope pulled to 584 px: past 150 %
    con = comp(s, Constraints)
    assert len(con.a) < m
    pos = body(s)
    d = np.linalg.norm(pos[con.b] - pos[con.a], axis=1)
    assert (d <= con.rest * 1.5 + 1e-3).all()   # every link left is within the ratio


def two_ropes(mass_bob: float) -> str:
    return ('min_points = 2\n[[layer.rope]]\nanchor = 0.3\npoints = 20\n'
            f'[[layer.rope]]\nanchor = 0.7\npoints = 4\nmass = {mass_bob}\n'
            '[[layer.attach]]\nfrom = 0\nto = 1\nat = 1.0\n')


def test_a_heavy_bob_swings_a_light_rope_not_the_other_way_round(tmp_path):
    out = {}
    for m in (50.0, 0.02):
        s = scene(tmp_path, two_ropes(m), f"m{m}.toml")
        s.step(400)
        pos = body(s)
        out[m] = (abs(float(pos[23, 0]) - 560.0), abs(float(pos[19, 0]) - 240.0))   # bob tip, light tip off their anchors
        np.testing.assert_allclose(pos[19], pos[23], atol=1.0)                       # held together
        s.close()
    assert out[50.0][0] < 0.2 * out[50.0][1]      # heavy bob: it barely leaves its place, the light rope comes
    assert out[0.02][0] > 3 * out[50.0][0]        # light bob: it is the one pulled over
    assert out[0.02][1] < out[50.0][1]


def test_an_attachment_lets_go_past_its_force(tmp_path):
    s = scene(tmp_path, two_ropes(1.0).replace("at = 1.0\n", "at = 1.0\nbreak_force = 2000\n"))
    s.step(60)
    assert len(comp(s, Extras).attachments.frac) == 0
    s2 = scene(tmp_path, two_ropes(1.0).replace("at = 1.0\n", "at = 1.0\nbreak_force = 1e9\n"), "b.toml")
    s2.step(60)
    assert len(comp(s2, Extras).attachments.frac) == 1


def pile(tmp_path, collide: bool, name):
    layer = (f"self_collide = {str(collide).lower()}\nradius = 4\nsegment = 6\nfit = 100\nmin_points = 2\n"
             "gravity = 2000\n" + rope(300))
    s = scene(tmp_path, layer, name)
    pts = comp(s, Points)
    pts.pos[1:, 0] += np.random.default_rng(2).normal(0, 1.0, 299).astype(np.float32)   # not a perfect line
    pts.prev[:] = pts.pos
    s.step(400)
    pos = body(s)
    s.close()
    d = np.linalg.norm(pos[:, None] - pos[None], axis=2)
    far = np.abs(np.arange(300)[:, None] - np.arange(300)[None]) > 2
    return float(d[far].min()), int((pos[:, 1] > 600 - 2 - 8).sum())   # points lying in the bottom 8 px


def test_a_rope_dropped_on_itself_piles_up(tmp_path):
    close_off, floor_off = pile(tmp_path, False, "off.toml")
    close_on, floor_on = pile(tmp_path, True, "on.toml")
    assert close_off < 1.0                 # without: it passes through itself onto the floor
    assert close_on > 0.7 * 8.0            # with: points stay near two radii apart
    assert floor_on < floor_off            # and fewer lie flat on the floor: the heap stands up


def test_a_still_rope_sleeps_and_a_press_wakes_it(tmp_path):
    s = scene(tmp_path, "sleep = true\n" + rope(15))
    z = comp(s, Extras).sleep
    for _ in range(3000):
        s.step()
        if z.asleep:
            break
    assert z.asleep
    h = s.state_hash()
    s.step(30)
    assert s.state_hash() == h             # asleep: not a bit moves
    pos = body(s)
    s.pointer_down(float(pos[-1, 0]), float(pos[-1, 1]))
    s.pointer_move(float(pos[-1, 0]) + 80, float(pos[-1, 1]))
    s.step()
    assert not z.asleep
    s.pointer_up(float(pos[-1, 0]) + 80, float(pos[-1, 1]))
    s.step(5)
    assert s.state_hash() != h


def test_same_bits_on_one_thread_and_two(tmp_path, monkeypatch):
    layer = "bend = 0.5\nsubsteps = 4\nbreak_at = 3\nself_collide = true\nsleep = true\n" + rope(40) + \
        '[[layer.rope]]\nanchor = 0.2\npoints = 30\n[[layer.attach]]\nfrom = 1\nto = 0\nat = 0.5\n'
    hashes = []
    for n in (1, 2):
        monkeypatch.setattr(split, "threads", lambda n=n: n)
        s = scene(tmp_path, layer, f"t{n}.toml")
        drag_tip(s, (700, 300))
        s.step(100)
        hashes.append(s.state_hash())
        s.close()
    assert hashes[0] == hashes[1]


def test_a_broken_rope_is_drawn_as_two_pieces(tmp_path):
    from ropework.components import Ropes, RopeStyle
    s = scene(tmp_path, "break_at = 1.5\ngrab_pins = true\n" + rope(10))
    drag_tip(s, (400, 590), steps=30)
    ropes, style = comp(s, Ropes), comp(s, RopeStyle)
    con = comp(s, Constraints)
    assert len(ropes.start) == 1 + (9 - len(con.a))
    assert ropes.count.sum() == 10 and len(style.colour) == len(ropes.start) == len(style.width)
    ends = set((ropes.start + ropes.count - 1).tolist())
    assert not any(int(a) in ends for a in con.a)      # no link left joins one piece to the next
    # the dots: one tip dot (on the piece that kept the tip) and one anchor dot (the anchor's piece)
    assert style.tip is not None and style.tip.sum() == 1 and style.tip[-1]
    assert style.anchor is not None and style.anchor.sum() == 1 and style.anchor[0]
