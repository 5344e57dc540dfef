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
  # compile the numba kernels once now (they are cached beside the sources), so the first
  # frame of the first game is not a 15 s compile: load every shipped level and step it
  echo "ropework: compiling the physics kernels (first run only)" >&2
  (cd "$root" && ARCADE_HEADLESS=1 "$venv/bin/python" -c "
from game.level import shipped
from game.scene import Scene
for path in shipped():
    scene = Scene.load(path, size=(640, 360))
    scene.pointer_down(320, 120)
    scene.step(3)
    scene.close()
" >&2) || echo "ropework: warm-up failed; the kernels will compile on first use" >&2
  touch "$stamp"
fi
