"""Dynamic colliders: mass ratios honoured (momentum conserved, a heavy bob swings a rope, a light one
does not), a chain between two balls, Newton's cradle with restitution 1 and 0, held points that let
go, the pointer's drag and throw, energy at rest, pinned points, bits twice, and bad input."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from ropework.components import Points
from ropework.components.collider import Colliders
from ropework.scene import Scene

SIZE = (800, 600)
DT = 1 / 60


def scene(tmp_path, text: str, name="t.toml") -> Scene:
    f = tmp_path / name
    f.write_text(text)
    return Scene.load(str(f), size=SIZE, seed=1)


def parts(s: Scene) -> tuple[Points, Colliders]:
    return s.find(Points)[0][1], s.find(Colliders)[0][1]


def layer(**keys) -> str:
    return '[[layer]]\nkind = "ropes"\nrail = false\nfit = 100.0\n' + "".join(f"{k} = {v}\n" for k, v in keys.items())


def ball(x, y, mass, radius=20, **keys) -> str:
    extra = "".join(f"{k} = {v}\n" for k, v in keys.items())
    return (f'[[layer.collider]]\nshape = "circle"\nat = [{x}, {y}]\nradius = {radius}\nmass = {mass}\n'
            f"friction = 0\n{extra}")


def rope(anchor, points, **keys) -> str:
    return f"[[layer.rope]]\nanchor = {anchor}\npoints = {points}\n" + "".join(f"{k} = {v}\n" for k, v in keys.items())


def hold(rope_i, collider, from_at=1.0, **keys) -> str:
    return (f"[[layer.attach]]\nfrom = {rope_i}\nfrom_at = {from_at}\ncollider = {collider}\n"
            + "".join(f"{k} = {v}\n" for k, v in keys.items()))


def momentum(pts: Points, col: Colliders) -> np.ndarray:
    """Σ m·v, px per step: the rope's points (inverse mass 1 / m) and the colliders."""
    m_pts = 1.0 / pts.inv_mass.astype(np.float64)
    m_col = 1.0 / col.inv_mass.astype(np.float64)
    return (m_pts[:, None] * (pts.pos - pts.prev)).sum(0) + (m_col[:, None] * (col.centre - col.prev)).sum(0)


def chain(mass_a, mass_b, gravity=0.0, **keys) -> str:
    """A 12-point chain between ball 0 (above) and ball 1 (below), laid out at its length."""
    return (layer(gravity=gravity, damping=1.0, anchor_y=100.0, **keys) + rope(0.5, 12)
            + ball(0.5, 85 / 600, mass_a, 15) + ball(0.5, (100 + 121 + 15) / 600, mass_b, 15)
            + hold(0, 0, 0.0) + hold(0, 1, 1.0))


@pytest.mark.parametrize("heavy", [100.0, 0.1])
def test_a_chain_between_two_balls_conserves_momentum_so_the_heavier_leads(tmp_path, heavy):
    """No gravity, no damping: ball 0 thrown sideways at 3 px a step. Every correction splits by
    inverse mass, so Σ m·v stays what the throw gave: a heavy ball drags the chain along at
    nearly its own speed; a light one hardly moves it."""
    s = scene(tmp_path, chain(heavy, 1.0))
    pts, col = parts(s)
    assert pts.inv_mass[0] > 0                        # the anchor is the ball's, not the rail's
    col.prev[0, 0] = col.centre[0, 0] - 3.0
    p0 = momentum(pts, col)
    assert p0[0] == pytest.approx(3.0 * heavy, rel=1e-4)
    for _ in range(90):
        s.step()
        assert np.allclose(momentum(pts, col), p0, atol=1e-3 * abs(p0[0]) + 4e-4 * 13)   # float32 rounding
    drift = float((pts.pos - pts.prev)[:, 0].mean())   # the chain's own speed, px per step
    if heavy > 1:
        assert drift > 0.8 * 3.0 and (col.centre - col.prev)[0, 0] > 0.8 * 3.0
    else:
        assert abs(drift) < 0.02 * 3.0


def test_a_heavy_bob_swings_a_light_rope_and_a_light_bob_does_not(tmp_path):
    """A rope from the rail with a bob on its tip, the bob thrown sideways at 8 px a step."""
    reach = {}
    for mass in (50.0, 0.05):
        s = scene(tmp_path, layer(anchor_y=60.0) + rope(0.5, 15) + ball(0.5, (60 + 154 + 20) / 600, mass)
                  + hold(0, 0), f"b{mass}.toml")
        pts, col = parts(s)
        s.step(30)
        col.prev[0, 0] = col.centre[0, 0] - 8.0
        x0 = float(pts.pos[-1, 0])
        far = 0.0
        for _ in range(60):
            s.step()
            far = max(far, abs(float(pts.pos[-1, 0]) - x0))
        reach[mass] = far
        s.close()
    assert reach[50.0] > 100                          # the bob carried the rope's tip far out
    assert reach[0.05] < 10                           # the rope stopped the light one


def test_a_chain_between_two_balls_falls_together_and_hangs_from_a_rope(tmp_path):
    s = scene(tmp_path, chain(10.0, 10.0, gravity=900.0))
    pts, col = parts(s)
    gap0 = float(col.centre[1, 1] - col.centre[0, 1])
    for _ in range(20):
        s.step()
    v = col.centre - col.prev
    assert v[0, 1] == pytest.approx(v[1, 1], abs=0.02)           # the same speed
    assert v[0, 1] == pytest.approx(900 * 20 * DT * DT, rel=0.05)   # free fall: g·t, px per step
    assert float(col.centre[1, 1] - col.centre[0, 1]) == pytest.approx(gap0, abs=1.0)


def cradle(tmp_path, e: float, n=5, name="c.toml") -> Scene:
    """n balls of radius 20, touching in a row, each on a 12-point string from the rail."""
    text = layer(anchor_y=60.0, damping=1.0)
    text += "".join(rope(0.4 + 0.05 * i, 12) for i in range(n))
    text += "".join(ball(0.4 + 0.05 * i, 201 / 600, 20, restitution=e) for i in range(n))
    text += "".join(hold(i, i) for i in range(n))
    return scene(tmp_path, text, name)


@pytest.mark.parametrize("from_left", [True, False])
def test_newtons_cradle_hands_the_impact_on_with_restitution_1(tmp_path, from_left):
    """The first ball, moving at 4 px a step, meets four at rest: the far one leaves at 96 % or
    more of its speed (measured: 98.5 %, the strings take the rest), the others keep under 3 %."""
    s = cradle(tmp_path, 1.0)
    pts, col = parts(s)
    s.step(60)
    first, last, sign = (0, 4, 1.0) if from_left else (4, 0, -1.0)
    col.prev[first, 0] = col.centre[first, 0] - 4.0 * sign
    s.step()
    v = (col.centre - col.prev)[:, 0] * sign
    assert v[last] > 0.96 * 4.0
    assert np.abs(np.delete(v, last)).max() < 0.03 * 4.0


def test_with_restitution_0_the_row_moves_on_together(tmp_path):
    s = cradle(tmp_path, 0.0)
    pts, col = parts(s)
    s.step(60)
    col.prev[0, 0] = col.centre[0, 0] - 4.0
    s.step()
    v = (col.centre - col.prev)[:, 0]
    assert np.ptp(v) < 0.01 * 4.0                    # one speed
    assert v.mean() == pytest.approx(4.0 / 5, rel=0.1)    # the momentum shared by five (the strings take a little)


def test_energy_never_grows_at_rest_and_pinned_points_never_move(tmp_path):
    """Three balls on strings and a pile of three balls on the floor (between two static pegs),
    left alone: the kinetic energy only falls, and the rail's anchors keep their bits all along."""
    s = scene(tmp_path, layer(anchor_y=60.0) + "".join(rope(0.4 + 0.05 * i, 12) for i in range(3))
              + "".join(ball(0.4 + 0.05 * i, 201 / 600, 20, restitution=1.0) for i in range(3))
              + "".join(hold(i, i) for i in range(3))
              + ball(0.2, 0.9, 5, restitution=1.0) + ball(0.2 + 40.5 / 800, 0.9, 5, restitution=1.0)
              + ball(0.2 + 20 / 800, 0.8, 5, restitution=1.0)
              + ball(0.15, 578 / 600, 0) + ball(0.2 + 80.5 / 800, 578 / 600, 0))
    pts, col = parts(s)
    pinned = np.flatnonzero(pts.inv_mass == 0)
    anchors = pts.pos[pinned].copy()
    m_pts = np.where(pts.inv_mass > 0, 1.0 / np.maximum(pts.inv_mass, 1e-9), 0.0)
    energy = []
    dyn = col.inv_mass > 0
    for _ in range(900):
        s.step()
        assert np.array_equal(pts.pos[pinned], anchors)
        v, vc = pts.pos - pts.prev, col.centre - col.prev
        energy.append(0.5 * ((m_pts * (v * v).sum(1)).sum() + ((vc * vc).sum(1)[dyn] / col.inv_mass[dyn]).sum()))
    window = np.array(energy[300:]).reshape(-1, 100).max(axis=1)   # the spawn's swing dying away, then rest
    assert (np.diff(window) <= 1e-6).all()
    assert window[-1] < 1e-2
    assert col.centre[5, 1] < col.centre[3, 1] - 20   # the top ball of the pile rests on the other two


def test_the_same_scene_is_bit_identical_twice(tmp_path):
    hashes = []
    for k in range(2):
        s = cradle(tmp_path, 1.0, name=f"d{k}.toml")
        _, col = parts(s)
        col.prev[0, 0] = col.centre[0, 0] - 4.0
        s.step(300)
        hashes.append(s.state_hash())
        s.close()
    assert hashes[0] == hashes[1]


@pytest.mark.parametrize("limit,lets_go", [(100.0, True), (1e6, False)])
def test_a_held_point_lets_go_past_its_break_force(tmp_path, limit, lets_go):
    """A 50-unit bob hangs from a rope's tip: about 50 · 900 px/s² pulls on the hold."""
    s = scene(tmp_path, layer(anchor_y=60.0) + rope(0.5, 15) + ball(0.5, (60 + 154 + 20) / 600, 50)
              + hold(0, 0, break_force=limit))
    pts, col = parts(s)
    s.step(60)
    assert (col.hold.shape[1] == 0) == lets_go
    assert (col.centre[0, 1] > 500) == lets_go        # let go: it fell to the floor
    assert (col.held_by == -1).all() == lets_go


def test_the_pointer_drags_a_dynamic_ball_and_throws_it(tmp_path):
    s = scene(tmp_path, layer(gravity=0.0, damping=1.0) + rope(0.1, 10) + ball(0.5, 0.5, 5.0))
    _, col = parts(s)
    s.pointer_down(400, 300)
    s.step()
    assert col.held == 0 and col.inv_mass[0] == 0.0      # held: as heavy as the hand
    for k in range(1, 11):
        s.pointer_move(400 + 3 * k, 300)
        s.step()
    assert col.centre[0, 0] == pytest.approx(430.0)
    s.pointer_up(430, 300)
    s.step()
    assert col.held == -1 and col.inv_mass[0] == pytest.approx(0.2)
    assert (col.centre - col.prev)[0, 0] == pytest.approx(3.0, abs=1e-4)   # flies on at the hand's speed


@pytest.mark.parametrize("extra,path,found", [
    (ball(0.5, 0.5, -1), "collider[0].mass", "found int -1"),
    (ball(0.5, 0.5, 1, restitution=1.5), "collider[0].restitution", "found float 1.5"),
    (ball(0.5, 0.5, 1, restitution=-0.1), "collider[0].restitution", "found float -0.1"),
    ('[[layer.collider]]\nshape = "plane"\nat = [0.5, 0.9]\nmass = 2', "collider[0].mass", "found 2"),
    (ball(0.5, 0.5, 2, kinematic="true"), "collider[0].mass", "kinematic"),
    (ball(0.5, 0.5, 1) + hold(0, 3), "attach[0].collider", "found 3"),
    (hold(0, 0), "attach[0].collider", "no colliders"),
    (ball(0.5, 0.5, 1) + hold(2, 0), "attach[0].from", "found 2"),
    (ball(0.5, 0.5, 1) + "[[layer.attach]]\nfrom = 0\nto = 0\nat = 0.5\ncollider = 0\n", "attach[0]", "more than one"),
    ("[[layer.attach]]\nfrom = 0\n", "attach[0]", "found none"),
    (ball(0.5, 0.5, 1) + hold(0, 0, card="true"), "attach[0]", "more than one"),
    ("[[layer.attach]]\nfrom = 0\nto = 0\n", "attach[0].at", "found none"),
    ("[[layer.attach]]\nfrom = 0\nfrom_at = 0.5\nto = 0\nat = 1.0\noffset = [1, 2]\n", "attach[0].offset", "with `to`"),
    (ball(0.5, 0.5, 1) + hold(0, 0, offset="[1e6, 0]"), "attach[0].offset", "found"),
    ("[[layer.attach]]\nfrom = 0\ncard = true\noffset = [0, 1]\n", "attach[0].offset", "with `card`"),
])
def test_bad_dynamic_input_is_one_line_and_exit_2(tmp_path, extra, path, found):
    f = tmp_path / "bad.toml"
    f.write_text(layer() + rope(0.5, 10) + extra)
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 2
    line = (r.stdout + r.stderr).strip()
    assert "\n" not in line and str(f) in line and path in line and found in line, line


def test_a_kinematic_paddle_hits_a_ball_with_its_own_speed_and_stops_when_let_go(tmp_path):
    """A kinematic box swept at 4 px a step into a resting ball of restitution 1 (no gravity): an
    elastic hit by an infinitely heavy body sends the ball off at twice its speed; once let go,
    the paddle has no speed of its own."""
    s = scene(tmp_path, layer(gravity=0.0, damping=1.0) + rope(0.05, 10)
              + '[[layer.collider]]\nshape = "box"\nat = [0.3, 0.5]\nsize = [20, 80]\nkinematic = true\n'
              + ball(0.5, 0.5, 5.0, restitution=1.0))
    _, col = parts(s)
    s.pointer_down(240, 300)
    s.step()
    x = 240
    while col.centre[1, 0] - col.prev[1, 0] < 1.0 and x < 400:
        x += 4
        s.pointer_move(x, 300)
        s.step()
    assert (col.centre - col.prev)[1, 0] == pytest.approx(8.0, abs=0.01)   # twice the paddle's 4 px a step
    s.pointer_up(x, 300)
    s.step()
    assert np.array_equal(col.centre[0], col.prev[0])         # let go: still


def test_a_thrown_ball_stays_in_the_window_box_by_its_radius(tmp_path):
    s = scene(tmp_path, layer(margin=2.0) + rope(0.05, 10) + ball(0.5, 0.5, 3.0, radius=25))
    _, col = parts(s)
    col.prev[0] = col.centre[0] - [40.0, -30.0]           # 2,400 px/s right, 1,800 px/s up
    lo, hi = 2.0 + 25.0, np.array([800.0, 600.0]) - 2.0 - 25.0
    for _ in range(240):
        s.step()
        assert (col.centre[0] >= lo - 1e-3).all() and (col.centre[0] <= hi + 1e-3).all()
    assert col.centre[0, 1] == pytest.approx(hi[1], abs=0.5)   # come to rest on the floor


def test_a_layer_sleeps_only_once_its_balls_are_still_and_a_press_on_one_wakes_it(tmp_path):
    from ropework.components.solve import Extras
    s = scene(tmp_path, layer(gravity=0.0, damping=1.0, sleep="true") + rope(0.05, 10) + ball(0.5, 0.5, 5.0))
    _, col = parts(s)
    z = s.find(Extras)[0][1].sleep
    col.prev[0, 0] = col.centre[0, 0] - 0.5                 # rolling at 30 px/s, the rope still
    s.step(120)
    assert not z.asleep
    col.prev[0] = col.centre[0]                              # stopped
    s.step(70)
    assert z.asleep
    x, y = (float(v) for v in col.centre[0])
    s.pointer_down(x, y)
    s.pointer_move(x + 30, y)
    s.step(5)
    assert not z.asleep and col.centre[0, 0] == pytest.approx(x + 30)
