/// @file bug_hunt.cuh
/// @brief Chapter 4's bug hunt: step 2's kernel with another layout of each thread's 8 x 8
/// results. `--bug NAME` runs it in place of the chapter's kernel; `--list-bugs` names it and the
/// tool that catches it. The lesson says how to hunt, not where.
#pragma once

namespace ch04::bug {

/// A layout that looks as good as QuadGroups: each thread's 8 rows (and columns) side by side,
/// two float4 that follow each other. The results are right.
struct SideBySide {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) { return t * kRegisterBlock + i; }
};

}  // namespace ch04::bug
