#!/usr/bin/env bash
# Where you stand: builds the student editions (your chapters/NN_slug/kernels.cuh) and judges every
# exercise by its chapter's own instruments: the values, compute-sanitizer, no spills, the taught
# instruction in the SASS, bank conflicts against the solution's, and your rate against the
# solution's as a grade (* ** ***). Each exercise is done, failing (one line per failed criterion,
# with the hint to read), not done, or unconfirmed (a criterion could not be measured here, and
# why); scripts/progress.py says how each criterion is judged. Without a GPU it runs what needs
# none (the chapters' CPU tests, the spill and SASS checks) and says what needs one.
#
# Usage: scripts/progress.sh [--build-dir DIR] [--no-build] [--check ID]... [chNN ...]
#   --build-dir DIR   the build folder (default: build, configured with the default preset)
#   --no-build        use the build folder as it is: no set-up, no configuring, no building
#   --check ID        only this criterion (memcheck, rate, tests, ...: a check's id); repeatable
#   --ladder CSV      recorded rates to grade against when no solution is built (default
#                     results/ladder.csv)
#   --solutions DIR   compare with the solution executables of another build folder
# Each chapter is built on its own: one whose kernels do not compile is reported as such, with
# the compiler's first errors, and the others are still checked.
#   chNN ...          only these chapters (ch01 or 1); every chapter of the build by default
#
# Exit status: 0 every exercise done, 1 some are not done, failing or unconfirmed, 2 bad command
# line, 3 no CUDA device (what the CPU can check is reported), 4 the set-up or configuring failed,
# or the build folder is not usable.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build"
build=yes
chapters=()
passed=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir)
      [ $# -ge 2 ] || { echo "error: --build-dir needs a folder" >&2; exit 2; }
      build_dir=$2
      [[ $build_dir == /* ]] || build_dir="$PWD/$build_dir"
      shift 2
      ;;
    --no-build) build=no; shift ;;
    --check | --ladder | --solutions)
      [ $# -ge 2 ] || { echo "error: $1 needs a value" >&2; exit 2; }
      value=$2
      [[ $1 == --check || $value == /* ]] || value="$PWD/$value"
      passed+=("$1" "$value")
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*) echo "error: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    *) chapters+=("$1"); shift ;;
  esac
done

source "$root/scripts/python.sh"
python=$(find_python "") || { echo "error: no python3: install it (sudo apt-get install python3)" >&2; exit 4; }
not_built=()
if [ "$build" = yes ]; then
  source "$root/scripts/setup.sh"
  # In a subshell: course_setup stops it (set -e) at the first failing step.
  (
    course_setup progress
    course_say "configuring $build_dir"
    if [ "$build_dir" = "$root/build" ]; then
      cmake --preset default >/dev/null
    else
      cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    fi
  )
  [ $? -eq 0 ] || { echo "error: configuring $build_dir failed" >&2; exit 4; }
  # Each chapter on its own, so that one that does not compile leaves the others checked.
  targets=$("$python" "$root/scripts/progress.py" --build-dir "$build_dir" --targets \
    "${chapters[@]}") || exit $?
  while read -r label chapter_targets; do
    [ -n "$label" ] || continue
    printf '==> building %s: your kernels and their tests\n' "$label"
    log="$build_dir/progress_$label.log"
    # shellcheck disable=SC2086  # the targets are words
    if ! cmake --build "$build_dir" --target $chapter_targets -j "$(nproc)" >"$log" 2>&1; then
      not_built+=(--not-built "$label")
      grep -E "error" "$log" | awk '!seen[$0]++' | head -n 5 | sed 's/^/    /'
      printf '    (the whole output: %s)\n' "$log"
    fi
  done <<<"$targets"
fi

exec "$python" "$root/scripts/progress.py" --build-dir "$build_dir" "${not_built[@]}" \
  "${passed[@]}" "${chapters[@]}"
