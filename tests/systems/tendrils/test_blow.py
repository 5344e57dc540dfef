"""Blow: the seed's per-point forces — gravity fan, wind, travelling wave, electric shake."""
from __future__ import annotations

import math

import esper
import numpy as np

from ropework.components import Forces, Frame, Pointer
from ropework.components.tendrils import Tendrils
from ropework.systems.tendrils.blow import Blow
from ropework.systems.tendrils.electrify import Electrify


def bundle(counts=(5, 7, 4)):
    R = len(counts)
    rope_of = np.repeat(np.arange(R), counts).astype(np.int32)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    along = (np.arange(sum(counts)) - start[rope_of]).astype(np.float32)
    n = len(along)
    td = Tendrils(
        gdir=(math.pi / 2 + ((np.arange(R) + 0.5) / R - 0.5) * 2.4).astype(np.float32),
        phase=np.array([0.3, 2.0, 5.1][:R], np.float32), freq=np.array([0.7, 1.1, 1.7][:R], np.float32),
        angle=np.zeros(R, np.float32), rope_of=rope_of, along=along,
        frac=(along / np.asarray(counts)[rope_of]).astype(np.float32), shake=np.zeros((n, 2), np.float32))
    forces = Forces(gravity=np.zeros(2, np.float32), damping=td.drag, extra=np.zeros((n, 2), np.float32))
    esper.create_entity(td, forces)
    return td, forces, np.asarray(counts)


def seed_forces(td, counts, t):
    """The seed's loop, point by point (slow and obvious)."""
    out = []
    for p in range(len(td.along)):
        r = int(td.rope_of[p])
        i, n = float(td.along[p]), float(counts[r])
        ph, fr, g = float(td.phase[r]), float(td.freq[r]), float(td.gdir[r])
        wind = math.sin(t * fr + ph) * 160 + math.sin(t * 0.37 + r) * 80
        out.append((wind * (i / n) + math.cos(g) * 380,
                    math.sin(g) * 380 + math.sin(t * 1.3 + ph + i * 0.2) * 90 * (i / n)))
    return np.array(out)


def frame(t, reduced=False, seed=0):
    return Frame(dt=1 / 60, t=t, width=800, height=600, rng=np.random.default_rng(seed), reduced_motion=reduced)


def test_forces_are_the_seed_formulas():
    td, forces, counts = bundle()
    for t in (0.0, 1.234, 57.5):
        Blow().process(frame(t))
        assert np.allclose(forces.extra, seed_forces(td, counts, t), atol=2e-3)


def test_gravity_fans_out_along_each_ropes_direction():
    td, forces, counts = bundle()
    Blow().process(frame(3.0, reduced=True))      # no wind, no wave: gravity alone
    for r in range(len(counts)):
        a = forces.extra[td.rope_of == r]
        assert np.allclose(np.hypot(a[:, 0], a[:, 1]), 380.0, rtol=1e-5)
        assert np.allclose(np.arctan2(a[:, 1], a[:, 0]), td.gdir[r], atol=1e-5)
    # the fan: ≈ ±64° around straight down, in rope order
    deg = np.degrees(td.gdir - math.pi / 2)
    assert np.all(np.diff(deg) > 0) and abs(deg[0] + deg[-1]) < 1e-4


def test_electrify_drops_gravity_strengthens_drag_shakes_and_reverts():
    td, forces, _ = bundle()
    ptr = Pointer(x=10, y=10, inside=True)
    esper.create_entity(ptr)
    f = frame(2.0, reduced=True)       # no wind or wave: what is left while held is the shake alone
    Blow().process(f)
    calm = forces.extra.copy()
    ptr.down = True
    Electrify().process(f)
    assert td.electrified and forces.damping == td.electric_drag < td.drag
    shakes = []
    for _ in range(50):
        Blow().process(f)
        shakes.append(forces.extra.copy())
    shakes = np.array(shakes)
    assert np.all(np.abs(shakes) <= 4500.0)                   # ±4500 px/s² per axis, no gravity
    assert shakes.std() > 2000 and abs(shakes.mean()) < 300   # uniform ±4500: σ ≈ 2598; mean 0 ± 65
    assert not np.allclose(shakes[0], shakes[1])               # new randoms every step
    ptr.down = False
    Electrify().process(f)
    Blow().process(f)
    assert not td.electrified and forces.damping == td.drag
    assert np.array_equal(forces.extra, calm)


def test_a_press_taken_by_another_layer_does_not_electrify():
    td, forces, _ = bundle()
    esper.create_entity(Pointer(inside=True, down=True, claimed_by=9999))
    Electrify().process(frame(0.0))
    assert not td.electrified and forces.damping == td.drag
