/// @file semiring.cuh
/// @brief The two ways of combining a row with a column that the matrix-product kernels support.
///
/// A matrix product only needs two operations: "multiply" an A element by a B element and
/// "add" the result into an accumulator. Plus-times gives the ordinary product; min-plus gives the
/// shortest two-step paths through a graph's distance matrix. The kernels are templates over one of
/// these structs, so both problems share exactly the same data movement.
#pragma once

#include <cuda_runtime.h>

namespace course {

/// The ordinary matrix product: `acc + a * b`, identity 0.
struct PlusTimes {
  /// Short name for reports.
  static constexpr const char* name = "plus-times";
  /// The value that changes nothing when combined: pads out-of-range tile entries.
  __host__ __device__ static constexpr float identity() { return 0.0f; }
  /// One step of the reduction: a fused multiply-add.
  __host__ __device__ static float combine(float acc, float a, float b) { return fmaf(a, b, acc); }
};

/// The min-plus (tropical) product: `min(acc, a + b)`, identity +infinity ("no path").
struct MinPlus {
  /// Short name for reports.
  static constexpr const char* name = "min-plus";
  /// +infinity: no path, and the value that pads out-of-range tile entries.
  __host__ __device__ static constexpr float identity() { return __builtin_huge_valf(); }
  /// One step of the reduction: one rounded add and one exact min, so any order gives the same
  /// bits.
  __host__ __device__ static float combine(float acc, float a, float b) {
    return fminf(acc, a + b);
  }
};

}  // namespace course
