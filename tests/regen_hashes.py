"""Regenerate the determinism hashes: ``python -m tests.regen_hashes [LEVEL.toml ...]``.

Runs every shipped level (or the ones named) for `STEPS` fixed steps at `SIZE` with the
level's own seed, driven by the scripted hand of game/testing/drive.py, and writes each final
`Scene.state_hash()` to tests/determinism_hashes.json; tests/game/test_determinism.py
checks them. Regenerate ONLY with a change that is meant to alter the physics (a new
level, retuned constants, a changed system), and say so in that change's commit message;
a hash that moves otherwise is a determinism bug. See docs/reliability.md.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("ARCADE_HEADLESS", "1")

HASHES = Path(__file__).resolve().parent / "determinism_hashes.json"
SIZE = (800, 600)   # px: the window every hash is taken at
STEPS = 10_000      # fixed steps per level: almost three minutes of play, seventeen cycles of the hand


def run(path, steps: int = STEPS, checkpoints=()) -> dict[int, str]:
    """{step: state hash} after each checkpoint step and after ``steps`` steps."""
    from ropework.scene import Scene
    from ropework.testing.drive import Hand
    scene = Scene.load(path, size=SIZE)
    hand = Hand(*SIZE)
    out = {}
    try:
        marks = set(checkpoints) | {steps}
        for i in range(steps):
            hand.apply(scene, i)
            scene.step(1)
            if i + 1 in marks:
                out[i + 1] = scene.state_hash()
    finally:
        scene.close()
    return out


def load() -> dict:
    return json.loads(HASHES.read_text()) if HASHES.exists() else {}


def main(argv=None) -> int:
    from ropework import level
    names = (argv if argv is not None else sys.argv[1:]) or [p.name for p in level.shipped()]
    data = load()
    hashes = {} if not (argv or sys.argv[1:]) else dict(data.get("hashes", {}))
    for name in names:
        path = level.LEVELS_DIR / Path(name).name
        t0 = time.perf_counter()
        hashes[path.name] = run(path)[STEPS]
        print(f"{path.name:20s} {hashes[path.name][:16]}…  ({time.perf_counter() - t0:.1f} s)", flush=True)
    data = {"size": list(SIZE), "steps": STEPS, "seed": "each level's own", "input": "game/testing/drive.py Hand",
            "hashes": dict(sorted(hashes.items()))}
    HASHES.write_text(json.dumps(data, indent=2) + "\n")
    print(f"wrote {HASHES}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
