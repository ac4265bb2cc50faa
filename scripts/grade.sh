#!/usr/bin/env bash
# Grades students' checkouts: each is configured and built in a build folder of its own and
# judged by this repository's scripts/progress.py, exercise by exercise, with the chapters' own
# instruments (values, sanitizers, spills, SASS, bank conflicts, rate against the solution's),
# against the solution executables of this repository's build. Prints a table per student (each
# exercise done, failing, not done or unconfirmed, its stars and share of the solution's rate, and
# the first criterion that failed) and writes the same as CSV with --csv. Run it on a machine with
# the GPU the grades are for; without one, what the CPU can check is graded and the rest says so.
#
# Usage: scripts/grade.sh [--csv FILE] [--build-root DIR] [--no-build] [--solutions BUILD]
#                         CHECKOUT...
#   --csv FILE         also write the grades to FILE: student, chapter, exercise, status, stars,
#                      share, reason
#   --build-root DIR   the checkouts' build folders go to DIR/NAME (default: build/grading)
#   --no-build         judge those build folders as they are
#   --solutions BUILD  the build whose solution executables to compare with (default: build; a
#                      build without them: the rates recorded in results/ladder.csv)
# Exit status: 0 graded (a checkout that cannot be configured or built for this version of the
# course is graded "not checked", with the reason), 2 bad command line.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ $# -eq 0 || $1 == -h || $1 == --help ]]; then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  [[ $# -eq 0 ]] && exit 2
  exit 0
fi
source "$root/scripts/python.sh"
python=$(find_python "") || { echo "error: scripts/grade.sh needs python3" >&2; exit 4; }
exec "$python" "$root/scripts/grade.py" "$@"
