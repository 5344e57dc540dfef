"""Colliders: each shape's projection beside a plain transcription, friction on slopes against
μ, the no-tunnelling throw, energy at rest, a level's `[[layer.collider]]` and its bad input."""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from ropework.components.collider import POLYGON, Colliders
from ropework.kinds import colliders as kc
from ropework.scene import Scene
from ropework.systems.services import contact

SIZE = (800, 600)


def shapes(tables, w=800.0, h=600.0, r=0.0, n=1) -> Colliders:
    full = [{"radius": 20.0, "size": [40.0, 40.0], "angle": 0.0, "points": [], "friction": 0.0,
             "kinetic": -1.0, "kinematic": False, **t} for t in tables]
    return kc.build(full, w, h, np.full(n, r, np.float32))


def run_push(c: Colliders, pos, prev=None, inv_mass=None):
    pos = np.ascontiguousarray(pos, np.float32)
    prev = pos.copy() if prev is None else np.ascontiguousarray(prev, np.float32)
    w = np.ones(len(pos), np.float32) if inv_mass is None else inv_mass
    arrs = contact._arrays(c)
    contact.prepare(pos, prev, w, *arrs)      # the step's broad phase, then one pass
    contact.push(pos, prev, w, *arrs)
    return pos


def tmp_sphere(pos, centre, radius):
    """Ten Minute Physics' cloth over a sphere (14-cloth.html, handleCollisions in 2-D): a particle
    inside the sphere is put back on its surface along the line from the centre; no friction."""
    out = pos.astype(np.float64).copy()
    for i in range(len(out)):
        d = out[i] - centre
        dl = math.sqrt(d @ d)
        if dl < radius:
            out[i] = out[i] + d * ((radius - dl) / dl)
    return out


def test_circle_is_ten_minute_physics_sphere_loop():
    rng = np.random.default_rng(1)
    pos = rng.uniform(300, 500, (500, 2))
    c = shapes([{"shape": "circle", "at": [0.5, 0.5], "radius": 60.0}], n=len(pos))
    got = run_push(c, pos)
    want = tmp_sphere(pos.astype(np.float32), np.array([400.0, 300.0]), 60.0)
    assert np.allclose(got, want, atol=1e-3)
    assert (np.hypot(*(got - [400, 300]).T) >= 60 - 1e-3).all()


def box_sdf(p, centre, hx, hy, angle):
    """A plain transcription of the oriented box's signed distance (Inigo Quilez's sdBox)."""
    a = math.radians(angle)
    d = p - centre
    local = np.array([d[0] * math.cos(a) + d[1] * math.sin(a), -d[0] * math.sin(a) + d[1] * math.cos(a)])
    q = np.abs(local) - [hx, hy]
    return np.hypot(*np.maximum(q, 0)) + min(max(q[0], q[1]), 0.0)


@pytest.mark.parametrize("angle", [0.0, 30.0, -75.0])
def test_box_and_square_polygon_push_every_point_onto_the_surface(angle):
    rng = np.random.default_rng(2)
    pos = rng.uniform(340, 460, (400, 2))
    centre = np.array([400.0, 300.0])
    inside = np.array([box_sdf(p, centre, 40, 15, angle) < 0 for p in pos])
    box = shapes([{"shape": "box", "at": [0.5, 0.5], "size": [80.0, 30.0], "angle": angle}], n=len(pos))
    poly = shapes([{"shape": "polygon", "at": [0.5, 0.5], "angle": angle,
                    "points": [[-40, -15], [40, -15], [40, 15], [-40, 15]]}], n=len(pos))
    for c in (box, poly):
        got = run_push(c, pos)
        after = np.array([box_sdf(p, centre, 40, 15, angle) for p in got])
        assert np.allclose(after[inside], 0.0, atol=2e-3)            # on the surface
        assert np.array_equal(got[~inside], pos[~inside].astype(np.float32))   # outside: untouched
        moved = np.hypot(*(got - pos).T)[inside]                      # by the least distance out
        assert np.allclose(moved, [-box_sdf(p, centre, 40, 15, angle) for p in pos[inside]], atol=2e-3)


def test_capsule_plane_and_point_radius():
    cap = shapes([{"shape": "capsule", "at": [0.5, 0.5], "size": [100.0, 0.0], "radius": 10.0}], r=2.0, n=3)
    got = run_push(cap, [[400, 305], [460, 300], [455, 302]])
    assert np.allclose(got[0], [400, 312], atol=1e-4)     # above the segment: out to radius + point radius
    assert np.allclose(got[1], [462, 300], atol=1e-4)     # beyond the cap's end, along the axis
    assert np.hypot(*(got[2] - [450, 300])) == pytest.approx(12.0, abs=1e-4)   # round the cap
    plane = shapes([{"shape": "plane", "at": [0.5, 0.5], "angle": 0.0}], n=2)
    assert np.allclose(run_push(plane, [[100, 310], [100, 290]]), [[100, 300], [100, 290]])
    tilt = shapes([{"shape": "plane", "at": [0.5, 0.5], "angle": 30.0}], n=1)
    p = run_push(tilt, [[400, 320]])[0]
    n = np.array([math.sin(math.radians(30)), -math.cos(math.radians(30))])
    assert (p - [400, 300]) @ n == pytest.approx(0.0, abs=1e-4)


def test_a_pinned_point_is_never_moved():
    c = shapes([{"shape": "circle", "at": [0.5, 0.5], "radius": 60.0}], n=1)
    assert np.array_equal(run_push(c, [[400, 310]], inv_mass=np.zeros(1, np.float32)), [[400, 310]])


def slide(angle_deg, mu, steps=240):
    """A point resting on a plane tilted angle_deg under gravity, Verlet-stepped with the contact
    pass; returns how far it moved along the slope after settling (px)."""
    c = shapes([{"shape": "plane", "at": [0.5, 0.5], "angle": angle_deg, "friction": mu}], n=1)
    g, dt = 900.0, 1 / 60
    pos = np.array([[400.0, 300.0]], np.float32)
    prev = pos.copy()
    w = np.ones(1, np.float32)
    for s in range(steps):
        if s == 20:
            start = pos.copy()
        nxt = pos + (pos - prev) + np.float32(g * dt * dt) * np.array([0, 1], np.float32)
        prev, pos = pos, nxt.astype(np.float32)
        arrs = contact._arrays(c)
        contact.prepare(pos, prev, w, *arrs)
        for _ in range(4):
            contact.push(pos, prev, w, *arrs)
    return float(np.hypot(*(pos - start)[0]))


@pytest.mark.parametrize("angle,mu,rests", [(20, 0.5, True), (30, 0.5, False), (40, 1.0, True), (50, 1.0, False),
                                            (10, 0.0, False)])
def test_friction_holds_while_tan_theta_is_below_mu(angle, mu, rests):
    assert (math.tan(math.radians(angle)) < mu) == rests
    moved = slide(angle, mu)
    assert (moved < 1e-3) if rests else (moved > 50.0)


def test_a_point_thrown_at_5000_px_per_s_does_not_pass_a_10px_box():
    c = shapes([{"shape": "box", "at": [0.5, 0.5], "size": [10.0, 200.0]}], r=2.0, n=1)
    step = 5000.0 / 60                                   # 83 px a step: the box is 10 px thick
    for x0 in np.linspace(300, 400 - step + 3, 40):      # every phase of the step against the box
        prev = np.array([[x0, 300.0]], np.float32)
        pos = prev + np.array([[step, 0.0]], np.float32)
        arrs = contact._arrays(c)
        contact.prepare(pos, prev, np.ones(1, np.float32), *arrs)
        contact.push(pos, prev, np.ones(1, np.float32), *arrs)
        assert pos[0, 0] <= 395.0 - 2.0 + 1e-3, x0      # on the near side, outside by its radius
    # without the swept test (its sample step wider than any move), some phases land beyond the box
    c.thin = 1e6
    through = 0
    for x0 in np.linspace(300, 400 - step + 3, 40):
        prev = np.array([[x0, 300.0]], np.float32)
        pos = prev + np.array([[step, 0.0]], np.float32)
        arrs = contact._arrays(c)
        contact.prepare(pos, prev, np.ones(1, np.float32), *arrs)
        contact.push(pos, prev, np.ones(1, np.float32), *arrs)
        through += pos[0, 0] > 405.0
    assert through > 0


def scene(tmp_path, text: str) -> Scene:
    f = tmp_path / "c.toml"
    f.write_text(text)
    return Scene.load(str(f), size=SIZE, seed=1)


DRAPE = """
[[layer]]
kind = "ropes"
radius = 3.0
[[layer.rope]]
anchor = 0.45
points = 40
[[layer.collider]]
shape = "circle"
at = [0.5, 0.45]
radius = 30
friction = 0.8
[[layer.collider]]
shape = "box"
at = [0.5, 0.8]
size = [300, 12]
angle = 10
"""


def rope_pos(s):
    return next(c for c in s.arrays().values() if "Points" in c)["Points"]


def test_a_draped_rope_stays_outside_and_its_energy_never_grows(tmp_path):
    s = scene(tmp_path, DRAPE)
    speeds = []
    for _ in range(400):
        s.step()
        p = rope_pos(s)
        speeds.append(float(np.hypot(*(p["pos"] - p["prev"]).T).max()))
    pos = rope_pos(s)["pos"]
    assert (np.hypot(*(pos - [400, 270]).T) >= 33 - 0.05).all()
    tail = np.array(speeds[200:])
    assert tail.max() < 0.5                      # resting
    assert tail[-50:].max() <= tail[:50].max() + 1e-6


def test_the_same_draped_scene_is_bit_identical_twice(tmp_path):
    a, b = scene(tmp_path, DRAPE), scene(tmp_path, DRAPE)
    for _ in range(120):
        a.step()
        b.step()
    assert np.array_equal(rope_pos(a)["pos"], rope_pos(b)["pos"])


@pytest.mark.parametrize("collider,path,found", [
    ('shape = "circle"\nat = [0.5, 0.5]\nradius = -3', "collider[0].radius", "found int -3"),
    ('shape = "box"\nat = [0.5, 0.5]\nsize = [0, 10]', "collider[0].size", "found [0, 10]"),
    ('shape = "box"\nat = [0.5, 0.5]\nsize = [10, 0.25]', "collider[0].size", "at least 0.5 px"),
    ('shape = "polygon"\nat = [0.5, 0.5]\npoints = [[0, 0], [10, 0]]', "collider[0].points", "found 2"),
    ('shape = "polygon"\nat = [0.5, 0.5]\npoints = [[0, 0], [10, 0], [2, 2], [0, 10]]', "collider[0].points",
     "not"),
    ('shape = "circle"\nat = [1.5, 0.5]', "collider[0].at", "numbers in 0..1"),
])
def test_bad_colliders_are_one_line_and_exit_2(tmp_path, collider, path, found):
    f = tmp_path / "bad.toml"
    f.write_text('[[layer]]\nkind = "ropes"\n[[layer.rope]]\nanchor = 0.5\n[[layer.collider]]\n' + collider + "\n")
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 2
    line = (r.stdout + r.stderr).strip()
    assert "\n" not in line and str(f) in line and path in line and found in line, line


def test_a_capsule_reads_only_its_length_from_size(tmp_path):
    f = tmp_path / "cap.toml"
    f.write_text('[[layer]]\nkind = "ropes"\n[[layer.rope]]\nanchor = 0.5\n[[layer.collider]]\nshape = "capsule"\n'
                 'at = [0.5, 0.5]\nsize = [60, 0]\nradius = 6\n')
    r = subprocess.run([sys.executable, "-m", "ropework", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_collider_wholly_outside_the_scene_is_a_warning(tmp_path, capsys):
    from ropework import level
    f = tmp_path / "out.toml"
    f.write_text('[[layer]]\nkind = "ropes"\n[[layer.rope]]\nanchor = 0.5\n[[layer.collider]]\nshape = "plane"\n'
                 'at = [0.5, 0.0]\nangle = 180\n')
    level.load(f, size=SIZE)
    assert "wholly outside" in capsys.readouterr().err


def test_a_kinematic_collider_is_dragged_by_the_pointer_and_pushes_the_rope(tmp_path):
    s = scene(tmp_path, """
[[layer]]
kind = "ropes"
radius = 3.0
[[layer.rope]]
anchor = 0.5
points = 40
[[layer.collider]]
shape = "box"
at = [0.3, 0.5]
size = [60, 60]
kinematic = true
""")
    from ropework.components.collider import Colliders
    (_, col), = s.find(Colliders)
    s.step(60)
    s.pointer_down(240.0, 300.0)                 # on the box, away from the rope (x = 400)
    for k in range(1, 41):
        s.pointer_move(240.0 + 8.0 * k, 300.0)   # through the rope
        s.step()
    assert col.held == 0 and col.centre[0, 0] == pytest.approx(560.0)
    pos = rope_pos(s)["pos"]
    local = np.abs(pos - col.centre[0])
    assert not ((local[:, 0] < 30.0) & (local[:, 1] < 30.0)).any()     # nothing inside the box
    assert pos[:, 0].max() > 560.0 + 30.0                                # the rope was pushed ahead of it
    s.pointer_up(560.0, 300.0)
    s.step()
    assert col.held == -1


def test_links_away_from_the_shapes_solved_fused_give_the_pass_by_pass_bits(tmp_path, monkeypatch):
    """A curtain of ropes among shapes, its contacts made point by point (`push`): the chain groups
    near no shape take their passes in one call (`relax.solve_near`), the rest pass by pass with
    the contacts between; every point ends with the bits of the plain pass-by-pass loop."""
    from ropework.systems import project as pr
    text = ('[[layer]]\nkind = "ropes"\nradius = 3.0\n[[layer.rope]]\nanchor = 0.0\npoints = 24\ncount = 200\n'
            'every = 0.005\n[[layer.collider]]\nshape = "circle"\nat = [0.3, 0.35]\nradius = 30\n'
            '[[layer.collider]]\nshape = "box"\nat = [0.7, 0.3]\nsize = [80, 12]\nangle = 20\n')
    monkeypatch.setattr(pr, "_lanes", lambda *a: None)    # contacts point by point, as `push` makes them
    fused = scene(tmp_path, text)
    fused.step(90)
    split = []
    monkeypatch.setattr(pr, "solve_near", lambda *a: split.append(1) and False)   # never splits
    plain = scene(tmp_path, text)
    plain.step(90)
    assert split, "the split was not offered"
    a, b = rope_pos(fused)["pos"], rope_pos(plain)["pos"]
    assert np.array_equal(a, b)
    assert (a[:, 1] > 0.35 * SIZE[1] + 30).any()          # the curtain reaches past the shapes


LANES = 32   # a chain group's lanes (`relax.WIDE`), as `contact.touch_row` meets them


def lane_row(pos, prev, w, r):
    """(s, side): one point slot row of a chain group's lane scratch (`relax.FIELDS` floats a slot:
    x, y, z, weight, divisor, rest) holding ``pos``, and its step-start positions and radii."""
    s = np.zeros(6 * LANES, np.float32)
    s[:LANES], s[LANES:2 * LANES], s[3 * LANES:4 * LANES] = pos[:, 0], pos[:, 1], w
    side = np.concatenate([prev[:, 0], prev[:, 1], np.full(LANES, r)]).astype(np.float32)
    return s, side


@pytest.mark.parametrize("table", [
    {"shape": "circle", "at": [0.5, 0.5], "radius": 40.0, "friction": 0.4},
    {"shape": "capsule", "at": [0.5, 0.5], "size": [80.0, 0.0], "radius": 15.0, "angle": 30.0, "friction": 0.6},
    {"shape": "box", "at": [0.5, 0.5], "size": [90.0, 30.0], "angle": -20.0, "friction": 0.2},
    {"shape": "polygon", "at": [0.5, 0.5], "points": [[-30, 20], [30, 20], [0, -35]], "friction": 0.5},
    {"shape": "plane", "at": [0.5, 0.5], "angle": 10.0, "friction": 0.3},
])
def test_a_row_of_lanes_meets_a_shape_as_push_meets_each_point(table):
    """`touch_row` (`touch_polygon`), every lane of a row at once in float32, against `push` on each point alone
    (float64): the same push out and the same friction — sticking and sliding — to float32's
    precision, and a pinned lane or one clear of the shape keeps its bits."""
    rng = np.random.default_rng(7)
    c = shapes([table], r=3.0, n=LANES)
    pos = (np.array([400.0, 300.0]) + rng.normal(0, 30, (LANES, 2))).astype(np.float32)
    prev = (pos + rng.normal(0, 1.5, (LANES, 2))).astype(np.float32)   # some stick, some slide
    w = np.ones(LANES, np.float32)
    w[5] = 0.0                                                             # pinned
    want = run_push(c, pos.copy(), prev, w)
    s, side = lane_row(pos, prev, w, 3.0)
    if c.shape[0] == POLYGON:
        contact.touch_polygon(s, 0, LANES, side, 0, np.zeros(7 * LANES, np.float32), 0, c.centre, c.axis, c.mu_s,
                              c.mu_k, c.verts, c.vstart)
    else:
        contact.touch_row(s, 0, LANES, side, 0, 0, c.shape, c.centre, c.axis, c.half, c.radius, c.mu_s, c.mu_k)
    got = np.stack([s[:LANES], s[LANES:2 * LANES]], 1)
    assert (np.hypot(*(want - pos).T) > 0.1).sum() >= 4, "too few lanes inside the shape to tell"
    assert np.allclose(got, want, atol=2e-3)
    assert np.array_equal(got[5], pos[5])
    still = np.all(want == pos, axis=1)
    assert np.array_equal(got[still], pos[still])


def test_the_lanes_broad_phase_finds_every_row_a_free_lane_of_which_is_within_reach_of_a_shape():
    """`lane_entries` against the distance itself: every (row, collider) one of whose free lanes lies
    within its radius and margin of the shape's surface is an entry, for each of the five shapes
    (a polygon's rows met through its edge lines, the others' through their bounding shapes), and
    a row whose free lanes are all far from every shape is none."""
    from ropework.systems.relax import FIELDS
    rng = np.random.default_rng(11)
    tables = [{"shape": "circle", "at": [0.2, 0.3], "radius": 30.0},
              {"shape": "capsule", "at": [0.5, 0.3], "size": [80.0, 0.0], "radius": 12.0, "angle": 30.0},
              {"shape": "box", "at": [0.8, 0.3], "size": [90.0, 30.0], "angle": -20.0},
              {"shape": "polygon", "at": [0.3, 0.7], "angle": 25.0,
               "points": [[-30, -30], [30, -30], [45, 10], [0, 40], [-45, 10]]},
              {"shape": "plane", "at": [0.5, 0.97], "angle": 5.0}]
    rows, r = 40, 3.0
    n = LANES * rows
    c = shapes(tables, r=r, n=n)
    centres = c.centre[rng.integers(0, 4, n)]
    pos = np.where(rng.random((n, 1)) < 0.4, centres + rng.normal(0, 40, (n, 2)),
                   rng.uniform([0, 0], [800, 600], (n, 2))).astype(np.float32)
    w = (rng.random(n) > 0.1).astype(np.float32)                     # some pinned: never an entry
    row = FIELDS * LANES
    s = np.zeros((rows + 1) * row, np.float32)
    for k in range(rows):
        p = np.arange(LANES) * rows + k
        s[k * row:k * row + LANES] = pos[p, 0]
        s[k * row + LANES:k * row + 2 * LANES] = pos[p, 1]
        s[k * row + 3 * LANES:k * row + 4 * LANES] = w[p]
    arrs = contact._arrays(c)
    shape, centre, axis, half, radius, verts, vstart = arrs[:7]
    step, reach = arrs[10], arrs[11]
    k_all = len(c.shape)
    ent = np.zeros((2, rows * k_all), np.int32)
    m = contact.lane_entries(s, rows, LANES, row, (np.arange(LANES) * rows).astype(np.int32), True, pos, pos.copy(),
                             np.full(n, r, np.float32), ent, np.zeros(2 * k_all, np.int32),
                             np.zeros(3 * n, np.float32), 0, np.zeros(5 * LANES, np.float32),
                             np.zeros(((rows + 7) // 8, 5)), shape, centre, axis, half, radius, verts, vstart, reach,
                             step, np.float64(r))
    got = {(int(a), int(b)) for a, b in ent[:, :m].T}
    far = r + r * contact.MARGIN_RADII + contact.MARGIN        # a still point's reach: radius, margin
    want = set()
    for p in range(n):
        if w[p] == 0.0:
            continue
        for j in range(k_all):
            d, _, _ = contact.distance(j, np.float64(pos[p, 0]), np.float64(pos[p, 1]), shape, centre, axis, half,
                                       radius, verts, vstart)
            if d <= far:
                want.add((p % rows, j))
    assert want and want <= got
    assert len(got) < rows * k_all                                   # not every row of every shape


CURTAIN = ('[[layer]]\nkind = "ropes"\nradius = 3.0\n[[layer.rope]]\nanchor = 0.05\npoints = 30\ncount = 96\n'
           'every = 0.009\n[[layer.collider]]\nshape = "circle"\nat = [0.3, 0.45]\nradius = 40\nfriction = 0.3\n'
           '[[layer.collider]]\nshape = "box"\nat = [0.65, 0.4]\nsize = [120, 14]\nangle = 15\nfriction = 0.6\n'
           '[[layer.collider]]\nshape = "polygon"\nat = [0.85, 0.45]\npoints = [[-30, 20], [30, 20], [0, -30]]\n')


def test_a_curtain_meets_the_shapes_in_its_lanes_and_comes_to_rest_outside_them(tmp_path, monkeypatch):
    """96 ropes (three chain groups) over a circle, a box and a triangle: their contacts are made
    inside the lane kernels (`project._lanes` takes the body), the curtain settles over them with
    every point its radius outside each shape, its swing dies away, and two runs agree bit for
    bit."""
    from ropework.systems import project as pr
    taken = []
    inner = pr._lanes
    monkeypatch.setattr(pr, "_lanes", lambda *a: taken.append(inner(*a)) or taken[-1])
    a, b = scene(tmp_path, CURTAIN), scene(tmp_path, CURTAIN)
    speeds = []
    for _ in range(700):
        a.step()
        b.step()
        p = rope_pos(a)
        speeds.append(float(np.hypot(*(p["pos"] - p["prev"]).T).max()))
    assert taken and all(t is not None for t in taken)
    col = a.find(Colliders)[0][1]
    assert col.lanes is not None and col.lanes[-1][0] > 0, "no row met a shape in the lanes"
    pos = rope_pos(a)["pos"]
    depth = np.array([[-contact.distance(c, np.float64(x), np.float64(y), col.shape, col.centre, col.axis, col.half,
                                         col.radius, col.verts, col.vstart)[0] for c in range(3)] for x, y in pos])
    assert depth.max() < -3.0 + 0.05, depth.max()     # every point at least its radius (3 px) outside
    assert (depth > -3.0 - 0.05).sum() > 20           # and many resting on a shape, at their radius
    fastest = [max(speeds[t:t + 100]) for t in range(300, 700, 100)]   # px a step, each 100 steps
    assert fastest == sorted(fastest, reverse=True) and fastest[-1] < 0.5, fastest   # dying away
    assert np.array_equal(pos, rope_pos(b)["pos"])


def test_ropes_thrown_at_5000_px_per_s_in_the_lanes_do_not_pass_a_10px_box(tmp_path):
    """40 free ropes (a chain group of 32 lanes and the rest) thrown down whole at 5,000 px/s
    (83 px a step) at a 10 px thick box, each from another height above it, so every phase of the
    step meets the box: the lanes' swept test (`contact.lane_entries`) stops every point short of it;
    without it (its sample step wider than any move) some pass through."""
    from ropework.components import Points
    text = ('[[layer]]\nkind = "ropes"\nradius = 2.0\nrail = false\nsegment = 8\n[[layer.rope]]\nanchor = 0.05\n'
            'points = 12\ncount = 40\nevery = 0.0225\npin = "none"\n[[layer.collider]]\nshape = "box"\n'
            'at = [0.5, 0.5]\nsize = [780, 10]\n')
    throw = 5000.0 / 60
    through = []
    for sweep in (True, False):
        s = scene(tmp_path, text)
        pts = s.find(Points)[0][1]
        tip = np.linspace(300.0 - 5.0 - throw + 1.0, 300.0 - 5.0 - 3.0, 40)     # each rope's lowest point
        pts.pos[:, 1] = (tip[:, None] - 8.0 * np.arange(11, -1, -1)[None, :]).ravel()
        pts.prev[:] = pts.pos - np.array([0.0, throw], np.float32)
        col = s.find(Colliders)[0][1]
        if not sweep:
            col.thin = 1e6
        s.step()
        assert col.lanes is not None and col.lanes[-1][0] > 0, "the lanes met no shape"
        through.append(int((pts.pos[:, 1] > 300.0 - 5.0 - 2.0 + 1e-3).sum()))
    assert through[0] == 0 and through[1] > 0, through
