"""The composites are built as a plugin would build them: they import only what a plugin may (the
kinds and their helpers, components, schema, the solver's table and the kernel decorator), and no
other module names them but the list of built-in toys."""
from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

PACKAGE = ROOT / "game" / "kinds" / "composites"
PUBLIC = {   # what a third-party plugin imports to build the same kinds
    "ropework.components", "ropework.components.solve", "ropework.components.collider",
    "ropework.kinds", "ropework.kinds.colliders", "ropework.kinds.cloth", "ropework.kinds.ropes",
    "ropework.schema", "ropework.live", "ropework.cost",
    "ropework.systems.services.solver", "ropework.systems.services.kernels", "ropework.systems.services.colour",
}


def test_composites_import_only_what_a_plugin_may():
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ropework"):
                mod = node.module
                assert mod in PUBLIC or mod.startswith("ropework.kinds.composites"), (path.name, mod)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("ropework") for a in node.names), path.name


def test_nothing_outside_them_special_cases_them():
    """The solver, systems and shell know no composite: only the built-in list loads the package."""
    named = re.compile(r"kinds\.composites|[\"']composites[\"']")
    for folder in ("systems", "components", "game"):
        for path in (ROOT / folder).rglob("*.py"):
            if PACKAGE in path.parents:
                continue
            text = path.read_text("utf-8")
            hits = [line for line in text.splitlines() if named.search(line)]
            if path == ROOT / "game" / "kinds" / "__init__.py":
                assert all("BUILTIN" in h or h.lstrip().startswith("#") for h in hits), hits
            elif path != ROOT / "game" / "docs.py":     # the reference's section title
                assert not hits, (path, hits)
