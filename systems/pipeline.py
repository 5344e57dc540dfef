"""The frame, declared once: which systems run, in which stage, in which order.

A system is an ``esper.Processor`` subclass registered with `system(...)`: a short
name, a stage, and optional ``after``/``before`` names. `order()` turns the
declarations into one list — stages in `STAGES` order, and inside a stage a
topological order of the constraints (ties keep registration order) — and
`install()` hands that list to esper as priorities. Built-in systems register
exactly the way a third party's would.

Render-stage systems are not given to esper: esper's ``process`` runs the fixed
simulation step, while drawing happens from the window's draw callback.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import esper

STAGES = ("input", "integrate", "relax", "emit", "render")
INPUT, INTEGRATE, RELAX, EMIT, RENDER = STAGES


class PipelineError(ValueError):
    """A system declaration that cannot be ordered (unknown name, cycle, duplicate)."""


@dataclass(frozen=True)
class SystemSpec:
    name: str
    stage: str
    cls: type
    after: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    default: bool = True   # runs in every scene; False: only in levels that name it in `systems`


@dataclass
class Registry:
    specs: dict[str, SystemSpec] = field(default_factory=dict)

    def add(self, spec: SystemSpec) -> None:
        if spec.stage not in STAGES:
            raise PipelineError(f"system {spec.name!r}: stage {spec.stage!r} is not one of {', '.join(STAGES)}")
        if spec.name in self.specs and self.specs[spec.name].cls is not spec.cls:
            raise PipelineError(f"system {spec.name!r} is registered twice "
                                f"({self.specs[spec.name].cls.__qualname__} and {spec.cls.__qualname__})")
        self.specs[spec.name] = spec


REGISTRY = Registry()


def system(name: str, stage: str, after=(), before=(), default: bool = True):
    """Class decorator: register an esper Processor as a named system of a stage.

    ``after``/``before`` name other systems (in any stage up to this one's);
    ``default=False`` makes an opt-in system that runs only in levels listing it
    under ``systems = [...]``.
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
    """Names of the systems a scene runs: every default system plus the opt-in ``extra``."""
    return [n for n, s in registry.specs.items() if s.default or n in extra]


def order(names=None, registry: Registry = REGISTRY) -> list[SystemSpec]:
    """The declared run order of ``names`` (all registered systems when None)."""
    specs = registry.specs
    chosen = list(specs) if names is None else list(names)
    for n in chosen:
        if n not in specs:
            raise PipelineError(f"unknown system {n!r}")
    chosen_set = set(chosen)
    edges: dict[str, set[str]] = {n: set() for n in chosen}   # n -> systems that must run after n
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
    rank = {n: i for i, n in enumerate(chosen)}
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


def install(specs: list[SystemSpec]) -> tuple[list[esper.Processor], list[esper.Processor]]:
    """Add the simulation systems to the current esper world, first to run at highest priority.

    Returns (simulation processors in run order, render systems in draw order).
    """
    sim = [s for s in specs if s.stage != RENDER]
    procs = []
    for i, spec in enumerate(sim):
        proc = spec.cls()
        esper.add_processor(proc, priority=len(sim) - i)
        procs.append(proc)
    draws = [s.cls() for s in specs if s.stage == RENDER]
    return procs, draws
