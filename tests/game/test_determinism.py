"""Same level + seed + scripted input ⇒ the same state, bit for bit, after 10,000 steps.

Every shipped level is driven by the scripted hand (game/testing/drive.py: grabs, drags, throws,
clicks, swipes, focus loss, idle spells) and its final `Scene.state_hash()` must equal the
one committed in tests/determinism_hashes.json. A level with no hash fails until one is made.

Regenerate with ``python -m tests.regen_hashes`` (all levels) or
``python -m tests.regen_hashes rope.toml`` (one) — ONLY with a change meant to alter the
physics, and say so in its commit message (docs/reliability.md). A hash that moves without
such a change is a determinism bug: unseeded randomness, iteration over a set or dict whose
order varies, uninitialised memory, or a step that depends on wall-clock time.
"""
from __future__ import annotations

import pytest

from ropework import level
from tests import regen_hashes as rh

CHECK = 2_000   # steps of the second, in-process run compared against the first


def test_every_shipped_level_has_a_hash():
    committed = rh.load().get("hashes", {})
    shipped = {p.name for p in level.shipped()}
    assert shipped - set(committed) == set(), "new levels without a hash: run python -m tests.regen_hashes"
    assert set(committed) - shipped == set(), "hashes for removed levels: run python -m tests.regen_hashes"
    assert rh.load()["size"] == list(rh.SIZE) and rh.load()["steps"] == rh.STEPS


@pytest.mark.parametrize("path", level.shipped(), ids=lambda p: p.name)
def test_state_after_10000_steps_matches_the_committed_hash(path):
    committed = rh.load().get("hashes", {}).get(path.name)
    first = rh.run(path, rh.STEPS, checkpoints=(CHECK,))
    second = rh.run(path, CHECK)                       # a second run in the same process
    assert second[CHECK] == first[CHECK], "two runs in one process differ"
    assert committed is not None, f"no committed hash for {path.name}: python -m tests.regen_hashes {path.name}"
    assert first[rh.STEPS] == committed, (
        f"{path.name}: state after {rh.STEPS} steps changed. If the physics was meant to change, "
        f"run `python -m tests.regen_hashes {path.name}` and say so in the commit; otherwise it is a "
        "determinism bug")


def test_a_different_seed_gives_a_different_state():
    """The hash sees the state: tendrils draw their bundle from the seed."""
    from ropework.scene import Scene
    a, b = (Scene.load(level.LEVELS_DIR / "tendrils.toml", size=rh.SIZE, seed=s) for s in (0, 1))
    try:
        a.step(10)
        b.step(10)
        assert a.state_hash() != b.state_hash()
    finally:
        a.close()
        b.close()
