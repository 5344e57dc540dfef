"""A running scene: one esper world built from a level — the headless API.

    from ropework.scene import Scene
    scene = Scene.load("rope", size=(800, 600), seed=1)
    scene.pointer_down(400, 100); scene.step(30); scene.pointer_up(400, 100)
    state = scene.arrays()      # {entity: {"Points": {"pos": ..., ...}, ...}}
    scene.close()               # deletes the world

Coordinates are scene pixels: origin at the top-left, y down, as the seeds.
Same level, seed and input give bit-identical arrays.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
from contextlib import contextmanager
from typing import TypeVar

import esper
import numpy as np

from ropework.components import Frame, Layer, Pointer, Points
from ropework import kinds
from ropework.components.frame import STEP
from ropework.level import Level, frame, load, resolve
from ropework.systems import pipeline
from ropework.systems.pipeline import RENDER

_names = itertools.count(1)
C = TypeVar("C")    # a component class, as `Scene.find` returns its instances
MAX_SIZE = 16384.0   # px a side at most (GL's usual texture limit): a resize to inf or 1e30 is cut to this

BACKGROUND = {"light": (0.957, 0.957, 0.945, 1.0), "dark": (0.067, 0.067, 0.075, 1.0)}


class SceneClosed(RuntimeError):
    """The scene was closed (its world deleted); open a new one with Scene.load."""


def fit_size(width, height, current=(1.0, 1.0)) -> tuple[float, float]:
    """A viewport size each side within 1..MAX_SIZE px (inf and 1e30 are cut; NaN keeps ``current``)."""
    out = []
    for v, old in zip((width, height), current):
        v = float(v)
        out.append(float(old) if math.isnan(v) else min(max(1.0, v), MAX_SIZE))
    return out[0], out[1]


def _kernel_key(level: Level, imported: bool = True) -> tuple[str, set[str]]:
    """(what identifies a scene's kernel use, its systems' modules), with the modules imported
    unless not ``imported``.

    The level's file name, its kinds and its systems: which kernels a scene calls depends on
    its data as well (levels of one kind call different repel or relax kernels)."""
    specs = [spec for spec, _ in frame(level)]
    for spec in specs:
        if imported:
            spec.processor_class()      # defines the module's kernels; compiles nothing
    kinds_used = sorted({c["kind"] for c in level.layers})
    return f"{level.path.name}: " + " ".join(kinds_used + [s.name for s in specs]), {s.module for s in specs}


def _plan(level: Level, key: str) -> dict[str, float] | None:
    """The kernels a shipped level's scene of ``key`` calls (name → CPU seconds its compile took
    where the plan was made), from `ropework.kernel_plan` (``python -m ropework.warm --plan``); None
    for any other level's file. The plan knows the shipped levels, so it lives in the shell."""
    from ropework.kernel_plan import PLAN
    from ropework.level import shipped
    try:
        if level.path.resolve() not in {p.resolve() for p in shipped()}:
            return None
    except OSError:
        return None
    return PLAN.get(key)


def _cold(level: Level) -> tuple[list[str], dict[str, float] | None]:
    """(the kernels ``level``'s scene calls that must compile first, the shipped plan's entry or None)."""
    from ropework.systems.services import kernels
    key, mods = _kernel_key(level, imported=False)
    plan = _plan(level, key)
    named = kernels.stamped(key)
    if named is None and plan is not None:
        named = list(plan)
    need = mods if named is None else {n.rsplit(".", 1)[0] for n in named}
    for spec, _ in frame(level):    # only the modules of the kernels it names, when it is known
        if spec.module in need:     # (a first run forks its compile child before the draw systems import arcade)
            spec.processor_class()
    return kernels.cold(key, mods, plan), plan


def compile_notice(level: Level) -> str | None:
    """One line saying that kernels ``level``'s scene uses must compile first, or None.

    Asks the kernel cache which of them have no machine code on disk yet. Said before the
    scene is built, in the terminal and the window, so a first run's compile is never a
    silent stall; `warm` then compiles them.
    """
    from ropework.systems.services import kernels
    cold, _ = _cold(level)
    if not cold:
        return None
    when = "first run only" if kernels.cache_dir() else "no kernel cache, so every run"
    return (f"ropework: compiling {len(cold)} physics kernel{'s' if len(cold) != 1 else ''} for "
            f"{level.title} ({when}; a few seconds)...")


def warm(level: Level, child: CompileChild | None = None, meanwhile=None) -> None:
    """Compile the kernels ``level``'s scene uses, in a throwaway scene of its own world: a few
    steps with a press, as a player's first moments, and the draw-time kernels of any system
    class that offers ``warm_kernels(width, height)`` (nothing is drawn here, so they would
    otherwise compile in the first frame). The real scene is untouched.

    With a `CompileChild` (`start_compile_child`) compiling its share of them in a child process, this
    process compiles the others, then runs ``meanwhile`` (the imports the first frame needs
    next), waits for the child, and warms once more with every system: what the child
    compiled loads from the cache, and whatever it did not (it failed, or was killed)
    compiles here. A failure of the partial scene is left to that full warm, which raises
    it again if it is real; an interrupt, or a failure of ``meanwhile``, kills the child.
    A run is quiet about a child's failure unless $ROPEWORK_DEBUG_COMPILE is set: one line."""
    import os
    import sys
    from ropework.systems.services import kernels
    since = kernels.mark()
    if child is not None:
        try:
            try:
                with kernels.unsaved(child.child_kernels):      # the child's to save
                    _warm_scene(level, skip=child.child_systems)
            except Exception:      # the full warm below compiles what is missing, and says a real error the normal way
                pass
            if meanwhile is not None:
                meanwhile()
        except BaseException:      # Ctrl-C, or the imports failed: the child goes too
            child.stop()
            raise
        child.wait()
        if child.failure and os.environ.get(DEBUG_COMPILE):
            print(f"ropework: the compile child failed ({child.failure}); compiling its kernels here",
                  file=sys.stderr)
    _warm_scene(level)
    key, mods = _kernel_key(level)
    kernels.remember(key, mods, since, _plan(level, key))


def _warm_scene(level: Level, skip=frozenset()) -> None:
    """`warm`'s throwaway scene, without the systems named in ``skip``."""
    scene = _Partial(level, (640, 360), skip=skip) if skip else Scene(level, (640, 360))
    try:
        scene.pointer_down(320, 120)
        scene.step(3)
        scene.pointer_up(320, 120)
        scene.step(1)
        for spec, _ in frame(level):
            hook = None if spec.name in skip else getattr(spec.processor_class(), "warm_kernels", None)
            if hook is not None:
                with scene.active():
                    hook(scene.width, scene.height)
    finally:
        scene.close()


def kernels_called(level: Level, skip=frozenset()) -> list[str]:
    """The kernels of its systems' modules that `warm` calls for ``level``, in definition order
    (what `kernel_plan` lists), or its partial scene without the systems in ``skip``. Forgets
    their machine code in this process first, so each call loads (or compiles) again and is
    seen, whatever an earlier scene of the process called."""
    from ropework.systems.services import kernels
    key, mods = _kernel_key(level)
    mine = [d for d in kernels.KERNELS if d.py_func.__module__ in mods]
    for disp in mine:
        disp._reset_overloads()          # numba's own recompile() does this first
    _warm_scene(level, skip=skip)
    return [kernels.name_of(d) for d in mine if d.overloads]


FAILURE_CHARS = 400    # characters of a child's error it sends back: one line, and one write a pipe keeps whole
DEBUG_COMPILE = "ROPEWORK_DEBUG_COMPILE"   # set (non-empty), a child's failure is said on stderr; else a run is quiet
CHILD_BASE_S = 30.0   # s a child may take beyond its share's compile (its scene's steps, a busy machine) before it is killed
CHILD_SLACK = 10.0    # times its share's planned compile CPU seconds a child may take on top: the plan's machine was idle
                       # and may be faster. A child killed early costs only time: this process compiles its share then.


class CompileChild:
    """A child process (os.fork) compiling part of a first run's kernels into the kernel cache
    while this process compiles the rest: the machine's second core, for the one start where
    kernels compile. Made by `start_compile_child`; `warm` waits for it."""

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


def _share(level: Level) -> tuple[frozenset, frozenset, frozenset, float] | None:
    """(the child's systems, their kernels, this process's kernels, the child's compile seconds):
    the scene's cold kernels split by system module in two shares of about equal compile time
    (the plan's seconds, `_plan`; 1 s where unknown), the costliest to the child; None when one
    share would be empty.
    (A child compiling all of one module's kernels while this process imports arcade lost:
    bench.cold_split pixels, path 3.28 -> 3.63 CPU s.)"""
    cold, plan = _cold(level)
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


def _child_skip(level: Level, child_systems, parent_kernels) -> frozenset:
    """The systems the child's scene goes without: those of the modules whose kernels this
    process compiles, and the draw systems (arcade's import), unless they are the child's."""
    theirs = {n.rsplit(".", 1)[0] for n in parent_kernels}
    return frozenset(spec.name for spec, _ in frame(level)
                     if spec.name not in child_systems and (spec.module in theirs or spec.stage == RENDER))


def _no_gl_yet() -> bool:
    """Whether no GL context exists in this process yet: a fork then copies no GL driver's
    threads or locks (llvmpipe's workers) into the child. The threads that do run by then are
    OpenBLAS's pool (numpy's; OpenBLAS stops it around a fork itself) and pyglet's idle media
    worker (the child plays nothing); the child only compiles and leaves with os._exit."""
    import sys
    gl = sys.modules.get("pyglet.gl")
    return gl is None or getattr(gl, "current_context", None) is None


def start_compile_child(level: Level) -> CompileChild | None:
    """Fork a `CompileChild` compiling its share of ``level``'s cold kernels (`_share`), or None where
    it would not pay or is not safe: one share only, no kernel cache, no fork (not Linux), or a
    GL context made already (`_no_gl_yet`). Call it before any window exists; pass it to `warm`.

    numba's once-a-process set-up (its typing and lowering tables, ≈ 0.5 s) is done here
    first, so the child inherits it rather than repeating it."""
    import os
    import sys
    from ropework.systems.services import kernels
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")) or kernels.cache_dir() is None:
        return None
    share = _share(level)
    if share is None or not _no_gl_yet():
        return None
    child_systems, child_kernels, parent_kernels, seconds = share
    _numba_setup()               # the child inherits it
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
            skip = _child_skip(level, child_systems, parent_kernels)
            with kernels.unsaved(kernels.name_of(d) for d in kernels.KERNELS if kernels.name_of(d) not in child_kernels):
                _warm_scene(level, skip=skip)
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


def _numba_setup() -> None:
    """numba's set-up that its first compile in a process would do (loading its typing and
    lowering tables); nothing is compiled. Left to the first compile if numba's internals moved."""
    try:
        from numba.core.registry import cpu_target
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except Exception:
        pass


class Scene:
    def __init__(self, level: Level, size=(1280, 720), seed: int | None = None,
                 reduced_motion: bool | None = None):
        self.level = level
        self.seed = level.seed if seed is None else int(seed)
        self.world = f"ropework-scene-{next(_names)}"
        self.theme = level.theme
        self.reduced_motion = level.reduced_motion if reduced_motion is None else bool(reduced_motion)
        self.width, self.height = fit_size(*size[:2])
        self._closed = False
        self._build()

    @classmethod
    def load(cls, path, size=(1280, 720), seed: int | None = None, reduced_motion: bool | None = None):
        """A scene of the level file ``path``, or of a shipped level by name (``"rope"``) or number."""
        size = fit_size(*size[:2])
        return cls(load(resolve(str(path)), size), size, seed, reduced_motion)

    # ── the world ────────────────────────────────────────────────────────────
    @contextmanager
    def active(self):
        """Make this scene's world esper's current one for the block."""
        self._check_open()
        previous = esper.current_world
        esper.switch_world(self.world)
        try:
            yield
        finally:
            if previous in esper.list_worlds():
                esper.switch_world(previous)

    def _check_open(self) -> None:
        if self._closed:
            raise SceneClosed(f"the scene of {self.level.path.name} is closed; open another with Scene.load(...)")

    def _build(self, relaid: bool = False) -> None:
        self._check_open()
        self.frame = Frame(dt=STEP, t=0.0, width=self.width, height=self.height,
                           rng=np.random.default_rng(self.seed), reduced_motion=self.reduced_motion,
                           theme=self.theme, relaid=relaid)
        self._drop_world()   # a rebuild starts from an empty world
        with self.active():
            self.pointer_entity = esper.create_entity(Pointer())
            self.layers = sorted((Layer(c["name"], c["kind"], c["z"]) for c in self.level.layers),
                                 key=lambda layer: layer.z)
            for cfg in self.level.layers:
                layer = next(lay for lay in self.layers if lay.name == cfg["name"])
                kinds.KINDS[cfg["kind"]].spawn(cfg, layer, self.frame)
            self.processors, self.draws = pipeline.install(self.systems())

    def kinds(self) -> list[kinds.Kind]:
        """The scene's kinds, once each, topmost layer first."""
        by_z = sorted(self.level.layers, key=lambda c: -c["z"])
        return [kinds.KINDS[n] for n in dict.fromkeys(c["kind"] for c in by_z)]

    def systems(self) -> list[pipeline.SystemSpec]:
        """The systems this scene runs, in run order: the core ones, its kinds' and the level's opt-ins."""
        return [spec for spec, _ in frame(self.level)]

    def close(self) -> None:
        """Delete the scene's world and everything in it. Afterwards every call but close raises SceneClosed."""
        self._drop_world()
        self._closed = True

    def _drop_world(self) -> None:
        if self.world in esper.list_worlds():
            if esper.current_world == self.world:
                esper.switch_world("default")
            esper.delete_world(self.world)

    # ── time ─────────────────────────────────────────────────────────────────
    @property
    def still(self) -> bool:
        """Reduced motion in a scene one of whose kinds then holds still (seed 001's loop: one frame
        painted, then no loop): steps do nothing and pointer input is dropped."""
        return self.reduced_motion and any(k.still_when_reduced for k in self.kinds())

    def themes(self) -> tuple[str, ...]:
        """The themes every kind of the scene reads well in (T toggles between them)."""
        ok = [t for t in ("light", "dark") if all(t in k.themes for k in self.kinds())]
        return tuple(ok) or (self.theme,)

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps of 1/60 s (none while `still`)."""
        if self.still:
            self.pointer.events.clear()
            return
        with self.active():
            for _ in range(n):
                esper.process(self.frame)
                self.frame.steps += 1
                self.frame.t = self.frame.steps * self.frame.dt

    @property
    def t(self) -> float:
        return self.frame.t

    # ── input ────────────────────────────────────────────────────────────────
    @property
    def pointer(self) -> Pointer:
        with self.active():
            return esper.component_for_entity(self.pointer_entity, Pointer)

    def _event(self, kind: str, x: float = 0.0, y: float = 0.0) -> None:
        self.pointer.events.append((kind, float(x), float(y)))

    def pointer_move(self, x: float, y: float) -> None:
        self._event("move", x, y)

    def pointer_down(self, x: float, y: float) -> None:
        self._event("down", x, y)

    def pointer_up(self, x: float, y: float) -> None:
        self._event("up", x, y)

    def pointer_leave(self) -> None:
        """The pointer left the window, or the window lost focus: ends any grab."""
        self._event("leave")

    # ── scene controls ───────────────────────────────────────────────────────
    def resize(self, width: float, height: float) -> None:
        """Re-lay the scene for a new viewport (the seeds re-seed on resize)."""
        width, height = fit_size(width, height, (self.width, self.height))
        self._check_open()
        if (width, height) != (self.width, self.height):
            self.width, self.height = width, height
            self._build(relaid=True)

    def reset(self) -> None:
        self._build()

    def toggle_theme(self) -> str:
        """The other theme, where the scene's kinds have two (`themes`); the one it has otherwise."""
        themes = self.themes()
        if len(themes) > 1:
            self.theme = "dark" if self.theme == "light" else "light"
        elif self.theme not in themes:
            self.theme = themes[0]
        self.frame.theme = self.theme
        return self.theme

    def toggle_reduced_motion(self) -> bool:
        """Flip reduced motion for the running scene (systems read it every step) and its resets."""
        self.reduced_motion = self.frame.reduced_motion = not self.reduced_motion
        return self.reduced_motion

    # ── reading state ────────────────────────────────────────────────────────
    def entities(self) -> list[int]:
        with self.active():
            return sorted(esper.get_entities())

    def component(self, ent: int, cls):
        with self.active():
            return esper.component_for_entity(ent, cls)

    def find(self, cls: type[C]) -> list[tuple[int, C]]:
        """Every (entity, component) of a type, in entity order."""
        with self.active():
            return sorted(esper.get_component(cls), key=lambda ec: ec[0])

    def arrays(self) -> dict[int, dict[str, dict[str, np.ndarray]]]:
        """Every entity's numpy component fields (copies), keyed by component class name."""
        out: dict = {}
        with self.active():
            for ent in sorted(esper.get_entities()):
                comps: dict[str, dict[str, np.ndarray]] = {}
                comp: object
                for comp in esper.components_for_entity(ent):
                    if dataclasses.is_dataclass(comp):
                        arrs = {f.name: np.array(getattr(comp, f.name)) for f in dataclasses.fields(comp)
                                if isinstance(getattr(comp, f.name), np.ndarray)}
                        if arrs:
                            comps[type(comp).__name__] = arrs
                out[ent] = comps
        return out

    def state_hash(self) -> str:
        """SHA-256 over every state array, in a fixed order: equal hashes, equal state."""
        h = hashlib.sha256()
        for ent, comps in self.arrays().items():
            for cname in sorted(comps):
                for fname in sorted(comps[cname]):
                    a = comps[cname][fname]
                    h.update(f"{ent}.{cname}.{fname}{a.dtype}{a.shape}".encode())
                    h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()

    @property
    def point_count(self) -> int:
        return sum(p.n for _, p in self.find(Points))

    # ── drawing (needs a GL context: a window, or ARCADE_HEADLESS) ───────────
    def draw(self, ctx) -> None:
        """Draw every layer, lowest z first, into the bound framebuffer."""
        ctx.viewport  # noqa: B018  (the caller owns the viewport)
        with self.active():
            for layer in self.layers:
                for d in self.draws:
                    d.draw(self.frame, layer.name, ctx)

    @property
    def background(self) -> tuple[float, float, float, float]:
        return BACKGROUND[self.theme]


class _Partial(Scene):
    """A scene without the systems named in ``skip`` (never installed, so never imported):
    `warm`'s throwaway scene when two processes share the compile."""

    def __init__(self, level: Level, size, skip=frozenset()):
        self._skip = frozenset(skip)
        super().__init__(level, size)

    def systems(self) -> list[pipeline.SystemSpec]:
        return [spec for spec in super().systems() if spec.name not in self._skip]
