#!/usr/bin/env bash
# Play a toy: bash scripts/play.sh [LEVEL] [options]   (default level: levels/rope.toml)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
cd "$root"
exec "$root/.venv/bin/python" -m game "$@"
