#!/usr/bin/env bash
# Regenerates the README gallery: one GIF per shipped level, recorded off-screen by the game's own
# --record from the committed input script docs/scripts/NAME.txt (format: docs/input-scripts.md).
# A script may add options on a line "# gallery: OPTIONS" (e.g. a lower --fps for a busy scene).
#   bash docs/scripts/gallery.sh            # every level that has a script
#   bash docs/scripts/gallery.sh rope       # just these
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
py="${PYTHON:-$root/.venv/bin/python}"
# 480x270 and 120 steps (2 s) at 25 fps, played in real time: a few hundred KB per GIF.
defaults=(--size 480x270 --frames 120 --fps 25)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls levels/*.toml | xargs -n1 basename | sed 's/\.toml$//'))
for name in "${names[@]}"; do
  script="docs/scripts/$name.txt"
  if [ ! -f "$script" ]; then echo "gallery: no $script, skipped levels/$name.toml" >&2; continue; fi
  extra=$(sed -n 's/^# gallery: //p' "$script")
  # shellcheck disable=SC2086  # the extra options are words on purpose
  "$py" -m ropework "levels/$name.toml" --record "docs/img/gallery/$name.gif" "${defaults[@]}" $extra --input "$script"
done
