"""The standard rope workloads W1–W5 of ../shared/perf/WORKLOADS.md, built for every contender.

Rope r (0-based) has n_r points; its anchor is (40 + spacing·r, 60) and it is laid out
straight along DIRS[r mod 4], point j at anchor + dir·j·L, previous position = position,
point 0 pinned. Only + and × are used, so every contender starts from the same numbers.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DT = 1 / 60            # s: the fixed step every contender advances by
GRAVITY = (0.0, 900.0)  # px/s², y down: the seeds' pull
DAMPING = 0.995        # fraction of the implied velocity kept per step (Verlet history)
ANCHOR = (40.0, 60.0)  # px: rope 0's anchor; rope r's is shifted right by r·spacing
DIRS = ((1.0, 0.0), (0.8, 0.6), (-0.6, 0.8), (0.6, -0.8))  # unit directions the ropes start along, cycled
STIFFNESS_STEPS = 600  # steps after which the stretch is compared (10 s of scene time)


@dataclass(frozen=True)
class Workload:
    id: str
    name: str
    counts: tuple[int, ...]   # points per rope
    rest: float               # L: segment rest length, px
    passes: int               # K: Gauss–Seidel passes per step
    spacing: float            # px between neighbouring anchors

    @property
    def points(self) -> int:
        return sum(self.counts)

    @property
    def ropes(self) -> int:
        return len(self.counts)

    def rope_ids(self, stride: int = 1) -> list[int]:
        """Every ``stride``-th rope. Ropes never touch, so a subset steps exactly as it
        does inside the whole; an odd stride still visits all four DIRS."""
        return list(range(0, self.ropes, stride))

    def layout(self, ropes: list[int] | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Initial (x, y) float64[n_r] per rope, in the listed order (all ropes by default)."""
        out = []
        for r in range(self.ropes) if ropes is None else ropes:
            ax, ay = ANCHOR[0] + self.spacing * r, ANCHOR[1]
            cx, cy = DIRS[r % len(DIRS)]
            j = np.arange(self.counts[r], dtype=np.float64)
            out.append((ax + cx * j * self.rest, ay + cy * j * self.rest))
        return out


WORKLOADS = (
    Workload("W1", "verlet rope", (20, 27, 22), 11.0, 14, 150.0),
    Workload("W2", "tendrils", (38,) * 16, 8.0, 4, 40.0),
    Workload("W3", "scale 10k", (40,) * 256, 8.0, 8, 30.0),
    Workload("W4", "scale 100k", (40,) * 2500, 8.0, 8, 30.0),
    Workload("W5", "scale 1M", (40,) * 25000, 8.0, 8, 30.0),
)


def stretch(xy: list[tuple[np.ndarray, np.ndarray]], rest: float) -> tuple[float, float]:
    """(max, mean) of |segment length − rest| / rest over every segment, in % of rest."""
    s = np.concatenate([np.hypot(np.diff(np.asarray(x, np.float64)), np.diff(np.asarray(y, np.float64)))
                        for x, y in xy])
    s = np.abs(s - rest) / rest * 100.0
    return float(s.max()), float(s.mean())
