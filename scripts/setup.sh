#!/usr/bin/env bash
# Creates .venv and installs ropework (editable) with its test extra, once per
# change of pyproject.toml. Sourced by play.sh and test.sh; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
venv="$root/.venv"
stamp="$venv/.ropework-installed"
if [ ! -x "$venv/bin/python" ]; then
  echo "ropework: creating $venv" >&2
  "$py" -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ] \
   || [ "$root/examples/ropework-tearing/pyproject.toml" -nt "$stamp" ]; then
  echo "ropework: installing dependencies into $venv (first run only)" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet -e "$root[test]" >&2
  # the example plugin: the tests play its level through the entry point, as a user would
  "$venv/bin/python" -m pip install --quiet --no-deps -e "$root/examples/ropework-tearing" >&2
  touch "$stamp"
fi
