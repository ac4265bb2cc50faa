#!/usr/bin/env bash
# The course's main job: installs what is missing, builds everything, and runs every chapter's
# solution on its default problems (the performance ladder, once it is built). Without a GPU it
# builds everything and says that running needs one.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
course_setup
course_configure_and_build default
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
