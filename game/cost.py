"""How long a level's steps and start take on a machine like the benchmark's, from its counts alone.

`validate` warns when a level will run far from real time (it is still valid): a 1,000-by-1,000
cloth loads, and then runs at 0.3 frames per second. Past `MAX_STEP_MS` a step, or `MAX_START_MS`
of work before the first step, the loader refuses the level (`check`, one line naming the layer
that costs most, with the estimated and allowed ms): such a level would take minutes to start or
seconds a step, and the window would not answer meanwhile. Each kind counts what multiplies its
work (`Work`): points, links and passes, substeps, bends, self-contact, attachments, colliders, a
strap laid at rest, live rings. The figures were measured on this project's machine class (2 cores,
software GL drawing; docs/performance.md and docs/reliability.md's table); each constant says what
it was measured on. Nothing here builds a scene, imports a kernel or opens GL.

Real time: 60 fixed steps a second. A frame runs at most 3 steps (clock.MAX_FRAME_DT = 0.05 s),
so a frame of ``draw + n·step`` keeps up while the steps fit a 1/60 s each and the frame
stays within 0.05 s; past that the toy runs slower than life by 0.05 s / (draw + 3·step).
"""
from __future__ import annotations

from dataclasses import dataclass

from ropework.clock import MAX_FRAME_DT
from ropework.components.frame import STEP

NS_PER_POINT = 7.3        # ns per point per step outside the relax passes (integrate, bounds, gather):
                          # the 100,000-point rope scene's 1.9 ms step less its 780,000 link·passes at 1.5 ns
RELAX_NS_CHAIN = 1.0      # ns per link per pass for ropes, relaxed in SIMD lanes and shared by the two cores'
                          # threads: 1,000 ropes of 58 points, 100 passes, 5.4 ms a step (W4's kernel alone, on
                          # one thread: 1.38 ms / 780,000 = 1.8)
RELAX_NS_MESH = 8.1       # ns per link per pass for a cloth or other graph (level order):
                          # the 100 x 100 cloth's kernel 2.24 ms / (19,800 links x 14 passes)
RELAX_NS_STRAP = 22.0     # ns per link per pass of a lanyard's 3-D strap: 500 nodes x 500 passes, 5.5 ms a step
HANG_NS_LINK = 30.0       # ns per link per pass of a strap laid at rest (`hang_at_rest`, 600 strap steps; the
                          # level-order kernel): 32 straps of 100 nodes x 44 passes, 3.0 s with the machine busy
                          # (31 ns); x 25 passes, 1.03 s quiet (21 ns)
HANG_STEP_NS = 6_000.0    # ns per strap step of that hang besides its links (two kernel calls): 8 default straps, 50 ms
CARD_STEP_NS = 200_000.0  # ns per step of a lanyard besides its strap (card spring, grab, camera, in Python):
                          # 32 default lanyards, 0.29 ms each; 8, 0.19; one alone, 0.06 to 0.11
SWEEP_NS = 10_000.0       # ns per pass (or substep) of a body with solve extras or colliders: the Python
                          # between its kernel calls (cloth 100 x 100, sleep, 200 passes: 42 µs a pass less its clamp)
CLAMP_NS_POINT = 3.0      # ns per point per pass of such a body: its box clamp, every pass rather than once
SUBSTEP_NS_POINT = 9.0    # ns per point per XPBD substep (integrate and clamp): cloth 100 x 100, 8 and 64
XPBD_NS_LINK = 7.0        # ns per link per XPBD substep          substeps, 0.244 ms each; 100 ropes, 0.107 ms
BEND_NS = 32.0            # ns per bend (three neighbours) per pass: cloth 100 x 100, 41; 100 ropes, 16
CONTACT_NS_POINT = 12.0   # ns per point per pass of self-contact (its pairs): cloth 100 x 100, 11; 100 ropes, 9
GATHER_NS_POINT = 40.0    # ns per point per step to gather those pairs (the grid): cloth 100 x 100, 38; 100 ropes, 37
ATTACH_NS = 20.0          # ns per attachment per pass
COLLIDER_NS_POINT = 2.5   # ns per point per collider per pass: 16 circles on a 100 x 100 cloth, 2.4; boxes, 1.4
POLYGON_CORNERS = 16      # a polygon costs a circle's time per this many corners (64 corners: 4 circles, measured)
TENDRIL_NS_POINT = 25.0   # ns per tendril point per step besides integrate and relax (wind, orbit, blow, sparks):
                          # 1,000 tendrils of 200 points, 20 passes, 10.7 ms a step
RING_NS_DOT = 1.3         # ns per dot per live click ring: 57,600 dots under 52 rings, 1.26; 230,400, 1.10
DRAW_NS_LINK = 830.0      # GL ns per cloth link drawn at 1280x720: cloth.toml's draw_links 2.47 ms / 2,992 links
DRAW_NS_STROKE = 410.0    # GL ns per rope segment stroked: the 100,000-point scene's strokes 40.05 ms / 97,500
DRAW_NS_DOT = 80.0        # GL ns per dot: dotgrid.toml's draw_dots 0.41 ms / 5,184 dots
FAR = 0.5                 # warn below this fraction of real time: the toy visibly moves in slow motion
MAX_STEP_MS = 250.0       # a level estimated to step slower than this is refused: a frame (up to 3 steps) then
                          # takes under a second, so the window still answers a key; a 1,000 x 1,000 cloth at
                          # 14 passes (≈ 234 ms) is just inside
MAX_START_MS = 2000.0     # ms of work building a level before its first step (straps laid at rest, counted
                          # whether or not reduced motion is on: the M key lays them again) at most
FACTOR = 2.0              # the estimate is within this factor of the measured step, either way, on the
                          # calibration levels (tests/game/test_cost.py's table)


@dataclass(frozen=True)
class Work:
    """What a layer costs a step, a frame and its start, counted from its keys (a Kind's ``work``)."""
    links: int = 0                 # distance constraints
    passes: int = 0                # sweeps per step over them: relaxation passes, or XPBD substeps
    relax_ns: float = RELAX_NS_CHAIN   # ns per link per sweep: RELAX_NS_CHAIN, _MESH, _STRAP or XPBD_NS_LINK
    draw_ns: float = 0.0           # GL ns per frame to draw the layer
    step_ns: float = 0.0           # ns per step of everything else its keys ask for (`solve_ns`, a card, rings)
    start_ns: float = 0.0          # ns of work building the layer before its first step (a strap laid at rest)


@dataclass(frozen=True)
class Estimate:
    points: int
    link_passes: int               # links x passes, every layer, per step
    step_ms: float
    draw_ms: float
    start_ms: float = 0.0          # work building the layers before the first step
    worst: int = 0                 # the layer whose step (or start) costs most

    @property
    def speed(self) -> float:
        """Estimated fraction of real time the toy keeps (1.0: real time)."""
        budget = MAX_FRAME_DT * 1000.0                   # ms of frame that 3 steps may fill
        step_budget = STEP * 1000.0
        if self.step_ms < step_budget and self.draw_ms / (1.0 - self.step_ms / step_budget) <= budget:
            return 1.0
        return min(1.0, budget / (self.draw_ms + 3 * self.step_ms))


def solve_ns(cfg: dict, points: int, bends: int) -> tuple[int, float | None, float]:
    """(sweeps over the links, ns per link per sweep, other ns per step) of a ropes or cloth layer
    of ``points`` (``bends``: the triples its `bend` keys would bend) from its solve keys and
    colliders, as `ropework.systems.project` runs it. The ns per link is None for the seeds'
    passes: the kind knows their cost (chain lanes or level order); XPBD_NS_LINK for substeps."""
    colliders = sum(max(1.0, len(c.get("points") or ()) / POLYGON_CORNERS) for c in cfg.get("collider") or ())
    rope_bend = any(r.get("bend", 0.0) not in (0.0, float("inf")) for r in cfg.get("rope") or ())
    extras = bool(cfg.get("bend") or rope_bend or cfg.get("substeps") or cfg.get("break_at")
                  or cfg.get("self_collide") or cfg.get("sleep") or cfg.get("attach") or colliders)
    per_sweep = 0.0
    if cfg.get("bend") or rope_bend:
        per_sweep += bends * BEND_NS
    if cfg.get("self_collide"):
        per_sweep += points * CONTACT_NS_POINT
    per_sweep += len(cfg.get("attach") or ()) * ATTACH_NS + points * colliders * COLLIDER_NS_POINT
    per_step = points * GATHER_NS_POINT if cfg.get("self_collide") else 0.0
    if cfg.get("substeps"):
        n = cfg["substeps"]
        return n, XPBD_NS_LINK, per_step + n * (per_sweep + points * SUBSTEP_NS_POINT + SWEEP_NS)
    passes = cfg["passes"]
    if extras:
        per_sweep += points * CLAMP_NS_POINT + SWEEP_NS
    return passes, None, per_step + passes * per_sweep


def estimate(lv, size: tuple[float, float] = (1280, 720)) -> Estimate:
    """The level's step, frame and start cost on the benchmark's machine class, from each layer's counts."""
    return estimate_layers(lv.layers, size)


def estimate_layers(layers, size: tuple[float, float] = (1280, 720)) -> Estimate:
    """`estimate` of a level's validated layer tables."""
    from ropework import kinds
    points = link_passes = 0
    step_ns = draw_ns = start_ns = 0.0
    worst, worst_ns = 0, -1.0
    for i, cfg in enumerate(layers):
        k = kinds.KINDS[cfg["kind"]]
        n = k.points(cfg, *size)
        w = k.work(cfg, *size)
        points += n
        link_passes += w.links * w.passes
        layer_ns = n * NS_PER_POINT + w.links * w.passes * w.relax_ns + w.step_ns
        step_ns += layer_ns
        draw_ns += w.draw_ns
        start_ns += w.start_ns
        if max(layer_ns / MAX_STEP_MS, w.start_ns / MAX_START_MS) > worst_ns:
            worst, worst_ns = i, max(layer_ns / MAX_STEP_MS, w.start_ns / MAX_START_MS)
    return Estimate(points, link_passes, step_ns / 1e6, draw_ns / 1e6, start_ns / 1e6, worst)


def check(layers, path, size: tuple[float, float] = (1280, 720)) -> None:
    """Raise the one-line LevelError when the layers would step slower than `MAX_STEP_MS` or take
    longer than `MAX_START_MS` to build, on this machine class; it names the costliest layer."""
    from ropework.schema import LevelError
    e = estimate_layers(layers, size)
    what = f"{e.points:,} points, {e.link_passes:,} link-passes a step"
    if e.step_ms > MAX_STEP_MS:
        raise LevelError(path, f"layer[{e.worst}]", f"expected a level that steps in at most {MAX_STEP_MS:.0f} ms "
                         f"on a 2-core machine like the benchmark's, found about {e.step_ms:,.0f} ms a step "
                         f"({what}; docs/reliability.md, Work bounds)")
    if e.start_ms > MAX_START_MS:
        raise LevelError(path, f"layer[{e.worst}]", f"expected a level that starts with at most {MAX_START_MS:.0f} ms "
                         f"of work on a 2-core machine like the benchmark's, found about {e.start_ms:,.0f} ms "
                         f"(straps laid at rest, as reduced motion lays them; docs/reliability.md, Work bounds)")


def warning(lv, size: tuple[float, float] = (1280, 720)) -> str | None:
    """One line when the level will run far from real time here, else None."""
    e = estimate(lv, size)
    if e.speed >= FAR:
        return None
    fps = 1000.0 / (e.draw_ms + 3 * e.step_ms)
    return (f"warning: about {1 / e.speed:.0f}x slower than real time on a 2-core machine like the "
            f"benchmark's (docs/performance.md): {e.points:,} points and {e.link_passes:,} link-passes a step "
            f"≈ {e.step_ms:.1f} ms a step (real time needs ≤ {STEP * 1000:.1f}), drawing ≈ {e.draw_ms:.0f} ms; "
            f"≈ {fps:.1f} frames a second")
