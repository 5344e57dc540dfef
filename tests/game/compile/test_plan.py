"""A first run's notice counts the kernels that will compile, from the shipped plan
(game/compile/plan.py, `ropework.compile.plan`), and the plan is what each shipped level's scene calls."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ropework.compile import child_skip, kernel_key, kernels_called, share
from ropework.compile.plan import PLAN
from ropework.level import load, shipped
from ropework.systems.services import kernels

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.mark.parametrize("path", shipped(), ids=lambda p: p.stem)
def test_the_plan_names_the_kernels_each_shipped_level_calls(path):
    lv = load(path)
    key, _ = kernel_key(lv)
    assert key in PLAN, f"{path.name} is not in the plan: python -m ropework.warm --plan > game/compile/plan.py"
    assert sorted(PLAN[key]) == sorted(kernels_called(lv)), (   # as sets: their order is the modules' import order
        f"{path.name} calls other kernels than the plan says: python -m ropework.warm --plan > "
        "game/compile/plan.py")


SPLIT = {"rope", "cloth", "tendrils", "moeru", "lanyard", "badge", "landscape", "model", "snap", "wire", "pegs", "balls",
         "playground", "bridge", "web", "cradle"}   # kernels of two modules or more


@pytest.mark.parametrize("path", shipped(), ids=lambda p: p.stem)
def test_a_first_runs_two_shares_call_every_planned_kernel_once(path, monkeypatch):
    """As a first run (every planned kernel cold), a level whose kernels span two system modules
    or more is split (`share`): this process's partial scene and the child's (`child_skip`)
    call between them every kernel of the plan, each its own share and not the other's (that
    one would compile twice, unsaved). Run on the kernel cache, as `kernels_called` is, so
    nothing compiles here."""
    lv = load(path)
    key, _ = kernel_key(lv)
    monkeypatch.setattr(kernels, "stamped", lambda key: None)
    monkeypatch.setattr(kernels, "cached", lambda disp: False)
    parts = share(lv)
    assert (parts is not None) == (path.stem in SPLIT)
    if parts is None:
        return
    child_systems, child_kernels, parent_kernels, seconds = parts
    assert child_kernels | parent_kernels == set(PLAN[key]) and not child_kernels & parent_kernels
    assert seconds == pytest.approx(sum(PLAN[key][n] for n in child_kernels))   # what its timeout is made from
    here = set(kernels_called(lv, skip=child_systems))
    there = set(kernels_called(lv, skip=child_skip(lv, child_systems, parent_kernels)))
    assert here == parent_kernels and there == child_kernels


def test_a_shipped_levels_stamp_names_its_kernels_when_another_level_warmed_them_first(monkeypatch, tmp_path):
    """`python -m ropework.warm` warms every shipped level in one process. Cloth loads the relax and
    integrate kernels that rope calls too, so rope's warm loads nothing new; its stamp must still name
    them, or once their source changes rope's first run recompiles them with no notice and no second process."""
    from ropework import compile as sc
    stamps = {}
    monkeypatch.setattr(kernels, "_stamp", lambda key: stamps.setdefault(key, tmp_path / f"{len(stamps)}.txt"))
    monkeypatch.setattr(kernels, "_remembered", {})
    cloth, rope = (load(p) for p in shipped() if p.stem in ("cloth", "rope"))
    sc.warm(cloth)
    sc.warm(rope)
    key, _ = kernel_key(rope)
    assert set(kernels.stamped(key)) == set(PLAN[key])


def _one(x):
    return x + 1


def _two(x):
    return x + 2


def test_with_no_stamp_a_planned_scene_counts_its_plan_not_every_kernel_of_its_modules(monkeypatch, tmp_path):
    monkeypatch.setattr(kernels, "_where", [])
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    one = kernels.kernel()(_one)
    kernels.kernel()(_two)
    mod = {__name__}
    key = f"planned-{tmp_path.name}"
    assert kernels.cold(key, mod) == [f"{__name__}._one", f"{__name__}._two"]          # unplanned: all of them
    assert kernels.cold(key, mod, {f"{__name__}._two": 0.1}) == [f"{__name__}._two"]   # planned: what it calls
    one(np.int64(1))
    assert kernels.cold(key, mod, {f"{__name__}._one": 0.1}) == []                     # and that is cached


_FIRST_RUN = r"""
import json, re, sys
from ropework.level import load, resolve
from ropework.compile import compile_notice, warm
from ropework.systems.services import kernels
lv = load(resolve(sys.argv[1]))
notice = compile_notice(lv)
warm(lv)
compiled = [kernels.name_of(d) for d in kernels.KERNELS if d.overloads and not sum(d._cache_hits.values())]
print(json.dumps({"said": int(re.search(r"compiling (\d+) physics kernel", notice).group(1)), "compiled": compiled}))
"""


def test_a_first_runs_notice_counts_the_kernels_that_compile(tmp_path):
    """rope's notice said "compiling 24 physics kernels" and 3 compiled: every kernel of its
    systems' modules counted. In a new process with an empty kernel cache, as a first run."""
    env = dict(os.environ, ROPEWORK_CACHE_DIR=str(tmp_path), ARCADE_HEADLESS="1")
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _FIRST_RUN, "rope"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["compiled"] and got["said"] == len(got["compiled"])
