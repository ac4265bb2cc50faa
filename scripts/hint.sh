#!/usr/bin/env bash
# Prints one hint for an exercise, from chapters/NN_slug/HINTS.md.
#
#   scripts/hint.sh N.M          the next level you have not seen yet (1, then 2, then 3)
#   scripts/hint.sh N.M LEVEL    level 1 (a question), 2 (the relation or the picture) or 3 (close
#                                to the code)
#
# What you have seen is remembered in build/hints_seen.txt; delete it to start again.
set -euo pipefail
usage="usage: scripts/hint.sh N.M [LEVEL]   (e.g. scripts/hint.sh 2.1, or scripts/hint.sh 2.1 3)"
if [[ $# -ge 1 && ($1 == -h || $1 == --help) ]]; then
  echo "$usage"
  exit 0
fi
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "error: $usage" >&2
  exit 2
fi
source "$(dirname "$0")/python.sh"
python=$(find_python "") || { echo "error: scripts/hint.sh needs python3" >&2; exit 2; }
exec "$python" "$(dirname "$0")/hints.py" show "$@"
