#!/usr/bin/env bash
# Run the test suite: bash scripts/test.sh [pytest options]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
cd "$root"
export ARCADE_HEADLESS=1   # tests render off-screen through EGL; no display needed
exec "$root/.venv/bin/python" -m pytest "$@"
