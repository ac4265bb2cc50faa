#!/usr/bin/env bash
# The course's main job: installs what is missing, builds everything, and runs every chapter's
# solution and cuBLAS side by side (the performance ladder, scripts/ladder.sh). The results (table,
# CSV, plot) go into build/results/ and the table is printed; nothing tracked is changed. Without a
# GPU it builds everything and says that running needs one. Arguments go to scripts/ladder.sh.
#
# Needs CMake, a C++ compiler, Ninja and the CUDA toolkit; Catch2 (the tests), Python 3 and
# matplotlib (the table and the plot) are used when they are there (scripts/setup.sh).
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
course_setup run
configure_args=()
if ! course_have_package catch2; then
  configure_args+=(-DCOURSE_BUILD_TESTS=OFF)
fi
course_configure_and_build default "${configure_args[@]}"
if ! course_have_gpu; then
  course_say "built everything in build/; running the kernels needs an NVIDIA GPU, and none is visible here"
  exit 0
fi
if [ -x scripts/ladder.sh ]; then
  exec scripts/ladder.sh "$@"
fi
status=0
for exe in build/ch0*_solution; do
  course_say "running $exe"
  "$exe" "$@" || status=$?
done
exit "$status"
