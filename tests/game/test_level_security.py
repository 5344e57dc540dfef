"""Level files are data: no name in one can import or run code, and paths stay in the level's folder.

Each escape a level author could try is tried here: kind and system names written as modules,
``module:attr`` entry points, import expressions and relative paths, next to a canary module
that would leave a mark if anything imported it; file paths leaving the folder (absolute,
``..``, symlinks out) and counts past the caps are in tests/game/test_bad_levels.py, which
walks every path key of every kind. The engine's source is also checked for the calls that
could turn text into code.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ropework import level
from ropework.schema import LevelError
from tests import levelgen as g
from tests.conftest import ROOT

CANARY = "ropework_canary"
ESCAPES = [
    CANARY, f"{CANARY}:run", f"{CANARY}.run", f"{CANARY}:Kind", f"__import__('{CANARY}')",
    f"importlib.import_module('{CANARY}')", f"../{CANARY}", f"./{CANARY}.py", f"{CANARY}.py",
    "os.system", "os:system", "subprocess:run", "builtins:eval", "builtins.exec", "__builtins__",
    "ropework.kinds.ropes", "ropework.kinds.ropes:spawn", "ropework.systems.relax", "ropework.systems.relax:Relax",
    "ropework_tearing:plugin", "__import__('os').system('touch /tmp/ropework-pwned')",
    "eval(\"1\")", "${PWD}", "$(touch /tmp/ropework-pwned)", "`touch /tmp/ropework-pwned`",
    "/usr/bin/env", "file:///etc/passwd", "\\\\server\\share\\x",
]


@pytest.fixture
def canary(tmp_path, monkeypatch):
    """A module on sys.path (and next to the level) that leaves a file if it is ever imported."""
    mark = tmp_path / "imported"
    code = f"open({str(mark)!r}, 'w').write('imported')\ndef run(): open({str(mark)!r}, 'w').write('ran')\n" \
           "plugin = Kind = run\n"
    (tmp_path / f"{CANARY}.py").write_text(code)
    (tmp_path / "levels").mkdir()
    (tmp_path / "levels" / f"{CANARY}.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield mark
    sys.modules.pop(CANARY, None)


@pytest.mark.parametrize("name", ESCAPES)
def test_kind_and_system_names_never_import(tmp_path, canary, name):
    g.kind_names()                 # installed plugins load once per process, before any level: not the level's doing
    before = set(sys.modules)
    folder = tmp_path / "levels"
    for doc, key in (({"layer": [{"kind": name}]}, "layer[0].kind"),
                     ({"systems": [name], "layer": [g.minimal_layer("ropes")]}, "systems")):
        path = folder / "escape.toml"
        path.write_text(g.dumps(doc))
        with pytest.raises(LevelError) as e:
            level.load(path)
        assert str(e.value).startswith(f"{path}: {key}"), str(e.value)
    assert not canary.exists(), "a name in a level imported the canary module"
    assert CANARY not in sys.modules
    assert not Path("/tmp/ropework-pwned").exists()
    assert set(sys.modules) - before == set(), "loading a bad level imported a module"


@pytest.mark.parametrize("key", ["name", "title", "description"])
def test_keys_that_hold_names_are_plain_strings(tmp_path, canary, key):
    """Strings the engine keeps (titles, layer names) are never looked up as code either."""
    doc = g.minimal_level("ropes")
    target = doc if key in ("title", "description") else doc["layer"][0]
    target[key] = f"{CANARY}:run"
    path = tmp_path / "levels" / "names.toml"
    path.write_text(g.dumps(doc))
    from ropework.scene import Scene
    scene = Scene(level.load(path), (320, 240))
    scene.step(2)
    scene.close()
    assert not canary.exists()


def test_kinds_and_systems_come_from_registries_only():
    """What a level can name is exactly what was registered by code (built-ins and installed plugins)."""
    from ropework import kinds
    from ropework.systems import pipeline
    g.kind_names()
    for name, k in kinds.KINDS.items():
        assert k.name == name and callable(k.spawn)
    assert all(isinstance(n, str) for n in pipeline.REGISTRY.specs)


# Calls that turn text into code. Each allowed site imports only names fixed in the source
# (its own package's modules, a constant table) or installed entry points — never a level's text.
DANGEROUS = re.compile(r"(?<![.\w])(eval|exec|compile|__import__)\s*\(|import_module\s*\(|\.load\(\)|pickle|marshal|"
                       r"os\.system|subprocess|ctypes")
ALLOWED = {
    ("game/kinds/__init__.py", "import_module"),   # the built-in toys' modules, a constant tuple
    ("systems/pipeline.py", "import_module"),      # the FRAME table's modules, a constant table
    ("game/plugins.py", ".load()"),                # installed entry points, never a level's names
    ("game/kinds/lanyard.py", ".load()"),          # Pillow decoding a card PNG's pixels, not code
    ("systems/services/canvas.py", "ctypes"),      # numpy's buffer address handed to glReadPixels, not a library
}


def test_no_code_from_text_in_the_engine():
    found = set()
    for pkg in ("game", "systems", "components"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT).as_posix()
            for line in f.read_text().splitlines():
                code = line.split("#", 1)[0]
                for m in DANGEROUS.finditer(code):
                    hit = m.group(0).rstrip("( ").strip()
                    hit = "import_module" if hit.startswith("import_module") else hit
                    found.add((rel, hit))
    unexpected = {site for site in found if site not in ALLOWED}
    assert not unexpected, f"review these: text must never become code: {sorted(unexpected)}"
