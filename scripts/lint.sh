#!/usr/bin/env bash
# Lint (ruff) and type-check (mypy) as CI does: bash scripts/lint.sh
# ruff reads the whole tree; mypy checks the modules a plugin author imports (pyproject.toml
# [tool.mypy]) under their installed names. To apply ruff's safe fixes: .venv/bin/ruff check --fix .
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
cd "$root"
status=0
"$root/.venv/bin/ruff" check . || status=1     # both run, so one run reports everything
# The package's names map onto the repository's folders (pyproject [tool.setuptools]
# package-dir: ropework = game/, ropework.systems = systems/, ...). The editable install
# resolves them with an import hook mypy cannot follow, so a tree of links spells them out.
tree="$root/.typecheck"
rm -rf "$tree/ropework"
mkdir -p "$tree/ropework"
for f in "$root"/game/*; do ln -s "$f" "$tree/ropework/"; done
for d in systems components levels; do ln -s "$root/$d" "$tree/ropework/$d"; done
cd "$tree"
"$root/.venv/bin/mypy" --config-file "$root/pyproject.toml" \
  --python-executable "$root/.venv/bin/python" \
  -p ropework.components -m ropework.systems.pipeline -m ropework.kinds -m ropework.schema \
  -m ropework.plugins -m ropework.scene -m ropework.clock || status=1
exit $status
