#!/usr/bin/env bash
# The performance ladder in one command: builds the `ladder` executable if needed, runs every
# chapter's solution and cuBLAS SGEMM at the benchmark sizes on the GPU, writes the results, draws
# the plot and regenerates the README's results table.
#
# Outputs (in results/ unless --results says otherwise):
#   results/ladder.csv        one line per run: rates, ratios, resources, PASS/FAIL
#   results/ladder_goals.csv  the course's performance goals, met or missed
#   results/ladder.png, .svg  rate per chapter for each problem, with cuBLAS and the ceilings
#   README.md                 the table between <!-- ladder:begin --> and <!-- ladder:end -->
#
# Usage: scripts/ladder.sh [script options] [ladder options]
#   --build-dir DIR     build folder (default: build, configured with the default preset)
#   --results DIR       where the CSV files and the plot go (default: results)
#   --readme FILE       the README to update (default: README.md)
#   --no-readme         leave the README alone
#   --update-readme     update the README even after --quick, --sizes, --problem or --chapters
#   --no-plot           do not draw the plot
#   --from-csv FILE     run nothing: plot FILE and update the README from it (and from the goals
#                       CSV beside it), e.g. with results brought back from a GPU machine
#   anything else is passed to the ladder (build/ladder --help lists it: --quick, --sizes,
#   --reps, --warmup, --problem, --chapters, --seed)
#
# Exit status: the ladder's (0 all passed, 1 a result failed its check, 2 bad command line, 3 no
# CUDA device, 4 a run could not be made), or 1 when the plot or the README could not be written.
set -uo pipefail

caller=$(pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

# A path given on the command line, taken relative to the folder the script was started from.
from_caller() {
  case "$1" in
    /*) printf '%s\n' "$1" ;;
    *) printf '%s\n' "$caller/$1" ;;
  esac
}

say() { printf '==> %s\n' "$*"; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

build_dir=build
results_dir=results
readme=README.md
update_readme=auto
plot=yes
from_csv=""
ladder_args=()
subset=no
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$(from_caller "${2:?--build-dir needs a folder}"); shift 2 ;;
    --results) results_dir=$(from_caller "${2:?--results needs a folder}"); shift 2 ;;
    --readme) readme=$(from_caller "${2:?--readme needs a file}"); shift 2 ;;
    --no-readme) update_readme=no; shift ;;
    --update-readme) update_readme=yes; shift ;;
    --no-plot) plot=no; shift ;;
    --from-csv) from_csv=$(from_caller "${2:?--from-csv needs a file}"); shift 2 ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    --quick | --sizes | --problem | --problems | --chapters)
      subset=yes
      ladder_args+=("$1")
      shift
      ;;
    *) ladder_args+=("$1"); shift ;;
  esac
done

# The first Python that can import the module named by $1 (any Python 3 when $1 is empty).
# Debian's /usr/bin/python3 comes first: it is the one that python3-matplotlib installs into.
find_python() {
  local candidate
  for candidate in "${PYTHON:-}" /usr/bin/python3 python3 python; do
    [ -n "$candidate" ] || continue
    command -v "$candidate" >/dev/null 2>&1 || continue
    "$candidate" -c "import sys; assert sys.version_info >= (3, 6); ${1:+import $1}" \
      >/dev/null 2>&1 || continue
    printf '%s\n' "$candidate"
    return 0
  done
  return 1
}

status=0
if [ -n "$from_csv" ]; then
  [ -f "$from_csv" ] || die "$from_csv: no such file"
  csv=$from_csv
  goals_csv="${from_csv%.csv}_goals.csv"
  results_dir=$(dirname "$from_csv")
  stem="${from_csv%.csv}"
else
  gpu_visible=no
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    gpu_visible=yes
  fi
  if [ "$gpu_visible" = no ] && [ ! -x "$build_dir/ladder" ]; then
    cat >&2 <<EOF_HELP
error: no NVIDIA GPU visible (nvidia-smi lists none): the performance ladder needs one.
To run it on a machine that has one, from a clone of this repository:
  scripts/ladder.sh                      builds, runs, writes results/, updates README.md
Then bring results/ladder.csv and results/ladder_goals.csv back here and run
  scripts/ladder.sh --from-csv results/ladder.csv
to draw the plot and regenerate the README's results table from them.
EOF_HELP
    exit 3
  fi
  mkdir -p "$results_dir" || die "cannot create $results_dir"
  csv="$results_dir/ladder.csv"
  goals_csv="$results_dir/ladder_goals.csv"
  stem="$results_dir/ladder"
  if [ ! -f "$build_dir/CMakeCache.txt" ]; then
    say "configuring $build_dir"
    if [ "$build_dir" = build ]; then
      cmake --preset default || die "configuring failed"
    else
      cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release || die "configuring failed"
    fi
  fi
  say "building the ladder"
  cmake --build "$build_dir" --target ladder || die "building the ladder failed"
  rm -f "$csv" "$goals_csv"
  say "running the ladder"
  "$build_dir/ladder" --csv "$csv" --goals-csv "$goals_csv" "${ladder_args[@]}"
  status=$?
  case $status in
    2 | 3) exit "$status" ;;  # bad command line, or no GPU: the ladder has said what to do
  esac
  [ -f "$csv" ] || exit "$status"
fi

image=""
if [ "$plot" = yes ]; then
  if plot_python=$(find_python matplotlib); then
    if "$plot_python" scripts/plot_ladder.py "$csv" "$stem"; then
      image="$stem.svg"
    else
      printf 'error: the plot could not be drawn\n' >&2
      [ "$status" -ne 0 ] || status=1
    fi
  else
    printf 'error: no Python with matplotlib found (tried %s/usr/bin/python3 and python3): ' \
      "${PYTHON:+$PYTHON, }" >&2
    printf 'install python3-matplotlib, or pass --no-plot\n' >&2
    [ "$status" -ne 0 ] || status=1
  fi
fi

if [ "$update_readme" = auto ] && [ "$subset" = yes ]; then
  say "$readme not updated: this run used --quick, --sizes, --problem or --chapters" \
    "(--update-readme updates it anyway)"
elif [ "$update_readme" != no ]; then
  table_python=$(find_python "") || die "no Python 3 found to update $readme"
  goals_args=()
  [ -f "$goals_csv" ] && goals_args=(--goals "$goals_csv")
  image_args=()
  [ -n "$image" ] && image_args=(--image "$image")
  if ! "$table_python" scripts/update_results_table.py "$csv" --readme "$readme" \
    "${goals_args[@]}" "${image_args[@]}"; then
    [ "$status" -ne 0 ] || status=1
  fi
fi

say "results: $csv${image:+, $stem.png, $image}"
exit "$status"
