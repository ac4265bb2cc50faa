#!/usr/bin/env bash
# Predict, then measure: shows a lesson's Predict question, asks for your prediction and keeps it
# in build/predictions.json, then measures the answer on your GPU with the command lines the
# chapter describes (your kernels, or the solution's while yours do not pass) and prints your
# prediction and the measurement side by side. Without a GPU it shows the measurement recorded in
# results/predictions.jsonl, with its GPU and date. Nothing is measured before you have predicted,
# and your first prediction is the one kept.
#
#   scripts/predict.sh N.M                 ask for your prediction (one line), then measure
#   scripts/predict.sh N.M "PREDICTION"    the same, the prediction given on the command line
#   scripts/predict.sh --list              the Predict questions of the lessons
#   scripts/predict.sh --record N.M        (instructors, on a GPU, solutions built) measure with
#                                          the solution and record it in results/predictions.jsonl
# Options: --build-dir DIR (default: build; it must hold the built chapters)
# Exit status: 0 shown, 2 bad input or no prediction, 3 no CUDA device and nothing recorded, 4 no
# build, or nothing could measure it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ $# -ge 1 && ($1 == -h || $1 == --help) ]]; then
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
  exit 0
fi
source "$root/scripts/python.sh"
python=$(find_python "") || { echo "error: scripts/predict.sh needs python3" >&2; exit 4; }
build=()
[[ " $* " == *" --build-dir "* ]] || build=(--build-dir "$root/build")
exec "$python" "$root/scripts/predict.py" "${build[@]}" "$@"
