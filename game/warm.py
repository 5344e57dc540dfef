"""``python -m ropework.warm``: compile every shipped level's kernels now (``--plan``: write the plan).

The command's name, kept for scripts/setup.sh and for users; its code is `ropework.compile.tool`.
"""
from __future__ import annotations

from ropework.compile.tool import main, plan

__all__ = ["main", "plan"]

if __name__ == "__main__":
    raise SystemExit(main())
