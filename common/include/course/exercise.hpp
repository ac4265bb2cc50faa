/// @file exercise.hpp
/// @brief The table through which a chapter's kernels.cuh names its exercises, so that a failed
/// check can tell the student which exercise computes the failing problem.
#pragma once

namespace course {

/// One exercise of a chapter: its number (as in the `// EXERCISE 2.1 begin` marker), the problem
/// whose result depends on it, and a one-line description.
struct Exercise {
  const char* id;       ///< e.g. "2.1"; matches the markers in kernels.cuh
  const char* problem;  ///< "matmul", "minplus", "conv2d" or "conv1d"
  const char* task;     ///< what the student writes there, in a few words
};

}  // namespace course
