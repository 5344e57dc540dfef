"""What a body's solve holds past its distance links: bending, compliance, breaking, attachments,
self-contact and sleep. Each is optional; a body with none of them (every seed toy) is relaxed as
before, bit for bit. `Extras` gathers a body's, so the relax stage looks one component up per body."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Bending:
    """Angle constraints (verlet-js's ``AngleConstraint``), solved once a pass after the links.

    tri: int32[3, k] — points a, b (the middle), c; angle: float32[k] — rest angle at b from
    (a - b) to (c - b), radians; stiffness: float32[k] in 0..1 (0: a slack chain, 1: a wire that
    holds its shape). links: int32[2, k] — the two links (indices into Constraints) each one
    spans, so a broken link takes its bends with it.
    """

    tri: np.ndarray
    angle: np.ndarray
    stiffness: np.ndarray
    links: np.ndarray


@dataclass
class Compliance:
    """XPBD links and substeps: each step is cut into ``substeps`` substeps of dt / substeps, and
    each substep integrates and then solves every link once (Ten Minute Physics' small steps), so a
    link's stretch follows its compliance, not a pass count.

    compliance: float32[m] — per link, px per unit force (a force is a point's mass · px/s²; a
    free point weighs 1): a link holding a steady force F stretches by compliance · F. 0 is rigid.
    substeps: substeps per step, ≥ 1.
    """

    compliance: np.ndarray
    substeps: int


@dataclass
class Breaking:
    """Links that break: link i is removed when longer than ratio[i] × its rest length.

    ratio: float32[m] — 0 for a link that never breaks. group: int32[m], each link's rope (a rope
    breaks at most once a step, at its most stretched link), or None (a cloth: every link that is
    stretched at least as far as its neighbours).
    """

    ratio: np.ndarray
    group: np.ndarray | None = None


@dataclass
class Attachments:
    """Points held on points of the same body, solved once a pass after the links.

    at: int32[3, k] — the attached point, then the segment (q0, q1) it is held on; frac:
    float32[k] in 0..1 — where on that segment (0: q0). break_force: float32[k] — the force past
    which an attachment lets go, point mass · px/s² (0: never). pull: float32[k] — each one's
    last correction, px (written by relax).
    """

    at: np.ndarray
    frac: np.ndarray
    break_force: np.ndarray
    pull: np.ndarray


@dataclass
class SelfContact:
    """Points of a body kept two radii apart (a grid, rebuilt each step).

    radius: px; rest: float32[n, 2] — the points' rest layout: a pair closer than two radii there
    (neighbours along a rope) is left to the links. pairs: int32[2, cap], start/cell/items/sort:
    the grid's scratch (made once, `projections.near_pairs`); m: the pairs found this step.
    """

    radius: float
    rest: np.ndarray
    pairs: np.ndarray | None = field(repr=False, default=None)
    start: np.ndarray | None = field(repr=False, default=None)
    cell: np.ndarray | None = field(repr=False, default=None)
    items: np.ndarray | None = field(repr=False, default=None)
    sort: np.ndarray | None = field(repr=False, default=None)
    m: int = 0


@dataclass
class Sleep:
    """A still body sleeps: no integrate, no relax, until something touches it.

    still: px per step every point must move less than; calm_steps: steps of that before it
    sleeps; calm: the current run; asleep: sleeping now. Written by settle.
    """

    still: float
    calm_steps: int
    calm: int = 0
    asleep: bool = False


HELD = {"held": True}   # field metadata: the value is a component of its own, held in this one (its fields are state)


@dataclass
class Extras:
    """A body's solve extras, each None when the body has none."""

    # each holds arrays, so a dataclass == between two would be ambiguous: compared by their own fields;
    # HELD marks each as a component held in this one, whose own fields are state (snapshots walk into it)
    bending: Bending | None = field(default=None, compare=False, metadata=HELD)
    compliance: Compliance | None = field(default=None, compare=False, metadata=HELD)
    breaking: Breaking | None = field(default=None, compare=False, metadata=HELD)
    attachments: Attachments | None = field(default=None, compare=False, metadata=HELD)
    contact: SelfContact | None = field(default=None, compare=False, metadata=HELD)
    sleep: Sleep | None = field(default=None, compare=False, metadata=HELD)

    @property
    def awake(self) -> bool:
        return self.sleep is None or not self.sleep.asleep
