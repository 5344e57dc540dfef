"""The dotgrid kind: the seed's defaults, the layout, and re-layout on resize."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ropework.components.dotgrid import DotColours, DotStyle, Repulsion, Shockwaves
from ropework.kinds import dotgrid
from ropework.level import load
from tests.conftest import LEVELS
from tests.dots import dot_level, grid, rings

SEED = {"gap": 50.0, "dot_size": 5.0, "proximity": 200.0, "max_push": 5.0, "speed_trigger": 80.0,
        "velocity_reach": 1.6, "velocity_share": 0.6, "velocity_threshold": 0.2, "velocity_colour": 0.8,
        "shock_speed": 250.0, "shock_band": 75.0, "shock_strength": 45.0, "shock_duration": 0.85,
        "colour": "#f0f0f0", "active_colour": "#86ead4", "colour_ease": 0.12, "inertia": False}


def test_defaults_are_the_seed(tmp_path):
    bare = load(dot_level(tmp_path)).layers[0]
    shipped = load(LEVELS / "dotgrid.toml").layers[0]
    for key, want in SEED.items():
        assert bare[key] == want, key
        assert shipped[key] == want, key


def test_level_keys_reach_the_components(scenes, tmp_path):
    scene = scenes(dot_level(tmp_path, gap=30, dot_size=3, proximity=120, max_push=7, speed_trigger=40,
                             shock_speed=300, shock_band=50, shock_strength=20, shock_duration=0.5,
                             max_rings=9, colour="#102030", active_colour="#ff0000", colour_ease=0.3,
                             background="#01020304", inertia=True, spring=90, spring_damping=4))
    (_, rep), = scene.find(Repulsion)
    (_, col), = scene.find(DotColours)
    (_, style), = scene.find(DotStyle)
    r = rings(scene)
    assert grid(scene).gap == 30 and style.size == 3
    assert (rep.proximity, rep.max_push, rep.speed_trigger, rep.inertia, rep.spring, rep.spring_damping) == (
        120, 7, 40, True, 90, 4)
    assert (r.speed, r.band, r.strength, r.duration, r.capacity) == (300, 50, 20, 0.5, 9)
    np.testing.assert_allclose(col.base, np.array([0x10, 0x20, 0x30]) / 255, atol=1e-7)
    np.testing.assert_allclose(grid(scene).colour, np.tile(col.base, (grid(scene).n, 1)))
    assert col.ease == 0.3
    np.testing.assert_allclose(style.background, np.array([1, 2, 3, 4]) / 255, atol=1e-7)


@pytest.mark.parametrize("size, gap", [((800, 600), 50), ((801, 599), 50), ((1920, 1080), 20), ((333, 77), 7.5)])
def test_count_is_ceil_w_over_gap_times_ceil_h_over_gap(scenes, tmp_path, size, gap):
    scene = scenes(dot_level(tmp_path, gap=gap), size=size)
    g = grid(scene)
    cols, rows = math.ceil(size[0] / gap), math.ceil(size[1] / gap)
    assert (g.cols, g.rows, g.n) == (cols, rows, cols * rows)
    assert g.offset.shape == g.origin.shape == (g.n, 2) and g.colour.shape == (g.n, 3)
    x, y = g.origin.T
    np.testing.assert_allclose(np.unique(x), (np.arange(cols) + 0.5) * gap, rtol=1e-6)   # cell centres
    np.testing.assert_allclose(np.unique(y), (np.arange(rows) + 0.5) * gap, rtol=1e-6)
    assert x.max() + gap / 2 >= size[0] and y.max() + gap / 2 >= size[1]    # no missing edge
    assert x.max() - gap / 2 < size[0] and y.max() - gap / 2 < size[1]     # no cell wholly outside


def test_1920_by_1080_at_gap_20_is_5184_dots(scenes, tmp_path):
    assert grid(scenes(dot_level(tmp_path, gap=20), size=(1920, 1080))).n == 5184


def test_resize_relays_the_grid(scenes):
    scene = scenes("dotgrid.toml", size=(800, 600))
    assert grid(scene).n == 16 * 12
    scene.pointer_move(400, 300)
    scene.step(5)
    scene.resize(1024, 333)
    g = grid(scene)
    assert (g.cols, g.rows, g.n) == (21, 7, 21 * 7)
    assert g.origin[:, 0].max() == pytest.approx(20.5 * 50) and g.origin[:, 1].max() == pytest.approx(6.5 * 50)
    assert len(scene.find(type(g))) == 1        # no stale grid left behind
    scene.pointer_move(500, 100)
    scene.step(1)
    assert grid(scene).offset.any()


def test_a_window_too_big_for_the_cap_widens_the_gap(monkeypatch):
    monkeypatch.setattr(dotgrid, "MAX_DOTS", 10_000)
    gap = dotgrid.fitted_gap(2.0, 1920, 1080)
    assert gap > 2.0
    assert math.prod(dotgrid.grid_shape(gap, 1920, 1080)) <= 10_000
    assert dotgrid.fitted_gap(20.0, 1920, 1080) == 20.0


def test_the_level_counts_its_dots_against_the_scene_cap(tmp_path):
    from ropework.level import MAX_POINTS
    from ropework.schema import LevelError
    with pytest.raises(LevelError, match="points"):
        load(dot_level(tmp_path, gap=1), size=(3000, 1000))
    assert MAX_POINTS < 3000 * 1000


def test_shockwave_pool_is_preallocated(scenes):
    r = rings(scenes("dotgrid.toml"))
    assert r.capacity == dotgrid.MAX_RINGS and r.live == 0
    assert isinstance(r, Shockwaves)


@pytest.mark.parametrize("name", sorted(dotgrid.PRESETS))
def test_a_preset_fills_its_keys_and_the_level_overrides_them(tmp_path, name):
    keys = dotgrid.PRESETS[name]
    cfg = load(dot_level(tmp_path, preset=name)).layers[0]
    for key, want in keys.items():
        assert cfg[key] == want, key
    first = next(iter(keys))
    mine = {"gap": 33.0, "tension": 0.9, "shape": "circle", "return_duration": 2.5, "max_push": 1.5}[first]
    assert mine != keys[first]
    cfg = load(dot_level(tmp_path, preset=name, **{first: mine})).layers[0]
    assert cfg[first] == mine
    assert all(cfg[k] == v for k, v in keys.items() if k != first)


def test_an_unknown_preset_is_one_line_naming_the_key(tmp_path):
    from ropework.schema import LevelError
    with pytest.raises(LevelError) as e:
        load(dot_level(tmp_path, preset="wobbly"))
    assert "layer[0].preset" in str(e.value) and "'jelly'" in str(e.value) and "\n" not in str(e.value)


def test_new_keys_default_to_the_seed_model(tmp_path):
    cfg = load(LEVELS / "dotgrid.toml").layers[0]
    assert (cfg["tension"], cfg["return_duration"], cfg["rings"], cfg["preset"]) == (0.0, 0.0, "band", "")
    assert (cfg["swell"], cfg["stretch"], cfg["glow"], cfg["fade"], cfg["shape"], cfg["intro"]) == (
        0.0, 0.0, 0.0, 0.0, "circle", 0.0)
    assert not dotgrid.jelly(cfg)
