"""Newton's cradle hands its momentum down the line: the lifted ball swings in, stops, and the far
ball swings out while the ones between barely move; with restitution 0 the row moves on together."""
from __future__ import annotations

import numpy as np

from ropework.components.collider import Colliders
from tests.game.composites import scene_of

SWING = 110   # steps: the first ball falls in (~45 steps) and the last swings out to its height and back


def excursions(tmp_path, keys=""):
    """(the lifted ball's start offset from its rest, each ball's largest offset over the first swing), px."""
    scene = scene_of(tmp_path, f'[[layer]]\nkind = "cradle"\n{keys}')
    try:
        col = scene.find(Colliders)[0][1]
        rest = 640 + (np.arange(5) - 2) * 40.5                 # at [0.5, …] of 1280 px, 40.5 px apart
        lifted = np.abs(col.centre[:, 0] - rest).max()
        most = np.zeros(5)
        for _ in range(SWING):
            scene.step(1)
            most = np.maximum(most, np.abs(col.centre[:, 0] - rest))
        return lifted, most
    finally:
        scene.close()


def test_the_momentum_passes_down_the_line(tmp_path):
    lifted, most = excursions(tmp_path)
    assert lifted > 90                              # 30° of a 180 px string: ~100 px aside
    assert most[4] > 0.7 * lifted                   # the far ball swings out most of the way (measured 79 %)
    assert most[1:4].max() < 0.05 * lifted          # the three between stay put (measured < 2 %)


def test_lifted_on_the_other_side_it_runs_the_other_way(tmp_path):
    lifted, most = excursions(tmp_path, "lift = -30\n")
    assert most[0] > 0.7 * lifted and most[1:4].max() < 0.05 * lifted


def test_with_restitution_0_the_row_moves_on_together(tmp_path):
    _, most = excursions(tmp_path, "restitution = 0\n")
    assert most[4] < 0.5 * most[0]                  # no clean hand-on: the far ball goes a short way,
    assert most[1:4].min() > 5                      # and the ones between move with it
