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
  # compile the numba kernels once now (cached in the user's cache folder, see
  # ropework/systems/services/kernels.py), so the first frame of the first game is not a compile
  echo "ropework: compiling the physics kernels (first run only)" >&2
  ARCADE_HEADLESS=1 "$venv/bin/python" -m ropework.warm >&2 \
    || echo "ropework: warm-up failed; the kernels will compile on first use" >&2
  touch "$stamp"
fi
