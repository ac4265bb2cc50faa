// One chapter's description, compiled against the chapter's solution kernels, for the ladder.
//
// scripts/ladder/CMakeLists.txt compiles this file once per chapter, with that chapter's
// solutions/NN_slug/kernels.cuh as <kernels.cuh>, its chapters/NN_slug/launch.cuh as
// COURSE_LADDER_LAUNCH and its namespace (ch01, ...) as COURSE_LADDER_NAMESPACE. Each copy adds
// chNN::describe(), the description that the chapter's executable runs, to the chapters the ladder
// runs (ladder::add_chapter()) when the program starts, so a chapter needs no source of its own.
#include <kernels.cuh>
#include COURSE_LADDER_LAUNCH

#include "chapters.hpp"

namespace {

[[maybe_unused]] const bool kAdded = ladder::add_chapter(COURSE_LADDER_NAMESPACE::describe());

}  // namespace
