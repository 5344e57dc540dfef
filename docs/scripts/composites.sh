#!/usr/bin/env bash
# Regenerates the composites' pictures in docs/levels.md: docs/img/composite-NAME.png, the last
# frame of a headless --record (640x360) of a shipped level or of docs/scripts/composites/NAME.toml.
#   bash docs/scripts/composites.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
py="${PYTHON:-$root/.venv/bin/python}"
shot() {   # shot NAME LEVEL FRAMES
  "$py" -m ropework "$2" --record "docs/img/composite-$1.png" --size 640x360 --frames "$3"
}
shot bridge levels/bridge.toml 150
shot web levels/web.toml 150
shot cradle levels/cradle.toml 72
for name in net blob sign wheel; do shot "$name" "docs/scripts/composites/$name.toml" 150; done
