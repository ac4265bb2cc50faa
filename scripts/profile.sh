#!/usr/bin/env bash
# What the profiler says about a chapter's kernels: runs the chapter's executable under Nsight
# Compute (ncu) with one fixed set of metrics and writes into build/results/:
#   profile.jsonl            one line per chapter and problem: the run's own --json object with
#                            ncu's metrics of its main kernel under "ncu" (its time, DRAM bytes
#                            read and written, L2 <-> SM sectors, shared-memory requests,
#                            wavefronts and bank conflicts, occupancy and registers, FMA-pipe,
#                            tensor-pipe and issue-slot utilisation, the stall reasons, the roofs)
#   profile.md               the table drawn from it (also printed): arithmetic intensity against
#                            DRAM and L2, the top two stall reasons, ...
#   roofline_PROBLEM.png/.svg  achieved rate against arithmetic intensity, under the DRAM and L2
#                            roofs and the compute ceilings of the GPU the run was made on
#   profile.log              every ncu command and what it printed
# docs/pages/tools.md says what each metric means and how to read the roofline.
#
# Usage: scripts/profile.sh [options] CHAPTER [executable arguments]
#        scripts/profile.sh [options] --all
#   CHAPTER             the chapter's number (4 or ch04); your kernels unless --solution
#   executable arguments  as the chapter's executable takes them: --problem P (default: every
#                       problem the chapter has), sizes and the chapter's own options
#                       (its --help lists them)
#   --solution          profile the solution's kernels instead of yours
#   --all               every chapter's solution, every problem, at the ladder's sizes
#   --build-dir DIR     the build folder (default: build)
#   --results DIR       where the files go (default: build/results, or results/ with
#                       --update-readme)
#   --update-readme     record the run (maintainers): results/profile.jsonl, the rooflines and
#                       the README's profile table
#   --from FILE         profile nothing: the table and rooflines of a profile.jsonl brought back
#   --no-plot           no rooflines
#
# Exit status: 0 profiled, every run passed or was not checked; 1 a run failed, or a file could
# not be read or written; 2 bad command line; 3 no CUDA device; 4 the executable printed no result
# (a CUDA error: see profile.log); 5 ncu not found (it comes with the CUDA toolkit: put its bin
# folder on the PATH, or set NCU); 6 ncu may not read the GPU's counters (ERR_NVGPUCTRPERM: run as
# root, or allow profiling for every user); 7 the course is not built (cmake --preset default &&
# cmake --build build).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/python.sh"
for argument in "$@"; do
  if [[ $argument == -h || $argument == --help ]]; then
    sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
  fi
done
if python=$(find_python matplotlib) || python=$(find_python ""); then
  exec "$python" "$root/scripts/profile_kernels.py" "$@"
fi
printf 'error: no Python 3 found: install python3 (sudo apt-get install python3)\n' >&2
exit 1
