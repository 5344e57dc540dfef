"""``python -m ropework.warm``: compiles every shipped level's kernels; ``--plan`` writes the plan."""
from __future__ import annotations

import tempfile

import ropework.level
from ropework.compile import tool


def test_the_plan_leaves_no_folder_of_compiled_kernels_behind(monkeypatch, tmp_path):
    """--plan compiles in a new temporary cache folder (so every kernel compiles and is timed);
    each run left one ``ropework-plan-*`` folder of machine code in /tmp. With no levels, so
    nothing compiles: the folder is what is checked."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("ROPEWORK_CACHE_DIR", "unchanged")        # plan() sets it; restored after the test
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(ropework.level, "shipped", lambda: [])
    text = tool.plan()
    assert "PLAN = {" in text
    assert list(tmp_path.glob("ropework-plan-*")) == []
