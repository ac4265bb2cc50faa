#!/usr/bin/env bash
# The course's test command: installs what is missing, builds everything, runs the tests and
# builds the documentation (Doxygen warnings are errors). Without a GPU, the GPU tests are
# reported as skipped. Needs Catch2, Doxygen and Graphviz besides what scripts/run.sh needs.
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
course_setup test
if course_have_gpu; then
  preset=default
  build_dir=build
else
  preset=ci  # nothing can run on a GPU here, so build for sm_90 only, which is faster
  build_dir=build-ci
  course_say "no NVIDIA GPU visible: the GPU tests will be reported as skipped"
fi
course_configure_and_build "$preset" -DCOURSE_REQUIRE_DOCS=ON -DCOURSE_BUILD_TESTS=ON
course_say "running the tests"
ctest --preset "$preset" --parallel "$(nproc)"
course_say "building the documentation"
cmake --build --preset "$preset" --target docs
course_say "all tests passed; documentation: $build_dir/docs/html/index.html"
