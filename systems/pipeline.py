"""The frame as data: which systems a scene runs, in which stage, in which order.

The built-in systems are the rows of `ropework.systems.FRAME`, registered here in
table order. A third party registers an ``esper.Processor`` subclass with
`system(...)`: a short name, a stage, and optional ``after``/``before`` names.
`order()` turns a set of names into one list — stages in `STAGES` order, the
built-ins chained in table order, a plugin's system placed by its constraints
(ties keep registration order) — and `install()` hands that list to esper as
priorities (esper runs the highest first; a bare class ``priority`` is ignored).

Render-stage systems are not given to esper: esper's ``process`` runs the fixed
simulation step, while drawing happens from the window's draw callback.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field

import esper

from ropework.systems import CORE, FRAME

STAGES = ("input", "integrate", "relax", "emit", "render")
INPUT, INTEGRATE, RELAX, EMIT, RENDER = STAGES


class PipelineError(ValueError):
    """A system declaration that cannot be ordered (unknown name, cycle, duplicate)."""


@dataclass(frozen=True)
class SystemSpec:
    name: str
    stage: str
    cls: type | str          # the Processor class, or "package.module:Class", imported on first use
    after: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    default: bool = False    # True: runs in every scene; else only where a kind or the level brings it
    builtin: bool = False    # a row of the built-in FRAME table: chained in table order

    def processor_class(self) -> type:
        """The system's class (a built-in's module is imported here, not before)."""
        if isinstance(self.cls, str):
            module, _, attr = self.cls.partition(":")
            return getattr(importlib.import_module(module), attr)
        return self.cls

    @property
    def module(self) -> str:
        return self.cls.partition(":")[0] if isinstance(self.cls, str) else self.cls.__module__


@dataclass
class Registry:
    specs: dict[str, SystemSpec] = field(default_factory=dict)

    def add(self, spec: SystemSpec) -> None:
        if spec.stage not in STAGES:
            raise PipelineError(f"system {spec.name!r}: stage {spec.stage!r} is not one of {', '.join(STAGES)}")
        if spec.name in self.specs and self.specs[spec.name].cls is not spec.cls:
            raise PipelineError(f"system {spec.name!r} is registered twice "
                                f"({_label(self.specs[spec.name].cls)} and {_label(spec.cls)})")
        self.specs[spec.name] = spec


def _label(cls) -> str:
    return cls if isinstance(cls, str) else cls.__qualname__


def builtin_registry() -> Registry:
    """A registry holding the built-in FRAME table, in table order."""
    r = Registry()
    for stage, name, ref in FRAME:
        r.add(SystemSpec(name, stage, f"ropework.systems.{ref}", builtin=True, default=name in CORE))
    return r


REGISTRY = builtin_registry()


def system(name: str, stage: str, after=(), before=(), default: bool = False):
    """Class decorator: register an esper Processor as a named system of a stage.

    ``after``/``before`` name other systems (in any stage up to this one's). The
    system runs where a kind brings it (`Kind.systems`) or a level names it under
    ``systems = [...]``; ``default=True`` makes it run in every scene.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name):
        raise PipelineError(f"system name {name!r}: expected lower-case letters, digits and _, at most 40")

    def register(cls):
        cls.system_name = name
        cls.stage = stage
        REGISTRY.add(SystemSpec(name, stage, cls, tuple(after), tuple(before), default))
        return cls
    return register


def scene_systems(extra=(), registry: Registry = REGISTRY) -> list[str]:
    """Names of the systems a scene runs: every default (core) system plus ``extra``, once each."""
    names = [n for n, s in registry.specs.items() if s.default]
    return names + [n for n in dict.fromkeys(extra) if n not in names]


def order(names=None, registry: Registry = REGISTRY) -> list[SystemSpec]:
    """The declared run order of ``names`` (all registered systems when None)."""
    specs = registry.specs
    chosen = list(dict.fromkeys(specs if names is None else names))
    for n in chosen:
        if n not in specs:
            raise PipelineError(f"unknown system {n!r}")
    chosen_set = set(chosen)
    edges: dict[str, set[str]] = {n: set() for n in chosen}   # n -> systems that must run after n
    builtins = [n for n in specs if n in chosen_set and specs[n].builtin]   # table order
    for a, b in zip(builtins, builtins[1:]):                           # the table is a chain
        edges[a].add(b)
    for n in chosen:
        s = specs[n]
        for other in s.after + s.before:
            if other not in specs:
                raise PipelineError(f"system {n!r} names unknown system {other!r}")
        for other in s.after:
            if other in chosen_set:
                edges[other].add(n)
        for other in s.before:
            if other in chosen_set:
                edges[n].add(other)
    for n, later in edges.items():   # stage order is a constraint too
        for m in later:
            if STAGES.index(specs[m].stage) < STAGES.index(specs[n].stage):
                raise PipelineError(f"system {m!r} ({specs[m].stage}) cannot run after "
                                    f"{n!r} ({specs[n].stage})")
    rank = {n: i for i, n in enumerate(specs)}
    indeg = {n: 0 for n in chosen}
    for n in chosen:
        for m in edges[n]:
            indeg[m] += 1
    done: list[str] = []
    ready = [n for n in chosen if indeg[n] == 0]
    while ready:
        ready.sort(key=lambda n: (STAGES.index(specs[n].stage), rank[n]))
        n = ready.pop(0)
        done.append(n)
        for m in edges[n]:
            indeg[m] -= 1
            if indeg[m] == 0:
                ready.append(m)
    if len(done) != len(chosen):
        stuck = sorted(set(chosen) - set(done))
        raise PipelineError(f"systems {', '.join(stuck)} form a cycle of before/after constraints")
    return [specs[n] for n in done]


def install(specs: list[SystemSpec], reuse=()) -> tuple[list[esper.Processor], list]:
    """Add the simulation systems to the current esper world, first to run at highest priority.

    ``reuse``: instances from an earlier install (the studio adding a layer of a new
    kind), kept by system name with whatever they cache. Returns (simulation
    processors in run order, render systems in draw order).
    """
    kept = {getattr(obj, "system_name", None): obj for obj in reuse}

    def make(spec):
        obj = kept.get(spec.name) or spec.processor_class()()
        obj.system_name = spec.name
        return obj
    sim = [s for s in specs if s.stage != RENDER]
    procs = []
    for i, spec in enumerate(sim):
        proc = make(spec)
        esper.add_processor(proc, priority=len(sim) - i)
        procs.append(proc)
    draws = [make(s) for s in specs if s.stage == RENDER]
    return procs, draws
