"""Project: relax a body that has solve extras — bending, XPBD compliance with substeps,
attachments, self-contact — each solved inside every pass with the links, then break what
stretched too far.

Reads: Points, Constraints, Bounds, Forces, Extras, Frame.dt. Writes: Points.pos/prev,
Constraints (fewer links after a break), Extras' arrays (a break's, the contacts' scratch, Sleep).

Called by relax for each awake body with `Extras` (a body without them is relaxed as the seeds
are, bit for bit). Two ways through a step:

- passes (no `Compliance`): `passes` times, one Gauss–Seidel sweep of the links (the seeds'
  solver, its share rule and order), then the bends with verlet-js's step coefficient
  1 / passes, the attachments, the contacts and the box clamp. More passes, stiffer, as before.
- substeps (`Compliance`): integrate has left this body alone; the step is cut into `substeps`
  substeps of h = dt / substeps, each integrating with damping^(1/substeps) and then solving every
  link once by XPBD (Ten Minute Physics' small steps), then the bends (coefficient 1 / substeps), the
  attachments, the contacts, the clamp. A link's stretch then follows its compliance and the
  substep count, not `passes`, which this path does not read.

A declared constraint type's own bodies (dynamic colliders) take their step before the passes
and their velocity corrections after (`solver.ConstraintType.advance`, ``finish``), once a step on
either path. Last, `settle` counts the body's still steps toward sleep.

Breaking runs last, on the lengths the solve left: a link longer than its ratio × rest is
removed (and the bends across it) when no link sharing a point with it is stretched further —
so a yanked rope snaps at one place rather than shattering, and a cloth tears along a line — an attachment whose force passed its limit let go. Force of an
attachment: its correction over the step, over (w · dt²) — mass · px/s², a free point weighing 1.
"""
from __future__ import annotations

import numpy as np

from ropework.components.solve import Extras
from ropework.systems.integrate import integrate
from ropework.systems.relax import big, clamp, relax_body, schedule, solve_near
from ropework.systems.services import contact
from ropework.systems.services import projections as pj
from ropework.systems.services.settle import settle

CONTACT_REACH = 1.5   # pairs are gathered once a step out to this many contact gaps (2 radii): room for the step's motion
PAIRS_PER_POINT = 8   # contact pairs kept per point at most: a pile's neighbours in a plane, with room
_NO_EXTRA = np.zeros((0, 2), np.float32)
_NONE = np.zeros(0, np.int32)


def project(pts, con, lo, hi, forces, ex: Extras, dt: float, table=()) -> np.ndarray:
    """One step of a body with extras, in place (see the module's docstring). Returns the first
    points (a) of the links that broke this step (mostly none). ``table``: the body's declared
    constraint types (`solver.ConstraintType`, its component's arrays, the component), solved
    after the extras in every pass, their ``advance`` and ``begin`` once before the passes and
    their ``finish`` once after."""
    for t, _, comp in table:
        if t.advance is not None:
            t.advance(comp, forces, dt)
    touch = _lanes(pts, con, ex, table)      # when taken, its broad phase is the colliders' begin
    for t, args, _ in table:
        if t.begin is not None and touch is None:
            t.begin(pts.pos, pts.prev, pts.inv_mass, *args)
    if ex.contact is not None:
        _gather(pts, ex.contact)
    pulls = np.zeros(len(ex.attachments.frac), np.float32) if ex.attachments is not None else None
    if ex.compliance is None:
        passes = max(int(con.passes), 0)
        near = _near(ex, table)
        if near is not None and solve_near(pts, con, lo, hi, passes, near,
                                           lambda: _each_pass(pts, table, near, lo, hi), touch):
            passes = 0                        # solved: the links away from the contacts fused
        every = np.arange(len(pts.pos), dtype=np.int32) if lo is not None and passes > 0 else None
        for _ in range(passes):
            relax_body(pts, con, lo, hi, 1)
            _extras(pts, ex, 1.0 / passes, pulls, table)
            if every is not None:
                clamp(pts.pos, pts.inv_mass, every, lo, hi)
        per_force = dt * dt
    else:
        n = ex.compliance.substeps
        h = dt / n
        damping = np.float32(forces.damping ** (1.0 / n))
        extra = forces.extra if forces.extra is not None else _NO_EXTRA
        every = np.arange(len(pts.pos), dtype=np.int32) if lo is not None else None
        pts.prev[:] = pts.pos - (pts.pos - pts.prev) / np.float32(n)
        for _ in range(n):
            integrate(pts.pos, pts.prev, pts.inv_mass, forces.gravity, extra, damping, h)
            pj.xpbd_distance(pts.pos, pts.inv_mass, con.a, con.b, con.rest, ex.compliance.compliance, h)
            _extras(pts, ex, 1.0 / n, pulls, table)
            if every is not None:
                clamp(pts.pos, pts.inv_mass, every, lo, hi)
        pts.prev[:] = pts.pos - (pts.pos - pts.prev) * np.float32(n)
        per_force = n * h * h                 # the substeps' corrections, averaged
    moved = 0.0                               # px: the farthest a type's own body moved this step
    for t, _, comp in table:
        if t.finish is not None:
            moved = max(moved, t.finish(comp, pts, forces, dt, per_force) or 0.0)
    broken = _break(pts, con, ex, pulls, per_force)
    settle(pts, ex, moved)
    return broken


def split_ropes(ropes, style, broken: np.ndarray) -> None:
    """Cut a rope body's `Ropes` (and its `RopeStyle`, each piece in its rope's colour and width)
    after each point of ``broken`` whose link to the next point broke, so each piece is drawn
    as its own stroke, its end dots only where its rope's tip and anchor went."""
    n = int(ropes.start[-1] + ropes.count[-1]) if len(ropes.start) else 0
    cuts = broken[(broken + 1 < n)] + 1
    start = np.union1d(ropes.start, cuts).astype(np.int32)
    if len(start) == len(ropes.start):
        return
    origin = np.searchsorted(ropes.start, start, side="right") - 1
    ropes.start, ropes.count = start, np.diff(np.r_[start, n]).astype(np.int32)
    if style is not None:
        first = np.r_[True, origin[1:] != origin[:-1]]     # the piece that kept its rope's anchor
        last = np.r_[origin[1:] != origin[:-1], True]      # the piece that kept its tip
        tip = last if style.tip is None else last & style.tip[origin]
        anchor = first if style.anchor is None else first & style.anchor[origin]
        style.colour, style.width, style.tip, style.anchor = style.colour[origin], style.width[origin], tip, anchor


def _extras(pts, ex: Extras, coef: float, pulls, table=()) -> None:
    """The bends, attachments and contacts, then the declared constraint types, once."""
    b = ex.bending
    if b is not None and b.tri.shape[1]:
        pj.bend(pts.pos, pts.inv_mass, b.tri, b.angle, b.stiffness, coef)
    at = ex.attachments
    if at is not None and len(at.frac):
        pj.attach(pts.pos, pts.inv_mass, at.at, at.frac, at.pull)
        pulls += at.pull
    c = ex.contact
    if c is not None and c.m:
        pj.collide_pairs(pts.pos, pts.inv_mass, c.pairs, c.m, np.float32(2.0 * c.radius))
    for t, args, _ in table:
        t.project(pts.pos, pts.prev, pts.inv_mass, *args)


def _near(ex: Extras, table) -> np.ndarray | None:
    """The only points a pass's work besides the links can move this step (the declared types'
    `near`, after their begin), or None when it may move any: bends, attachments, self-contact."""
    if ex.bending is not None or ex.attachments is not None or ex.contact is not None or not table:
        return None
    parts = []
    for t, args, _ in table:
        if t.near is None:
            return None
        parts.append(t.near(*args))
    return parts[0] if len(parts) == 1 else np.unique(np.concatenate(parts)).astype(np.int32)


def _lanes(pts, con, ex: Extras, table) -> tuple | None:
    """The colliders' contacts solved inside the lane kernels of the body's chain groups
    (`relax.solve_near`'s ``touch``, its arguments), after `contact.others_near` has run as the
    broad phase of the points in none; or None, and the colliders' own ``begin`` and `push` take
    every point: a body with other extras or types, 3-D or `big`, without chain groups, or whose
    colliders move as bodies or hold points (their corrections are shared with a collider, which
    lanes cannot do at once)."""
    if (len(table) != 1 or table[0][0] is not contact.COLLIDERS or ex.bending is not None
            or ex.attachments is not None or ex.contact is not None or ex.compliance is not None):
        return None
    _, args, col = table[0]
    if col.inv_mass is not None or col.hold is not None or pts.pos.shape[1] != 2:
        return None
    schedule(con, pts.pos.shape)
    s = con.schedule
    if big(s.n) or (s.paths[0] is None and s.paths[1] is None):
        return None
    groups, _, _, _, free, loose = s.views
    if s.others is None:
        s.others = np.union1d(free, loose).astype(np.int32)
    if len(s.others):
        contact.others_near(pts.pos, pts.prev, pts.inv_mass, *args[:18], s.others)
    else:
        args[17][0] = 0                       # count: no point is near
    pr = args[9]
    rmax = np.float64(pr.max()) if len(pr) else np.float64(0.0)
    scratch = contact.row_scratch(col, groups)
    scratch[-1][0] = 0                        # met: counted afresh by this step's lane kernels
    return (pts.prev, pr, *scratch, *args[:9], args[11], args[10], rmax)


def _each_pass(pts, table, near, lo, hi) -> None:
    """A pass's declared types, then the box clamp of the points they may have moved."""
    for t, args, _ in table:
        t.project(pts.pos, pts.prev, pts.inv_mass, *args)
    if lo is not None and len(near):
        clamp(pts.pos, pts.inv_mass, near, lo, hi)


def _gather(pts, c) -> None:
    """This step's contact pairs, by the grid (scratch made once, for the body's size)."""
    n = len(pts.pos)
    if c.items is None or len(c.items) != n:
        c.start = np.zeros(2 * n + 2, np.int32)     # cells: at most twice the points, and one
        c.cell = np.zeros(n, np.int32)
        c.items = np.zeros(n, np.int32)
        c.sort = np.zeros((4, n), np.float32)
        c.pairs = np.zeros((2, PAIRS_PER_POINT * n), np.int32)
    gap = 2.0 * c.radius
    c.m = int(pj.near_pairs(pts.pos, c.rest, np.float32(gap * CONTACT_REACH), np.float32(gap),
                            c.start, c.cell, c.items, c.sort, c.pairs))


def _break(pts, con, ex: Extras, pulls, per_force: float) -> np.ndarray:
    """Remove the links stretched past their ratio and the attachments pulled past their force
    (a step's corrections, px, over w · per_force); the broken links' first points."""
    br = ex.breaking
    broken = _NONE
    if br is not None and len(con.a):
        d = np.linalg.norm(pts.pos[con.b] - pts.pos[con.a], axis=1)
        over = np.where(br.ratio > 0, d / np.maximum(con.rest * br.ratio, 1e-30), 0.0)   # > 1: past its ratio
        keep = over <= 1.0
        if not keep.all():    # of a run of links past their ratio, only the most stretched gives (as a real rope
            top = np.zeros(len(pts.pos))   # snaps once, and the rest go slack): those at least as stretched as
            np.maximum.at(top, con.a, over)   # every link sharing a point with them
            np.maximum.at(top, con.b, over)
            keep = keep | (over < top[con.a]) | (over < top[con.b])
            if br.group is not None:           # a rope: one place a step, its most stretched
                cand = np.flatnonzero(~keep)
                first = cand[np.lexsort((-over[cand], br.group[cand]))]
                _, at = np.unique(br.group[first], return_index=True)
                keep[:] = True
                keep[first[at]] = False
        if not keep.all():    # arrays are only rebuilt on the step something breaks
            broken = con.a[~keep]
            con.a, con.b, con.rest = con.a[keep], con.b[keep], con.rest[keep]
            br.ratio = br.ratio[keep]
            if br.group is not None:
                br.group = br.group[keep]
            if ex.compliance is not None:
                ex.compliance.compliance = ex.compliance.compliance[keep]
            b = ex.bending
            if b is not None:
                new = np.cumsum(keep) - 1             # old link index → new
                alive = keep[b.links].all(axis=0)
                b.tri, b.angle, b.stiffness = b.tri[:, alive], b.angle[alive], b.stiffness[alive]
                b.links = new[b.links[:, alive]].astype(np.int32)
    at = ex.attachments
    if at is not None and len(at.frac) and (at.break_force > 0).any():
        w = pts.inv_mass[at.at[0]] + (1 - at.frac) ** 2 * pts.inv_mass[at.at[1]] + at.frac ** 2 * pts.inv_mass[at.at[2]]
        force = pulls / np.maximum(w, 1e-12) / np.float32(per_force)
        keep = (at.break_force == 0) | (force <= at.break_force)
        if not keep.all():
            at.at, at.frac, at.break_force, at.pull = at.at[:, keep], at.frac[keep], at.break_force[keep], at.pull[keep]
    return broken
