"""The compile child: a second process that compiles part of a first run's kernels.

On the one start where kernels compile, `start_compile_child` forks a child that compiles
its share of the scene's cold kernels (`share`: two shares of about equal planned compile
time) into the kernel cache while this process compiles the rest; `ropework.compile.warm`
waits for it, and compiles itself whatever the child did not.
"""
from __future__ import annotations

from ropework.compile import warming
from ropework.level import Level, frame
from ropework.systems.pipeline import RENDER

FAILURE_CHARS = 400    # characters of a child's error it sends back: one line, and one write a pipe keeps whole
CHILD_BASE_S = 30.0   # s a child may take beyond its share's compile (its scene's steps, a busy machine) before it is killed
CHILD_SLACK = 10.0    # times its share's planned compile CPU seconds a child may take on top: the plan's machine was idle
                       # and may be faster. A child killed early costs only time: this process compiles its share then.


class CompileChild:
    """A child process (os.fork) compiling part of a first run's kernels into the kernel cache
    while this process compiles the rest: the machine's second core, for the one start where
    kernels compile. Made by `start_compile_child`; `ropework.compile.warm` waits for it."""

    def __init__(self, pid: int, done_fd: int, child_systems: frozenset, child_kernels: frozenset,
                 timeout: float = CHILD_BASE_S):
        self.pid, self._done = pid, done_fd
        self.timeout = timeout                  # s `wait` gives the child before killing it (`start_compile_child`: from the plan)
        self.child_systems = child_systems      # the systems whose kernels the child compiles (this process skips them)
        self.child_kernels = child_kernels      # the kernels only the child saves
        self.status: int | None = None          # the child's exit status once reaped (0: done; None: the system reaped it)
        self.failure: str | None = None         # why the child failed, once `wait` has it: "ValueError: ..." or "killed after 42 s"
        self.cpu_s = 0.0                        # the child's CPU seconds, once reaped (bench.cold_split reads it)
        self._reaped = False

    def wait(self) -> int | None:
        """Wait for the child to end (killing it after ``self.timeout`` s) and reap it; its exit status."""
        import os
        import select
        if self._reaped:
            return self.status
        try:
            ready, _, _ = select.select([self._done], [], [], self.timeout)   # the pipe closes when the child ends
            if ready:                                                        # (a failing child writes why first)
                self.failure = os.read(self._done, 4 * FAILURE_CHARS).decode(errors="replace") or None
            else:
                self._kill()
                self.failure = f"killed after {self.timeout:.0f} s"
        except BaseException:     # Ctrl-C while waiting: the child goes too
            self._kill()
            raise
        finally:
            self._reap()
        return self.status

    def stop(self) -> None:
        """Kill the child unless it has ended already, and reap it (once)."""
        import select
        if self._reaped:
            return
        ended, _, _ = select.select([self._done], [], [], 0)
        if not ended:             # (an ended child's pid may be another process's already, if the system reaped it)
            self._kill()
        self._reap()

    def _kill(self) -> None:
        import os
        import signal
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:    # it ended, and the system reaped it (SIGCHLD ignored)
            pass

    def _reap(self) -> None:
        import os
        self._reaped = True
        try:
            _, status, usage = os.wait4(self.pid, 0)
        except ChildProcessError:     # SIGCHLD set to SIG_IGN (by an embedding app): the system reaped it, status unknown
            return
        finally:
            os.close(self._done)
        self.status = os.waitstatus_to_exitcode(status)
        self.cpu_s = usage.ru_utime + usage.ru_stime


def share(level: Level) -> tuple[frozenset, frozenset, frozenset, float] | None:
    """(the child's systems, their kernels, this process's kernels, the child's compile seconds):
    the scene's cold kernels split by system module in two shares of about equal compile time
    (the plan's seconds, `plan_for`; 1 s where unknown), the costliest to the child; None when one
    share would be empty.
    (A child compiling all of one module's kernels while this process imports arcade lost:
    bench.cold_split pixels, path 3.28 -> 3.63 CPU s.)"""
    cold, plan = warming.cold_kernels(level)
    costs = plan or {}
    by_module: dict[str, float] = {}
    for name in cold:
        module = name.rsplit(".", 1)[0]
        by_module[module] = by_module.get(module, 0.0) + costs.get(name, 1.0)
    if len(by_module) < 2:
        return None
    child: list[str] = []
    load = [0.0, 0.0]                    # child, parent
    for module, cost in sorted(by_module.items(), key=lambda mc: (-mc[1], mc[0])):
        side = 0 if load[0] <= load[1] else 1
        load[side] += cost
        if side == 0:
            child.append(module)
    systems = frozenset(spec.name for spec, _ in frame(level) if spec.module in child)
    mine = frozenset(n for n in cold if n.rsplit(".", 1)[0] in child)
    return systems, mine, frozenset(n for n in cold if n not in mine), load[0]


def child_skip(level: Level, child_systems, parent_kernels) -> frozenset:
    """The systems the child's scene goes without: those of the modules whose kernels this
    process compiles, and the draw systems (arcade's import), unless they are the child's."""
    theirs = {n.rsplit(".", 1)[0] for n in parent_kernels}
    return frozenset(spec.name for spec, _ in frame(level)
                     if spec.name not in child_systems and (spec.module in theirs or spec.stage == RENDER))


def no_gl_yet() -> bool:
    """Whether no GL context exists in this process yet: a fork then copies no GL driver's
    threads or locks (the software rasteriser's workers) into the child. The threads that do run by then are
    OpenBLAS's pool (numpy's; OpenBLAS stops it around a fork itself) and pyglet's idle media
    worker (the child plays nothing); the child only compiles and leaves with os._exit."""
    import sys
    gl = sys.modules.get("pyglet.gl")
    return gl is None or getattr(gl, "current_context", None) is None


def start_compile_child(level: Level) -> CompileChild | None:
    """Fork a `CompileChild` compiling its share of ``level``'s cold kernels (`share`), or None where
    it would not pay or is not safe: one share only, no kernel cache, no fork (not Linux), or a
    GL context made already (`no_gl_yet`). Call it before any window exists; pass it to `warm`.

    numba's once-a-process set-up (its typing and lowering tables, ≈ 0.5 s) is done here
    first, so the child inherits it rather than repeating it."""
    import os
    import sys

    from ropework.systems.services import kernels
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")) or kernels.cache_dir() is None:
        return None
    parts = share(level)
    if parts is None or not no_gl_yet():
        return None
    child_systems, child_kernels, parent_kernels, seconds = parts
    numba_setup()               # the child inherits it
    sys.stdout.flush()
    sys.stderr.flush()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:                             # the child: compile, save its share, leave without cleaning up
        code = 1
        try:
            os.close(done_r)
            import gc
            gc.enable()
            skip = child_skip(level, child_systems, parent_kernels)
            with kernels.unsaved(kernels.name_of(d) for d in kernels.KERNELS if kernels.name_of(d) not in child_kernels):
                warming.warm_scene(level, skip=skip)
            code = 0
        except BaseException as e:           # the parent compiles whatever is missing; it is told why
            try:
                why = " ".join(f"{type(e).__name__}: {e}".split())[:FAILURE_CHARS]
                os.write(done_w, why.encode(errors="replace"))
            except BaseException:
                pass
        finally:
            os._exit(code)
    os.close(done_w)
    return CompileChild(pid, done_r, child_systems, child_kernels, timeout=CHILD_BASE_S + CHILD_SLACK * seconds)


def numba_setup() -> None:
    """numba's set-up that its first compile in a process would do (loading its typing and
    lowering tables); nothing is compiled. Left to the first compile if numba's internals moved."""
    try:
        from numba.core.registry import cpu_target
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except Exception:
        pass
