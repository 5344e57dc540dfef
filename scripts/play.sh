#!/usr/bin/env bash
# Play a toy: bash scripts/play.sh [LEVEL] [options]   (default level: rope)
# Runs in the folder you call it from: a level path is yours, and S / G save there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
exec "$root/.venv/bin/python" -m ropework "$@"
