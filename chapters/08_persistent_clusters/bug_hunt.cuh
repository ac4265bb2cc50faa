/// @file bug_hunt.cuh
/// @brief Chapter 8's bug hunt: the solution with a reading of B's slab of its own. Run it with
/// `--bug slab-reading`; the lesson says how to find what it does wrong.
#pragma once

#include <cstdint>

namespace ch08 {

/// A slab's registers, read where the slab's rows and columns put them.
struct RowMajorFragments {
  /// As SlabFragments: reads this thread's registers of k-step @p q of a stage from @p slab.
  __device__ void operator()(const float* slab, int odd, int q,
                             std::uint32_t (&fragment)[4]) const {
    const int lane = threadIdx.x % kWarpSize;
    const int col = slab_column(lane / 4, odd);
    const int t = lane % 4;
    const float2 low = *reinterpret_cast<const float2*>(slab + (q * kMmaK + t) * kSlabCols + col);
    const float2 high =
        *reinterpret_cast<const float2*>(slab + (q * kMmaK + t + 4) * kSlabCols + col);
    fragment[0] = __float_as_uint(low.x);
    fragment[1] = __float_as_uint(low.y);
    fragment[2] = __float_as_uint(high.x);
    fragment[3] = __float_as_uint(high.y);
  }
};

}  // namespace ch08
