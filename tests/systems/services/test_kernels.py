"""Kernels are cached where ropework can write, never beside the installed sources."""
from __future__ import annotations

import numba
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


def test_a_kernel_inlining_another_module_is_stale_once_that_module_changes(fresh, tmp_path):
    """numba stamps a cache with the kernel's own file; `kernel(depends=...)` adds the files whose
    functions it inlines, so changing one of them compiles the kernel again (as the lane kernels
    that inline `contact.touch_row` must)."""
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path / "cache"))
    dep = tmp_path / "dep.py"
    dep.write_text("# version 1\n")
    add_one = kernels.kernel(depends=(str(dep),))(_add_one)
    add_one(np.int64(1))
    assert kernels.cached(kernels.kernel(depends=(str(dep),))(_add_one))   # a new dispatcher finds it
    dep.write_text("# version 2, longer\n")
    assert not kernels.cached(kernels.kernel(depends=(str(dep),))(_add_one))
    assert kernels.cached(kernels.kernel()(_add_one)) is False              # nor the plain stamp: ours differs


def test_cold_lists_only_what_a_scene_used_once_it_has_run(fresh, tmp_path):
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    used = kernels.kernel()(_add_one)
    unused = kernels.kernel()(lambda x: x - 1)
    mod = {__name__, "tests.systems.services.test_kernels"}
    key = f"test-scene-{tmp_path.name}"
    assert len(kernels.cold(key, mod)) >= 2                        # never run: everything counts
    since = kernels.mark()
    used(np.int64(3))
    kernels.remember(key, mod, since)
    assert kernels.cold(key, mod) == []                            # ran: only what it used, and that is cached
    assert unused.py_func.__module__ in mod


def _sub_one(x):
    return x - 1


def _index_files(folder, fn):
    return [p for p in folder.rglob("*.nbi") if fn.__name__ in p.name]


def test_a_scene_stamps_only_the_kernels_it_compiled_not_another_scenes(fresh, tmp_path):
    """`python -m ropework.warm` warms every level in one process: level B's stamp must not
    name the kernel level A compiled, or B's next start announces a compile of a kernel it
    never calls as soon as that kernel's cache is gone (a clone, a changed source)."""
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    a_kernel = kernels.kernel()(_add_one)
    b_kernel = kernels.kernel()(_sub_one)
    mod = {__name__}
    since = kernels.mark()
    a_kernel(np.int64(1))                                          # scene A's warm-up
    kernels.remember(f"scene-a-{tmp_path.name}", mod, since)
    since = kernels.mark()
    b_kernel(np.int64(1))                                          # scene B's, in the same process
    kernels.remember(f"scene-b-{tmp_path.name}", mod, since)
    since = kernels.mark()
    a_kernel(np.int64(2))                                          # another level of A's key: nothing new compiles
    kernels.remember(f"scene-a-{tmp_path.name}", mod, since)
    for index in _index_files(tmp_path, _add_one):                 # A's kernel loses its machine code
        index.unlink()
    assert not kernels.cached(a_kernel) and kernels.cached(b_kernel)
    assert kernels.cold(f"scene-b-{tmp_path.name}", mod) == []     # B never calls it: nothing to announce
    assert kernels.cold(f"scene-a-{tmp_path.name}", mod) == [f"{__name__}._add_one"]   # A's stamp still says it


def test_a_stamp_belongs_to_one_installation(fresh, tmp_path):
    """numba caches per source path, so another checkout or a wheel sharing the cache folder has
    kernels of its own to compile: it must not read this installation's stamp."""
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    used = kernels.kernel()(_add_one)
    kernels.kernel()(_sub_one)
    mod = {__name__}
    key = f"scene-{tmp_path.name}"
    since = kernels.mark()
    used(np.int64(2))
    kernels.remember(key, mod, since)
    assert kernels.cold(key, mod) == []
    fresh.setattr(kernels, "SOURCE", str(tmp_path / "another-checkout" / "systems" / "services"))
    assert f"{__name__}._sub_one" in kernels.cold(key, mod)       # no stamp of its own yet: every kernel counts


_LIGHT_MODULE = '''
import numba
import numpy as np
from ropework.systems.services.kernels import kernel

@kernel()
def scaled(a, k):
    out = np.empty(a.shape[0], np.float32)   # allocates: the loaded code needs numba's runtime
    for i in range(a.shape[0]):
        out[i] = a[i] * k
    return out
'''

_LIGHT_RUN = '''
import sys
import numba
import numpy as np
sys.path.insert(0, sys.argv[1])
import light_kernel
got = light_kernel.scaled(np.arange(4, dtype=np.float32), np.float32(2.5))
assert got.tolist() == [0.0, 2.5, 5.0, 7.5], got
print(" ".join(m for m in ("numba.np.arraymath", "numba.typed.typeddict", "cffi") if m in sys.modules))
'''


def test_a_cached_kernel_loads_without_numbas_whole_set_up(tmp_path):
    """A warm start loads machine code: numba's typing and lowering tables (its numpy,
    typed-container and cffi support) are imported only where a kernel compiles."""
    import os
    import subprocess
    import sys
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "light_kernel.py").write_text(_LIGHT_MODULE)
    env = dict(os.environ, ROPEWORK_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    run = lambda: subprocess.run([sys.executable, "-c", _LIGHT_RUN, str(tmp_path / "src")], env=env,  # noqa: E731
                                 capture_output=True, text=True, check=True).stdout.split()
    assert run() == ["numba.np.arraymath", "numba.typed.typeddict", "cffi"]   # cold: it compiled, with all of it
    assert list((tmp_path / "cache").rglob("*.nbi"))
    assert run() == []                                                       # warm: loaded, none of it imported


def test_a_kernels_name_is_its_module_and_function_for_the_scene_and_the_plan(fresh, tmp_path):
    """`name_of` is what the plan, the stamps and the compile child name kernels by (public:
    ropework.scene and ropework.warm call it)."""
    fresh.setenv("ROPEWORK_CACHE_DIR", str(tmp_path))
    add_one = kernels.kernel()(_add_one)
    assert kernels.name_of(add_one) == f"{__name__}._add_one"


@numba.njit
def _copy_into(dst, i, src, j, n):
    kernels.copy(dst, i, src, j, n)


def test_copy_moves_a_run_of_one_contiguous_array_into_another():
    dst, src = np.zeros(8, np.float32), np.arange(8, dtype=np.float32)
    _copy_into(dst, 2, src, 5, 3)
    assert dst.tolist() == [0, 0, 5, 6, 7, 0, 0, 0]


@pytest.mark.parametrize("dst, i, src, j, n", [
    (np.zeros(8, np.float32), 0, np.arange(16, dtype=np.float32)[::2], 0, 4),       # strided: memcpy would read every value
    (np.zeros((2, 4), np.float32), 0, np.arange(8, dtype=np.float32), 0, 4),        # 2-D
    (np.zeros(8, np.float64), 0, np.arange(8, dtype=np.float32), 0, 4),             # another dtype: bytes, not values
    (np.zeros(8, np.float32), 0.0, np.arange(8, dtype=np.float32), 0, 4),           # a float offset
    (np.zeros(8, np.float32), 0, np.arange(8, dtype=np.float32), 0, 4.0),           # a float count
], ids=["strided", "2d", "dtype", "float-offset", "float-count"])
def test_copy_refuses_at_compile_time_what_one_memcpy_cannot_do(dst, i, src, j, n):
    """Typed, not run: a strided, 2-D or differently typed array, or a float index, fails to compile
    instead of copying the wrong bytes."""
    with pytest.raises(numba.core.errors.TypingError):
        numba.njit(lambda d, a, s, b, k: kernels.copy(d, a, s, b, k))(dst, i, src, j, n)
