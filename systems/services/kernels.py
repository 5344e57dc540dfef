"""Compiled kernels: one decorator for every numba kernel, and where their cache lives.

numba compiles a kernel on its first call (15-20 s for the relax solver) and can
keep the machine code on disk. Left to itself it writes beside the sources —
inside site-packages, which may be read-only and which ``pip uninstall`` does not
clean — and raises "no locator available" where it cannot. `kernel` instead
caches in one folder of ours, the first writable of:

    $NUMBA_CACHE_DIR (numba's own setting), $ROPEWORK_CACHE_DIR,
    the user cache ($XDG_CACHE_HOME or ~/.cache, then ropework/kernels),
    a temporary folder ($TMPDIR, /tmp or /var/tmp, then ropework-kernels-UID; one line on
    stderr says so)

and with none writable compiles on every run (one line says so). The choice is
made once, on first use, and touches only ropework's kernels: numba's global
setting is restored after each decoration.
"""
from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numba
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

TEMP_DIRS = ("/tmp", "/var/tmp")   # tried after $TMPDIR; never the current folder (the user's)
KERNELS: list = []          # every dispatcher made by `kernel`, in definition order
_where: list = []           # [cache dir or None], decided once


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
        return True
    except OSError:
        return False


def cache_dir() -> str | None:
    """The folder kernels are cached in, or None when they are compiled on every run."""
    if _where:
        return _where[0]
    found, note = None, ""
    env = os.environ
    home_cache = env.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache"))
    candidates = [(env.get("NUMBA_CACHE_DIR"), ""), (env.get("ROPEWORK_CACHE_DIR"), ""),
                  (os.path.join(home_cache, "ropework", "kernels"), "")]
    candidates += [(os.path.join(t, f"ropework-kernels-{_uid()}"), "temporary")
                   for t in (env.get("TMPDIR"), *TEMP_DIRS) if t]
    for folder, how in candidates:
        if folder and _writable(Path(folder)):
            found, note = folder, how
            break
    if found is None:
        print("ropework: no writable folder for the kernel cache (set ROPEWORK_CACHE_DIR); "
              "kernels are compiled on each run", file=sys.stderr)
    elif note:
        print(f"ropework: kernels are cached in {found} (no writable user cache folder)", file=sys.stderr)
    _where.append(found)
    return found


def _uid() -> str:
    return str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")


def kernel(depends=(), **options):
    """``@kernel()`` / ``@kernel(error_model="numpy")``: numba.njit, nogil, cached in `cache_dir`.
    ``depends``: the files of other modules whose functions the kernel inlines (`stamp_with`)."""
    def wrap(fn):
        folder = cache_dir()
        saved = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = folder or ""   # numba picks the folder as it decorates
        try:
            disp = numba.njit(cache=folder is not None, nogil=True, **options)(fn)
        finally:
            numba.config.CACHE_DIR = saved
        if folder is not None:
            _load_light(disp)
            stamp_with(disp, depends)
        KERNELS.append(disp)
        return disp
    return wrap


def stamp_with(disp, files) -> None:
    """Make ``disp``'s machine code on disk stale when any of ``files`` changes, as it is when its
    own source does. numba stamps a kernel's cache with the modification time and size of the
    kernel's own file alone, so a kernel that inlines another module's functions would go on
    loading the code compiled from that module's old text. The stamp becomes the kernel's and
    each file's (an attribute of this dispatcher's cache, never numba's class)."""
    cache_file = getattr(getattr(disp, "_cache", None), "_cache_file", None)
    if not files or cache_file is None or not hasattr(cache_file, "_source_stamp"):   # numba's internals moved
        return
    stamps = [cache_file._source_stamp]
    for f in files:
        st = os.stat(f)
        stamps.append((st.st_mtime, st.st_size))
    cache_file._source_stamp = tuple(stamps)


def _load_light(disp) -> None:
    """Load ``disp``'s machine code from the cache without numba's full set-up.

    numba's cache refreshes the target context before each load: it imports and registers
    every typing and lowering table numba has (the cpython, numpy, random, typed-container,
    cffi and datetime support, ≈ 40 modules) — ≈ 0.3 s of every warm start, although loaded
    machine code needs none of it, only the runtime its allocations call. So the load here
    initialises that runtime and nothing more; a kernel that is not cached still compiles
    through numba's compiler, which refreshes the context itself first. Only ropework's own
    dispatchers are changed (an attribute of each one's cache), never numba's class."""
    cache = getattr(disp, "_cache", None)
    if cache is None or not hasattr(cache, "_load_overload"):   # numba's internals moved: keep its own load
        return

    def load_overload(sig, target_context):
        from numba.core.runtime import nrt
        nrt.rtsys.initialize(target_context)    # the allocator loaded code links against (once a process)
        with cache._guard_against_spurious_io_errors():   # as numba's own load (Windows' sharing errors)
            return cache._load_overload(sig, target_context)
    cache.load_overload = load_overload


def cached(disp) -> bool:
    """Whether ``disp`` has machine code on disk for its current source (False: its first call compiles)."""
    cache = getattr(disp, "_cache", None)
    try:
        return bool(cache._cache_file._load_index())   # numba's index, emptied when the source changed
    except Exception:   # no cache (compiled each run), or numba's internals moved: nothing to say
        return False


SOURCE = str(Path(__file__).resolve().parent)   # this installation's kernel sources: numba's cache is per source
                                                # path, so a scene's stamp is too (a clone or a wheel has its own)


def _stamp(key: str) -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    import hashlib
    # a key holds the level's file name, whose bytes need not be UTF-8 (a Linux name is any bytes
    # but / and NUL; Python holds those it cannot decode as lone surrogates): hash its own bytes
    digest = hashlib.sha256(f"{SOURCE}\n{key}".encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return Path(folder) / "scenes" / (digest + ".txt")


def name_of(disp) -> str:
    """A kernel's name as the plan, the stamps and `unsaved` give it: module.function."""
    return f"{disp.py_func.__module__}.{disp.py_func.__name__}"


def stamped(key: str) -> list[str] | None:
    """The kernels the scene ``key`` noted when it last ran here (`remember`), or None."""
    stamp = _stamp(key)
    try:
        return stamp.read_text().split() if stamp is not None else None
    except OSError:
        return None


def cold(key: str, modules, plan=None) -> list[str]:
    """Names of the kernels a scene ``key`` uses that have no machine code on disk (they compile on first call).

    Which kernels a scene calls is known once it has run (`remember`), and for a shipped
    level before that from ``plan`` (the names in its shipped plan, `ropework.compile.plan`); for
    any other scene, every kernel defined in its systems' ``modules`` counts.
    """
    mods = set(modules)
    mine = {name_of(d): d for d in KERNELS if d.py_func.__module__ in mods}
    names = stamped(key)
    if names is None:
        names = list(plan) if plan is not None else list(mine)
    return [n for n in names if n in mine and not cached(mine[n])]


@contextmanager
def unsaved(names):
    """Within the block, the kernels named in ``names`` compile for this process alone: they
    write no machine code to the cache. Two processes compiling one scene's kernels at once
    (`ropework.compile.CompileChild`) so leave each kernel one writer: numba's index of a kernel is
    read, extended and rewritten by whoever saves, so two writers of one kernel at once could
    pair an entry with the other's file. Only ropework's dispatchers change (an attribute of
    each one's cache object), never numba's classes."""
    skip = set(names)
    changed = []
    for disp in KERNELS:
        cache = getattr(disp, "_cache", None)
        if cache is not None and hasattr(cache, "save_overload") and name_of(disp) in skip:
            cache.save_overload = _no_save
            changed.append(cache)
    try:
        yield
    finally:
        for cache in changed:
            del cache.save_overload      # the class's method again


def _no_save(sig, data) -> None:
    return None


def mark() -> dict:
    """What every kernel has compiled or loaded so far in this process, for `remember`'s ``since``."""
    return {id(d): len(d.overloads) for d in KERNELS}


_remembered: dict[str, list[str]] = {}   # key → the kernels this process has noted for it


def remember(key: str, modules, since: dict, plan=None) -> None:
    """Note which kernels of ``modules`` the scene ``key`` compiled or loaded after ``since`` (a `mark`),
    for `cold`. Only those: a kernel another scene of this process compiled (``python -m
    ropework.warm`` warms every level in one process) is not this scene's. Levels of one key
    (the same kinds and systems) add up within a process, so a second one that finds every
    kernel compiled does not empty the first one's stamp. A shipped level's ``plan`` (`ropework.compile.plan`:
    exactly what its scene calls) is noted whole: a kernel it shares with a scene warmed before
    it in the process loads nothing new, and would otherwise be missing from its stamp, so a
    changed source would recompile it with no notice and no second process."""
    stamp = _stamp(key)
    if stamp is None:
        return
    mods = set(modules)
    used = _remembered.setdefault(key, [])
    grew = [name_of(d) for d in KERNELS if d.py_func.__module__ in mods and len(d.overloads) > since.get(id(d), 0)]
    used += [n for n in [*(plan or ()), *grew] if n not in used]
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text("\n".join(used) + "\n")
        os.replace(tmp, stamp)
    except OSError:
        pass   # a cache we cannot write to only means the notice is said again next time


@intrinsic
def select(typingctx, cond, x, y):
    """``x if cond else y`` as one LLVM select inside a kernel: no branch, so a loop over points
    or lanes vectorises (numba compiles the ``if``/``else`` expression to a branch)."""
    if x != y:
        return None

    def codegen(context, builder, signature, args):
        return builder.select(context.cast(builder, args[0], signature.args[0], types.boolean), args[1], args[2])
    return x(types.boolean, x, y), codegen



@intrinsic
def copy(typingctx, dst, i, src, j, n):
    """``dst[i:i + n] = src[j:j + n]`` inside a kernel, for two 1-D arrays of one dtype that do not
    overlap there, as one llvm.memcpy (no bounds check: the caller's). The memcpy is what tells
    LLVM that the two do not overlap: a loop that stores into one array and loads from another
    stays scalar where LLVM cannot prove that, and numba's slice assignment checks for overlap
    by making a copy (an allocation in the kernel). A memcpy of n elements from an element's
    address is that slice only in a C-contiguous array, and only for whole-number i, j, n: any
    other argument types are refused when the kernel is typed: a strided view would copy the
    values between its elements, a float index be truncated."""
    arrays = (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.ndim == src.ndim == 1
              and dst.layout == src.layout == "C" and dst.dtype == src.dtype and dst.mutable)
    if not (arrays and all(isinstance(v, types.Integer) for v in (i, j, n))):
        return None

    def codegen(context, builder, signature, args):
        d = context.make_array(signature.args[0])(context, builder, args[0])
        s = context.make_array(signature.args[2])(context, builder, args[2])
        di = context.cast(builder, args[1], signature.args[1], types.intp)
        si = context.cast(builder, args[3], signature.args[3], types.intp)
        count = context.cast(builder, args[4], signature.args[4], types.intp)
        size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        cgutils.raw_memcpy(builder, builder.gep(d.data, [di]), builder.gep(s.data, [si]), count, size)
        return context.get_dummy_value()
    return types.none(dst, i, src, j, n), codegen
