"""Each scene runs (and so compiles) only the kernel variants its points and constraints need.

A cold first frame compiles every kernel its first step calls, so the choice is the cold
start's cost: a rope scene must not reach the lane loops, a 2-D scene the 3-D ones, a scene
of 0/1 weights the general divisor. What is called is read off the scene after a step:
the relax kernels on each `Constraints.schedule`, the integrate variant for each body's shape.
"""
import esper
import pytest

from ropework.components import Constraints, Forces, Points
from ropework.systems import integrate, relax

INTEGRATE = {kernel: name for name, kernel in
             (("2-D", integrate._INTEGRATE[True, False]), ("2-D extra", integrate._INTEGRATE[True, True]),
              ("any d", integrate._INTEGRATE[False, False]), ("any d extra", integrate._INTEGRATE[False, True]))}


def used(scene) -> tuple[set, set]:
    """(relax kernel names, integrate variants) the scene's bodies run."""
    relaxes, integrates = set(), set()
    with scene.active():
        for _, (_pts, con) in esper.get_components(Points, Constraints):
            relaxes |= {k.py_func.__name__ for k, _ in con.schedule.calls}
            assert con.schedule.paths[5] is None          # the general divisor: never needed here
        for _, (pts, f) in esper.get_components(Points, Forces):
            extra = f.extra is not None and len(f.extra) == len(pts.pos)
            integrates.add(INTEGRATE[integrate._INTEGRATE[pts.pos.shape[1] == 2, extra]])
    return relaxes, integrates


@pytest.mark.parametrize("level, want_relax, want_integrate", [
    ("rope.toml", {"_levels2"}, {"2-D"}),                 # 3 ropes: fewer than MIN_CHAINS, the level order
    ("cloth.toml", {"_levels2"}, {"2-D"}),
    ("tendrils.toml", {"_chains_narrow2"}, {"2-D extra"}),   # 16 chains, wind and sparks as accelerations
    ("lanyard.toml", {"_levelsd"}, {"any d"}),            # a 3-D strap, no wind
])
def test_a_scene_runs_only_the_kernels_its_shape_needs(scenes, level, want_relax, want_integrate):
    scene = scenes(level)
    scene.pointer_down(400, 150)                          # a press: as the warm-up compiles
    scene.step(3)
    scene.pointer_up(400, 150)
    scene.step(1)
    assert used(scene) == (want_relax, want_integrate)


def test_a_3d_chain_scene_picks_the_3d_lane_kernels():
    import numpy as np
    counts = [6] * (relax.WIDE + relax.NARROW)
    a = np.concatenate([np.arange(s, s + c - 1) for s, c in zip(np.cumsum([0, *counts[:-1]]), counts)]).astype(np.int32)
    con = Constraints(a=a, b=a + 1, rest=np.ones(len(a), np.float32), passes=2, share=0.5)
    relax.schedule(con, (sum(counts), 3))
    assert [k.py_func.__name__ for k, _ in con.schedule.calls] == ["_chains_wide3", "_chains_narrow3"]


@pytest.mark.parametrize("level, want", [
    ("dotgrid.toml", ["repel"]),                          # the seed's grid: no spring, no jelly
    ("moeru.toml", ["repel"]),
    ("pixels.toml", ["repel_jelly"]),                     # a jelly spring, the seed's band, no tension
    ("streaks.toml", ["repel_jelly_travel"]),               # travelling rings, no tension
    ("jelly.toml", ["repel_jelly_travel", "couple"]),     # travelling rings and tension
])
def test_a_dot_grid_runs_only_the_repel_variant_its_level_needs(scenes, level, want):
    from ropework.components.dotgrid import DotGrid
    from ropework.systems.dotgrid import repel
    scene = scenes(level)
    with scene.active():
        grids = [ent for ent, _ in esper.get_component(DotGrid)]
        assert len(grids) == 1
        assert [k.py_func.__name__ for k in repel.kernels_for(grids[0])] == want


# numpy calls and array methods that make an array: inside a kernel, each compiles numba's own
# allocation code (`np.zeros` is np.empty, the allocator and a zero fill: ≈ 0.3 s) into the first
# run of every scene that calls the kernel
ALLOCATORS = {"zeros", "empty", "full", "ones", "zeros_like", "empty_like", "full_like", "ones_like",
              "arange", "array", "concatenate", "copy"}


def named(fn, seen=None) -> set:
    """The names ``fn``'s code reads, and those of the numba functions it calls (inlined callees)."""
    seen = set() if seen is None else seen
    if fn in seen:
        return set()
    seen.add(fn)
    names, codes = set(), [fn.__code__]
    while codes:
        code = codes.pop()
        names |= set(code.co_names)
        codes += [c for c in code.co_consts if hasattr(c, "co_names")]
    for name in list(names):
        callee = fn.__globals__.get(name)
        if hasattr(callee, "py_func"):
            names |= named(callee.py_func, seen)
    return names


@pytest.mark.parametrize("module", ["relax", "integrate", "tendrils.blow", "tendrils.fly_sparks", "dotgrid.repel"])
def test_no_step_kernel_makes_an_array(module):
    """Every step kernel takes its scratch from the caller (`relax.chain_scratch`, the level
    order's divisors): none compiles numba's array-making code into a first run."""
    import importlib

    from ropework.systems.services import kernels
    mod = importlib.import_module(f"ropework.systems.{module}")
    mine = [k for k in kernels.KERNELS if k.py_func.__module__ == mod.__name__]
    assert mine
    assert {k.py_func.__name__: sorted(named(k.py_func) & ALLOCATORS) for k in mine} == \
        {k.py_func.__name__: [] for k in mine}
