"""A first run's second process (ropework.compile.start_compile_child): it compiles its share of the
kernels into the cache while this one compiles the rest, and leaves the cache and the scene's
bits as one process compiling everything would; killed, it leaves this process correct."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

_RUN = r"""
import json, os, signal, sys
from ropework.level import load, resolve
from ropework.compile import start_compile_child, warm
from ropework.scene import Scene
from ropework.systems.services import kernels
lv = load(resolve(sys.argv[2]))
how = sys.argv[1]
child = None if how == "serial" else start_compile_child(lv)
got = {"child": child is not None}
if child is not None:
    got["child_systems"] = sorted(child.child_systems)
    got["timeout"] = child.timeout
    if how == "killed":
        os.kill(child.pid, signal.SIGKILL)         # before it has compiled anything
warm(lv, child)
if child is not None:
    got["status"] = child.status
got["compiled_here"] = sorted(kernels.name_of(d) for d in kernels.KERNELS
                              if d.overloads and not sum(d._cache_hits.values()))
got["loaded"] = sorted(kernels.name_of(d) for d in kernels.KERNELS if sum(d._cache_hits.values()))
scene = Scene(lv, (800, 600), seed=3)
scene.pointer_down(400, 100)
scene.step(20)
scene.pointer_up(400, 100)
scene.step(20)
got["hash"] = scene.state_hash()
print(json.dumps(got))
"""


def _index(folder: Path) -> dict[str, list]:
    """Each kernel's cache index (file name → its entries' data file names) and the data files' bytes."""
    import pickle
    out = {}
    for path in sorted(folder.rglob("*.nbi")):
        with open(path, "rb") as f:
            pickle.load(f)                       # numba's version
            stamp, overloads = pickle.loads(f.read())
        out[path.name] = sorted(overloads.values())
    return out


def _code(folder: Path) -> dict[str, bytes]:
    """Each cache data file's machine code (numba's ELF object code: the first byte string of its
    data; the second, LLVM bitcode for linking, encodes names otherwise), with the per-process
    version numba mangles into symbol names ("B2v1": the first compile of that name in its
    process, "B2v4" the fourth) taken out: a kernel the child compiles is its process's first."""
    import pickle
    import re

    def strings(x):
        if isinstance(x, bytes):
            yield x
        elif isinstance(x, (tuple, list)):
            for y in x:
                yield from strings(y)
    return {p.name: re.sub(rb"B\d+v\d+", b"Bv", next(strings(pickle.loads(p.read_bytes()))))
            for p in sorted(folder.rglob("*.nbc"))}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """rope's first run three ways, and pixels' with the child, each in a new process with an empty
    cache: the four at once."""
    procs = {}
    for how, level in (("serial", "rope"), ("parallel", "rope"), ("killed", "rope"), ("parallel", "pixels")):
        cache = tmp_path_factory.mktemp(how)
        env = dict(os.environ, ROPEWORK_CACHE_DIR=str(cache), ARCADE_HEADLESS="1")
        env.pop("NUMBA_CACHE_DIR", None)
        name = how if level == "rope" else f"{how} {level}"
        procs[name] = (cache, subprocess.Popen([sys.executable, "-c", _RUN, how, level], env=env, cwd=ROOT,
                                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    out = {}
    for how, (cache, proc) in procs.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        out[how] = (cache, json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_the_child_compiles_its_share_and_this_process_loads_it(runs):
    _, got = runs["parallel"]
    assert got["child"] and got["status"] == 0 and got["child_systems"] == ["relax"]
    relax = [n for n in got["loaded"] if ".relax." in n]
    assert relax and not [n for n in got["compiled_here"] if ".relax." in n]   # compiled by the child only
    assert [n for n in got["compiled_here"] if ".integrate." in n]             # the rest here, meanwhile


def test_a_hung_child_stalls_the_start_for_its_plans_time_not_five_minutes(runs):
    """rope's child compiles relax's kernels (1.22 CPU s in the plan): it is given 30 s and ten
    times their planned seconds (a slower, busier machine than the plan's), not the 300 s every
    child had."""
    from ropework.compile.plan import PLAN
    _, got = runs["parallel"]
    rope = next(plan for key, plan in PLAN.items() if key.startswith("rope.toml:"))
    relax = sum(s for n, s in rope.items() if ".relax." in n)
    assert got["timeout"] == pytest.approx(30 + 10 * relax) and got["timeout"] < 60


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="the child is Linux's")
def test_a_child_still_running_after_its_timeout_is_killed():
    from ropework.compile import CompileChild
    pid, r = _spawn_child(60)
    t0 = time.perf_counter()
    child = CompileChild(pid, r, frozenset(), frozenset(), timeout=0.2)
    assert child.wait() == -9 and time.perf_counter() - t0 < 5
    assert child.failure == "killed after 0 s"


def test_the_child_leaves_the_cache_and_the_bits_of_one_process(runs):
    serial_cache, serial = runs["serial"]
    cache, got = runs["parallel"]
    assert not serial["child"] and serial["loaded"] == []
    assert got["hash"] == serial["hash"]
    assert _index(cache) == _index(serial_cache)                  # the same kernels, one entry each
    assert _code(cache) == _code(serial_cache)                    # and the same machine code


def test_a_killed_child_leaves_this_process_compiling_what_is_missing(runs):
    serial_cache, serial = runs["serial"]
    cache, got = runs["killed"]
    assert got["child"] and got["status"] == -9
    assert got["loaded"] == [] and got["compiled_here"] == serial["compiled_here"]
    assert got["hash"] == serial["hash"]
    assert _index(cache) == _index(serial_cache) and _code(cache) == _code(serial_cache)



def test_kernels_of_one_system_compile_here_without_a_child(runs):
    """pixels compiles one kernel (repel's): nothing to split, and a child compiling it while this
    process imported arcade lost (bench.cold_split pixels), so no child is forked."""
    _, got = runs["parallel pixels"]
    assert not got["child"]
    assert got["compiled_here"] == ["ropework.systems.dotgrid.repel.repel_jelly"] and got["loaded"] == []


class _FakeChild:
    """A `CompileChild` without a child: what `warm` asked of it."""
    child_systems = frozenset({"relax"})
    child_kernels = frozenset()
    failure = None

    def __init__(self):
        self.calls = []

    def wait(self):
        self.calls.append("wait")

    def stop(self):
        self.calls.append("stop")


def _warm_with_a_broken_partial(monkeypatch, error):
    import ropework.compile.warming as warming
    from ropework.level import load, resolve
    from ropework.systems.services import kernels
    warmed = []

    def warm_scene(level, skip=frozenset()):
        if skip:
            raise error
        warmed.append("full")
    monkeypatch.setattr(warming, "warm_scene", warm_scene)
    monkeypatch.setattr(kernels, "remember", lambda *a: warmed.append("stamp"))   # the user's cache untouched
    child = _FakeChild()
    return child, warmed, lambda: warming.warm(load(resolve("rope")), child)


def test_a_failing_partial_warm_waits_for_the_child_and_warms_in_full(monkeypatch):
    """The partial scene's failure reached the player as a traceback (`child.stop(); raise`):
    the full warm after it compiles what is missing and says any real error the normal way."""
    child, warmed, run = _warm_with_a_broken_partial(monkeypatch, RuntimeError("partial scene broke"))
    run()
    assert child.calls == ["wait"] and warmed == ["full", "stamp"]


def test_ctrl_c_in_the_partial_warm_kills_the_child_and_stops(monkeypatch):
    child, warmed, run = _warm_with_a_broken_partial(monkeypatch, KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        run()
    assert child.calls == ["stop"] and warmed == []


def _spawn_child(seconds: float) -> tuple[int, int]:
    """(pid, read end of a pipe the child holds open until it ends): a `CompileChild`'s child, minus the compile."""
    r, w = os.pipe()
    os.set_inheritable(w, True)
    try:
        pid = os.posix_spawn("/bin/sleep", ["sleep", str(seconds)], os.environ)
    finally:
        os.close(w)
    return pid, r


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


@pytest.mark.skipif(not hasattr(os, "posix_spawn"), reason="the child is Linux's")
def test_a_child_is_reaped_when_the_app_ignores_sigchld():
    """An embedding app that sets SIGCHLD to SIG_IGN has its children reaped by the system:
    os.wait4 then raised ChildProcessError out of `warm`. The pipe is closed all the same."""
    import signal

    from ropework.compile import CompileChild
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        pid, r = _spawn_child(0)
        child = CompileChild(pid, r, frozenset(), frozenset())
        assert child.wait() is None and _closed(r)      # its status is the system's, not ours to know
        child.stop()                                    # reaped once: nothing more to do
        pid, r = _spawn_child(0)
        child = CompileChild(pid, r, frozenset(), frozenset())
        time.sleep(0.3)                     # ended and reaped by the system before `stop` kills it
        child.stop()
        assert child.status is None and _closed(r)
    finally:
        signal.signal(signal.SIGCHLD, previous)


_CHILD_FAILS = r"""
import os, sys
import ropework.compile.warming as warming
from ropework.compile import start_compile_child
from ropework.level import load, resolve
parent = os.getpid()

def warm_scene(level, skip=frozenset()):     # nothing compiles: only the child's failure matters
    if os.getpid() != parent:
        raise ValueError("no such kernel\nsecond line")
warming.warm_scene = warm_scene
lv = load(resolve("rope"))
child = start_compile_child(lv)
assert child is not None
warming.warm(lv, child)
print(child.status, child.failure)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child forks (Linux)")
def test_a_failing_child_says_why_in_one_line_when_asked(tmp_path):
    """The child swallowed every failure. It now sends its error's type and message back, and
    ROPEWORK_DEBUG_COMPILE=1 prints it as one line; an ordinary run says nothing."""
    procs = {}
    for debug in ("", "1"):
        env = dict(os.environ, ROPEWORK_CACHE_DIR=str(tmp_path / f"cache{debug}"), ARCADE_HEADLESS="1",
                   ROPEWORK_DEBUG_COMPILE=debug)
        env.pop("NUMBA_CACHE_DIR", None)
        procs[debug] = subprocess.Popen([sys.executable, "-c", _CHILD_FAILS], env=env, cwd=ROOT,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for debug, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert stdout.strip() == "1 ValueError: no such kernel second line"
        said = [line for line in stderr.splitlines() if "ValueError" in line]
        if debug:
            assert said == ["ropework: the compile child failed (ValueError: no such kernel second line); "
                            "compiling its kernels here"], stderr
        else:
            assert said == [] and "Traceback" not in stderr, stderr
