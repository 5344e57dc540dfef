"""The relax stage's open table of constraint types.

A body's distance links, pins (inverse mass 0) and bounds box are the seeds' solver, fused in
`ropework.systems.relax`'s kernels. Every further type is declared here with `constraint_type`,
the same call the built-in colliders make: its data lives in a component on the body's entity,
and a body carrying one is solved pass by pass — one sweep of the links (with the box clamp),
then each present type's ``project``, in ``order`` — so its constraints are solved inside every
pass with the others, on the same positions. A body with none keeps the fused kernels, bit for bit.

A type's ``project(pos, prev, inv_mass, *arrays)`` is a compiled function (`kernels.kernel` or
``numba.njit``): pos float32[n, 2] (written in place), prev float32[n, 2] (the step's start, for
position-based friction), inv_mass float32[n] (0: a pinned point, never moved); ``arrays`` are
``arrays(component)``. ``begin`` (optional, same arguments) runs once a step before the passes.

A type whose component also holds bodies of its own (the dynamic colliders) steps them with two
optional Python hooks around the passes: ``advance(component, forces, dt)`` once a step before
``begin`` (their Verlet step: `Forces` gives gravity and damping, dt the step, s), and
``finish(component, points, forces, dt, per_force)`` once a step after the passes (velocity
corrections such as restitution; letting go what pulled too hard: a correction of x px over the
step is a force of x / (w · per_force), w the inverse masses' sum); it returns how far its
bodies moved this step, px (or None), so a body whose own bodies still move does not fall asleep.
The Python there calls compiled kernels: no per-point Python loop.

``near`` (optional) names the points a step's ``project`` can move, when a broad phase knows them:
a body whose every per-pass constraint says so has the links away from those points solved in
one fused call, as a body without extras, and only the rest pass by pass. (The built-in colliders
go further for a body of ropes among still shapes: their contacts run inside the chain groups' lane
kernels — `ropework.systems.services.contact`'s docstring.)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ConstraintType:
    name: str            # short, unique
    component: type      # the component class on a body entity that holds this type's constraints
    project: Callable    # project(pos, prev, inv_mass, *arrays(component)): once per pass, compiled
    arrays: Callable     # arrays(component) -> tuple: what project takes after inv_mass
    order: float = 100.0  # within a pass, types run in increasing order (ties: registration order); links are 0
    begin: Callable | None = None   # begin(pos, prev, inv_mass, *arrays): once a step, before the passes
    advance: Callable | None = None   # advance(component, forces, dt): once a step, before begin
    finish: Callable | None = None    # finish(component, points, forces, dt, per_force): once a step, after the passes
    near: Callable | None = None    # near(*arrays) -> int32 points: after begin, the only points project may move
                                    # this step (so the links of the rest are solved fused); None: any point


TYPES: dict[str, ConstraintType] = {}
_ordered: list = [None, ()]   # [the TYPES it was sorted from (a copy), the types in pass order]: relax asks every step


def constraint_type(t: ConstraintType) -> ConstraintType:
    """Declare (or replace, by name) a constraint type; returns it."""
    TYPES[t.name] = t
    return t


def ordered() -> tuple:
    """The declared types in pass order (sorted again only when TYPES changed)."""
    if _ordered[0] != TYPES:
        names = list(TYPES)
        _ordered[:] = [dict(TYPES), tuple(sorted(TYPES.values(), key=lambda t: (t.order, names.index(t.name))))]
    return _ordered[1]
