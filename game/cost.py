"""How far from real time a level will run on a machine like the benchmark's, from its counts alone.

`validate` warns with this (a level is still valid): a 1,000-by-1,000 cloth loads, and then
runs at 0.3 frames per second. The figures are docs/performance.md's, measured by bench/ on
this project's machine class (2 cores, software GL drawing); each constant says where it is from.
Nothing here builds a scene, imports a kernel or opens GL: it counts what the level asks for.

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
RELAX_NS_CHAIN = 1.8      # ns per link per pass for ropes, relaxed in SIMD lanes: W4's kernel 1.38 ms / 780,000
RELAX_NS_MESH = 8.1       # ns per link per pass for a cloth or other graph (level order):
                          # the 100 x 100 cloth's kernel 2.24 ms / (19,800 links x 14 passes)
DRAW_NS_LINK = 830.0      # GL ns per cloth link drawn at 1280x720: cloth.toml's draw_links 2.47 ms / 2,992 links
DRAW_NS_STROKE = 410.0    # GL ns per rope segment stroked: the 100,000-point scene's strokes 40.05 ms / 97,500
DRAW_NS_DOT = 80.0        # GL ns per dot: dotgrid.toml's draw_dots 0.41 ms / 5,184 dots
FAR = 0.5                 # warn below this fraction of real time: the toy visibly moves in slow motion


@dataclass(frozen=True)
class Work:
    """What a layer costs a step and a frame, counted from its keys (a Kind's ``work``)."""
    links: int = 0                 # distance constraints
    passes: int = 0                # relaxation passes per step over them
    relax_ns: float = RELAX_NS_CHAIN   # ns per link per pass: RELAX_NS_CHAIN or RELAX_NS_MESH
    draw_ns: float = 0.0           # GL ns per frame to draw the layer


@dataclass(frozen=True)
class Estimate:
    points: int
    link_passes: int               # links x passes, every layer, per step
    step_ms: float
    draw_ms: float

    @property
    def speed(self) -> float:
        """Estimated fraction of real time the toy keeps (1.0: real time)."""
        budget = MAX_FRAME_DT * 1000.0                   # ms of frame that 3 steps may fill
        step_budget = STEP * 1000.0
        if self.step_ms < step_budget and self.draw_ms / (1.0 - self.step_ms / step_budget) <= budget:
            return 1.0
        return min(1.0, budget / (self.draw_ms + 3 * self.step_ms))


def estimate(lv, size: tuple[float, float] = (1280, 720)) -> Estimate:
    """The level's step and frame cost on the benchmark's machine class, from each layer's counts."""
    from ropework import kinds
    points = link_passes = 0
    step_ns = draw_ns = 0.0
    for cfg in lv.layers:
        k = kinds.KINDS[cfg["kind"]]
        n = k.points(cfg, *size)
        w = k.work(cfg, *size)
        points += n
        link_passes += w.links * w.passes
        step_ns += n * NS_PER_POINT + w.links * w.passes * w.relax_ns
        draw_ns += w.draw_ns
    return Estimate(points, link_passes, step_ns / 1e6, draw_ns / 1e6)


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
