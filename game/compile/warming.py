"""Warming: compile the kernels a level's scene calls before it runs, and say so first.

A kernel compiles on its first call and is cached on disk (`ropework.systems.services.kernels`).
A scene's kernels are known by its *kernel key* (the level's file name, its kinds, its systems),
and for a shipped level by the plan (`ropework.compile.plan`); `compile_notice` says in one line
what must compile, and `warm` compiles it in a throwaway scene of its own world — with a
`ropework.compile.child.CompileChild` compiling a share of it on the other core, on a first run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ropework.level import Level, frame
from ropework.scene import Scene
from ropework.systems import pipeline

if TYPE_CHECKING:
    from ropework.compile.child import CompileChild

DEBUG_COMPILE = "ROPEWORK_DEBUG_COMPILE"   # set (non-empty), a child's failure is said on stderr; else a run is quiet


def kernel_key(level: Level, imported: bool = True) -> tuple[str, set[str]]:
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


def plan_for(level: Level, key: str) -> dict[str, float] | None:
    """The kernels a shipped level's scene of ``key`` calls (name → CPU seconds its compile took
    where the plan was made), from `ropework.compile.plan` (``python -m ropework.warm --plan``); None
    for any other level's file. The plan knows the shipped levels, so it lives in the shell."""
    from ropework.compile.plan import PLAN
    from ropework.level import shipped
    try:
        if level.path.resolve() not in {p.resolve() for p in shipped()}:
            return None
    except OSError:
        return None
    return PLAN.get(key)


def cold_kernels(level: Level) -> tuple[list[str], dict[str, float] | None]:
    """(the kernels ``level``'s scene calls that must compile first, the shipped plan's entry or None)."""
    from ropework.systems.services import kernels
    key, mods = kernel_key(level, imported=False)
    plan = plan_for(level, key)
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
    cold, _ = cold_kernels(level)
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

    With a `CompileChild` (`ropework.compile.child.start_compile_child`) compiling its share of them in a child process, this
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
                    warm_scene(level, skip=child.child_systems)
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
    warm_scene(level)
    key, mods = kernel_key(level)
    kernels.remember(key, mods, since, plan_for(level, key))


def warm_scene(level: Level, skip=frozenset()) -> None:
    """`warm`'s throwaway scene, without the systems named in ``skip``; for a level that draws
    ropes, a second one with a rope drawn (`drawn_variant`)."""
    for lv in (level, drawn_variant(level)):
        if lv is None:
            continue
        scene = PartialScene(lv, (640, 360), skip=skip) if skip else Scene(lv, (640, 360))
        try:
            scene.pointer_down(320, 120)
            scene.step(3)
            scene.pointer_up(320, 120)
            scene.step(1)
            for spec, _ in frame(lv):
                hook = None if spec.name in skip else getattr(spec.processor_class(), "warm_kernels", None)
                if hook is not None:
                    with scene.active():
                        hook(scene.width, scene.height)
        finally:
            scene.close()


def drawn_variant(level: Level) -> Level | None:
    """``level`` with a rope drawn on each layer that draws (``draw = true``): pinned at one end and
    attached to the layer's first rope at the other, as a player's may be, so the kernels a drawn
    rope brings (a body's attachments) compile with the level's and not in the frame the first one
    is drawn; None for a level that draws nothing."""
    from dataclasses import replace

    from ropework.kinds.ropes import ROPE
    from ropework.kinds.solve_keys import ATTACH
    from ropework.schema import validate
    layers, drawn = [], False
    for cfg in level.layers:
        if cfg["kind"] == "ropes" and cfg.get("draw"):
            n = sum(t["count"] for t in cfg["rope"])
            rope = validate({"anchor": 0.3, "points": 4, "pin": "end", "path": [[0.3, 0.4], [0.35, 0.4]]}, ROPE,
                            level.path, "drawn")
            held = validate({"from": n, "from_at": 0.0, "to": 0, "at": 0.5}, ATTACH, level.path, "drawn")
            cfg = {**cfg, "rope": [*cfg["rope"], rope], "attach": [*(cfg.get("attach") or []), held]}
            drawn = True
        layers.append(cfg)
    return replace(level, layers=layers) if drawn else None


def kernels_called(level: Level, skip=frozenset()) -> list[str]:
    """The kernels of its systems' modules that `warm` calls for ``level``, in definition order
    (what `kernel_plan` lists), or its partial scene without the systems in ``skip``. Forgets
    their machine code in this process first, so each call loads (or compiles) again and is
    seen, whatever an earlier scene of the process called."""
    from ropework.systems.services import kernels
    key, mods = kernel_key(level)
    mine = [d for d in kernels.KERNELS if d.py_func.__module__ in mods]
    for disp in mine:
        disp._reset_overloads()          # numba's own recompile() does this first
    warm_scene(level, skip=skip)
    return [kernels.name_of(d) for d in mine if d.overloads]


class PartialScene(Scene):
    """A scene without the systems named in ``skip`` (never installed, so never imported):
    `warm`'s throwaway scene when two processes share the compile."""

    def __init__(self, level: Level, size, skip=frozenset()):
        self._skip = frozenset(skip)
        super().__init__(level, size)

    def systems(self) -> list[pipeline.SystemSpec]:
        return [spec for spec in super().systems() if spec.name not in self._skip]
