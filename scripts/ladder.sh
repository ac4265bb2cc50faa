#!/usr/bin/env bash
# The performance ladder in one command: builds the `ladder` executable if needed, runs every
# chapter's solution and cuBLAS SGEMM at the benchmark sizes on the GPU, writes the results and
# the plot, and prints the results table with the goals (scripts/results_table.py renders it, as it
# does the README's and the site's).
#
# By default everything goes into the build folder and nothing tracked changes:
#   build/results/ladder.csv         one line per run: rates, ratios, resources, PASS/FAIL
#   build/results/ladder_goals.csv   the course's performance goals, met or missed
#   build/results/ladder.md          the results table, as the README shows it (printed too, laid
#                                    out for the terminal)
#   build/results/ladder.png, .svg   rate per chapter for each problem, with cuBLAS and the
#                                    ceilings (skipped, with a note, where matplotlib is missing)
# With --update-readme (the maintainers' command) the same files go into results/ instead, and the
# README's table between <!-- ladder:begin --> and <!-- ladder:end --> is regenerated from them.
#
# Usage: scripts/ladder.sh [script options] [ladder options]
#   --build-dir DIR     build folder (default: build, configured with the default preset)
#   --results DIR       where the CSV files, the table and the plot go (default: build/results, or
#                       results with --update-readme)
#   --update-readme     record the run: write results/ and regenerate the README's table
#   --readme FILE       the README that --update-readme regenerates (default: README.md)
#   --no-plot           do not draw the plot
#   --from-csv FILE     run nothing: take the results from FILE (and the goals CSV beside it,
#                       FILE with _goals before .csv), e.g. brought back from a GPU machine; it
#                       refuses ladder options, which it could not honour
#   anything else is passed to the ladder (build/ladder --help lists it: --quick, --sizes,
#   --reps, --warmup, --problem, --chapters, --seed)
#
# Exit status: the ladder's (0 all passed, 1 a result failed its check, 2 bad command line, 3 no
# CUDA device, 4 a run could not be made), or 1 when the table, the README or (with
# --update-readme) the plot could not be written.
set -uo pipefail

caller=$(pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

# A path given on the command line, taken relative to the folder the script was started from.
from_caller() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$caller/$1" ;; esac; }
# The value of FLAG (the next argument), refused with exit status 2 when it is missing or empty.
value_of() { [ -n "${2:-}" ] || { printf 'error: %s needs %s\n' "$1" "$3" >&2; exit 2; }; }
say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# A later step failed: the exit status becomes 1 unless an earlier one set another.
failed() { [ "$status" -ne 0 ] || status=1; }

build_dir=build
results_dir=""
readme=README.md
update_readme=no
plot=yes
from_csv=""
ladder_args=()
subset=no
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) value_of "$1" "${2:-}" "a folder"; build_dir=$(from_caller "$2"); shift 2 ;;
    --results) value_of "$1" "${2:-}" "a folder"; results_dir=$(from_caller "$2"); shift 2 ;;
    --readme) value_of "$1" "${2:-}" "a file"; readme=$(from_caller "$2"); shift 2 ;;
    --update-readme) update_readme=yes; shift ;;
    --no-plot) plot=no; shift ;;
    --from-csv) value_of "$1" "${2:-}" "a file"; from_csv=$(from_caller "$2"); shift 2 ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    --quick | --sizes | --problem | --problems | --chapters)
      subset=yes; ladder_args+=("$1"); shift ;;
    *) ladder_args+=("$1"); shift ;;
  esac
done
if [ -n "$from_csv" ] && [ ${#ladder_args[@]} -gt 0 ]; then
  die "--from-csv runs nothing, so ${ladder_args[*]} cannot go with it"
fi
if [ -z "$results_dir" ]; then
  results_dir="$build_dir/results"  # beside the ladder executable, not on it
  [ "$update_readme" = no ] || results_dir=results
fi

source "$root/scripts/python.sh"

status=0
mkdir -p "$results_dir" || die "cannot create $results_dir"
csv="$results_dir/ladder.csv"
goals_csv="$results_dir/ladder_goals.csv"
stem="$results_dir/ladder"
if [ -n "$from_csv" ]; then
  [ -f "$from_csv" ] || die "$from_csv: no such file"
  from_goals="${from_csv%.csv}_goals.csv"
  if [ ! "$from_csv" -ef "$csv" ]; then
    cp "$from_csv" "$csv" || die "cannot copy $from_csv to $csv"
    rm -f "$goals_csv"
    if [ -f "$from_goals" ]; then
      cp "$from_goals" "$goals_csv" || die "cannot copy $from_goals to $goals_csv"
    fi
  fi
else
  if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; } &&
    [ ! -x "$build_dir/ladder" ]; then
    cat >&2 <<EOF_HELP
error: no NVIDIA GPU visible (nvidia-smi lists none): the performance ladder needs one.
To run it on a machine that has one, from a clone of this repository:
  scripts/ladder.sh                      builds, runs, writes build/results/ and prints the table
  scripts/ladder.sh --update-readme      the same, into results/ and the README's table
Then bring ladder.csv and ladder_goals.csv back here and run
  scripts/ladder.sh --from-csv FOLDER/ladder.csv [--update-readme]
to draw the plot and write the table from them.
EOF_HELP
    exit 3
  fi
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

# The plot: optional for a run (a note says how to get it), required to record one.
image=""
if [ "$plot" = yes ]; then
  rm -f "$stem.png" "$stem.svg"  # never a plot of other results beside these
  if plot_python=$(find_python matplotlib); then
    if "$plot_python" scripts/plot_ladder.py "$csv" "$stem"; then
      image="$stem.svg"
    else
      printf 'error: the plot could not be drawn\n' >&2
      failed
    fi
  elif [ "$update_readme" = yes ]; then
    printf 'error: no Python with matplotlib found (tried %s/usr/bin/python3 and python3): %s\n' \
      "${PYTHON:+$PYTHON, }" 'install python3-matplotlib, or pass --no-plot' >&2
    failed
  else
    printf 'note: plot skipped: no Python with matplotlib; to draw it, %s %s\n' \
      'install python3-matplotlib (sudo apt-get install python3-matplotlib)' \
      "and run scripts/ladder.sh --from-csv $csv" >&2
  fi
fi

# The table: into the results folder and printed; into the README only with --update-readme.
table_python=""
if table_python=$(find_python ""); then
  table_args=()
  [ -f "$goals_csv" ] && table_args+=(--goals "$goals_csv")
  [ -n "$image" ] && table_args+=(--image "$image")
  if [ "$subset" = yes ] && [ "$update_readme" = yes ]; then
    say "note: this run used --quick, --sizes, --problem or --chapters; recording it anyway"
  fi
  # A run's table is kept beside its CSV; a recorded run's is the README's.
  out_args=()
  [ "$update_readme" = yes ] || out_args=(--out "$stem.md")
  printf '\n'
  if ! "$table_python" scripts/update_results_table.py "$csv" "${table_args[@]}" \
    "${out_args[@]}" --print; then
    failed
  elif [ "$update_readme" = yes ] && ! "$table_python" scripts/update_results_table.py "$csv" \
    --readme "$readme" "${table_args[@]}"; then
    failed
  fi
else
  printf 'note: no Python 3 found to print the table: the results are in %s and %s\n' \
    "$csv" "$goals_csv" >&2
  if [ "$update_readme" = yes ]; then
    printf 'error: --update-readme needs Python 3\n' >&2
    failed
  fi
fi

if [ "$update_readme" = no ]; then
  say "results: $csv, $goals_csv${image:+, $stem.png, $image}${table_python:+, $stem.md}"
  say "nothing tracked was changed; scripts/ladder.sh --update-readme records a run in" \
    "results/ and $(basename "$readme")"
else
  say "recorded: $csv, $goals_csv${image:+, $stem.png, $image} and the table in $readme"
fi
exit "$status"
