"""Rope topology: which runs of a body's points form chains."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Ropes:
    """Chains laid out contiguously in a body's `Points`.

    start, count: int32[r] — rope j is points ``start[j] : start[j] + count[j]``,
    point 0 at the anchor end and the last point at the tip.
    """

    start: np.ndarray
    count: np.ndarray

    @property
    def tips(self) -> np.ndarray:
        """int32[r]: index of each rope's last point."""
        return self.start + self.count - 1

    @classmethod
    def of_counts(cls, counts) -> Ropes:
        count = np.asarray(counts, dtype=np.int32)
        start = np.zeros_like(count)
        np.cumsum(count[:-1], out=start[1:])
        return cls(start=start, count=count)

    def chain_constraints(self):
        """(a, b) int32[m]: the segments of every rope, in order along each rope."""
        idx = np.arange(int(self.count.sum()), dtype=np.int32)
        is_last = np.zeros(len(idx), bool)
        is_last[self.tips] = True
        a = idx[~is_last]
        return a, a + 1
