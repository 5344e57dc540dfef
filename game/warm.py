"""Compile every shipped level's kernels now: ``python -m ropework.warm``.

Each kernel compiles on its first call and is then cached on disk
(`ropework.systems.services.kernels`), so running this once after installing
spares the first game its compile. scripts/setup.sh runs it for a checkout.
"""
from __future__ import annotations

import os
import time

os.environ.setdefault("ARCADE_HEADLESS", "1")   # the scenes are stepped, not drawn


def main() -> int:
    from ropework.level import load, shipped
    from ropework.scene import warm
    t0 = time.perf_counter()
    for path in shipped():
        warm(load(path))
    print(f"ropework: kernels ready ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
