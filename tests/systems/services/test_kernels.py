"""Kernels are cached where ropework can write, never beside the installed sources."""
from __future__ import annotations

import numpy as np
import pytest

from ropework.systems.services import kernels


@pytest.fixture
def fresh(monkeypatch):
    """A process that has not chosen its cache folder yet, with numba's own setting unset."""
    monkeypatch.setattr(kernels, "_where", [])
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    return monkeypatch


def _add_one(x):
    return x + 1


def test_the_user_cache_folder_comes_first(fresh, tmp_path, capsys):
    fresh.delenv("ROPEWORK_CACHE_DIR", raising=False)
    fresh.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert kernels.cache_dir() == str(tmp_path / "cache" / "ropework" / "kernels")
    assert capsys.readouterr().err == ""              # the ordinary case says nothing


def test_an_unwritable_home_falls_back_to_a_temporary_folder_in_one_line(fresh, tmp_path, capsys):
    fresh.delenv("ROPEWORK_CACHE_DIR", raising=False)
    fresh.setenv("XDG_CACHE_HOME", "/proc/ropework-no-such-cache")     # not even root writes in /proc
    fresh.setenv("TMPDIR", str(tmp_path))
    folder = kernels.cache_dir()
    assert folder is not None and folder.startswith(str(tmp_path))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and folder in err


def test_with_nothing_writable_kernels_still_run_compiled_each_time(fresh, capsys):
    for var in ("ROPEWORK_CACHE_DIR", "XDG_CACHE_HOME", "TMPDIR"):
        fresh.setenv(var, "/proc/ropework-nothing-here")
    fresh.setattr(kernels, "TEMP_DIRS", ("/proc/ropework-nothing-here",))
    add_one = kernels.kernel()(_add_one)
    assert add_one(np.float32(1.5)) == 2.5                       # a working kernel, not cached
    assert kernels.cache_dir() is None and not kernels.cached(add_one)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiled on each run" in err


def test_a_kernel_caches_in_the_chosen_folder_and_says_so_after(fresh, tmp_path):
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    import numba
    before = numba.config.CACHE_DIR
    add_one = kernels.kernel()(_add_one)
    assert numba.config.CACHE_DIR == before                       # numba's global setting is left alone
    assert not kernels.cached(add_one)
    add_one(np.int64(1))
    assert kernels.cached(add_one) and list(tmp_path.rglob("*.nbi"))


def test_cold_lists_only_what_a_scene_used_once_it_has_run(fresh, tmp_path):
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    used = kernels.kernel()(_add_one)
    unused = kernels.kernel()(lambda x: x - 1)
    mod = {__name__, "tests.systems.services.test_kernels"}
    key = f"test-scene-{tmp_path.name}"
    assert len(kernels.cold(key, mod)) >= 2                        # never run: everything counts
    used(np.int64(3))
    kernels.remember(key, mod)
    assert kernels.cold(key, mod) == []                            # ran: only what it used, and that is cached
    assert unused.py_func.__module__ in mod
