"""docs/levels.md documents every key the loader accepts, and is current."""
from ropework import kinds
from ropework.docs import builtin_kinds, levels_markdown
from ropework.level import LAYER_COMMON, TOP
from tests.conftest import ROOT


def all_key_paths():
    kinds.load_builtin()
    paths = list(TOP.keys) + [f"layer.{k.name}" for k in LAYER_COMMON]

    def walk(table, prefix):
        for k in table.keys:
            paths.append(prefix + k)
        for name, (sub, *_rest) in table.arrays.items():
            paths.append(f"[[{prefix}{name}]]")
            walk(sub, f"{prefix}{name}.")
    for name in builtin_kinds():
        walk(kinds.KINDS[name].schema, "layer.")
    return paths


def test_every_key_is_documented():
    doc = (ROOT / "docs" / "levels.md").read_text()
    missing = [p for p in all_key_paths() if f"`{p}`" not in doc and f"`{p}" not in doc]
    assert not missing, f"undocumented level keys: {missing}"
    for name in builtin_kinds():
        assert f'kind = "{name}"' in doc


def test_levels_md_is_generated_from_the_declarations():
    assert (ROOT / "docs" / "levels.md").read_text() == levels_markdown(), \
        "docs/levels.md is stale: python -m ropework.docs > docs/levels.md"
