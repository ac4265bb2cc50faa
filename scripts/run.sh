#!/usr/bin/env bash
# The course's main job: installs what is missing, builds everything, and runs every chapter's
# solution and cuBLAS side by side (the performance ladder, scripts/ladder.sh). The results (table,
# CSV, plot) go into build/results/ and the table is printed; nothing tracked is changed. Without a
# GPU it builds everything and says that running needs one. Arguments go to scripts/ladder.sh,
# except --profile: then every chapter's solution is also profiled with Nsight Compute after the
# ladder (scripts/profile.sh --all, into build/results/ too).
#
# In a copy without solutions/ (a class's hand-out, scripts/handout.sh) there is no ladder: it runs
# your own kernels instead, every exercise checked (scripts/progress.sh).
#
# Needs CMake, a C++ compiler, Ninja and the CUDA toolkit; Catch2 (the tests), Python 3 and
# matplotlib (the table and the plot) are used when they are there (scripts/setup.sh).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
profile=no
ladder_args=()
for argument in "$@"; do
  case "$argument" in
    --profile) profile=yes ;;
    *) ladder_args+=("$argument") ;;
  esac
done
# Without solutions/ there is no ladder to give options to, and no solution to profile.
if [ ! -d "$course_root/solutions" ] && { [ ${#ladder_args[@]} -gt 0 ] || [ "$profile" = yes ]; }; then
  printf 'error: %s is for the performance ladder, which runs the solutions: this copy has none\n' \
    "${ladder_args[0]:---profile}" >&2
  exit 2
fi
course_setup run
configure_args=()
course_have_package catch2 || configure_args+=(-DCOURSE_BUILD_TESTS=OFF)
course_configure_and_build default "${configure_args[@]}"
if ! course_have_gpu; then
  course_say "built everything in build/; running the kernels needs an NVIDIA GPU, and none is visible here"
  exit 0
fi
if [ ! -d "$course_root/solutions" ]; then
  course_say "no solutions/ here: checking your own kernels, exercise by exercise"
  exec "$course_root/scripts/progress.sh" --no-build
fi
status=0
scripts/ladder.sh "${ladder_args[@]}" || status=$?
if [ "$profile" = yes ]; then
  course_say "profiling every chapter's solution with Nsight Compute"
  scripts/profile.sh --all || [ "$status" -ne 0 ] || status=1
fi
exit "$status"
