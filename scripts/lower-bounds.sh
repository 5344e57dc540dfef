#!/usr/bin/env bash
# Run the tests against the oldest versions pyproject.toml admits: every ">=X" bound is
# installed exactly (==X) into .venv-lower, then pytest runs there.
#   bash scripts/lower-bounds.sh [pytest options]     (about as long as the suite, plus the installs)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
venv="$root/.venv-lower"
pins=$("$py" - "$root/pyproject.toml" <<'PY'
import re, sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
reqs = project["dependencies"] + project["optional-dependencies"]["test"]
for r in reqs:
    m = re.match(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9][^,;\s]*)", r)
    if m:
        print(f"{m.group(1)}=={m.group(2)}")
PY
)
[ -x "$venv/bin/python" ] || "$py" -m venv "$venv"
echo "ropework: installing the lower bounds into $venv:" $pins >&2
"$venv/bin/python" -m pip install --quiet $pins >&2
"$venv/bin/python" -m pip install --quiet --no-deps -e "$root" -e "$root/examples/ropework-tearing" >&2
cd "$root"
export ARCADE_HEADLESS=1
exec "$venv/bin/python" -m pytest "$@"
