/// @file bug_hunt.cuh
/// @brief Chapter 7's bug hunt: the solution's pipeline with a batch of wgmmas of its own. Run it
/// with `--bug k-step`; the lesson says how to find what it does wrong.
#pragma once

#include <cstdint>

namespace ch07 {

/// A stage's wgmmas, written from a reading of the descriptor's layout.
struct SteppedMultiply {
  /// As Multiply: starts the warpgroup's wgmmas over one stage.
  __device__ void operator()(const float* a_tile, const float* b_tile,
                             float (&acc)[kAccumulators]) const {
    fence_accumulators(acc);
    wgmma_fence();
    const std::uint64_t a = tile_descriptor(shared_address(a_tile));
    const std::uint64_t b = tile_descriptor(shared_address(b_tile));
#pragma unroll
    for (int k8 = 0; k8 < kBatch / kMmaK; ++k8) {
      const std::uint64_t step = k8 * kMmaK >> 4;  // the next 8 k-steps, in 16-byte units
      wgmma_tf32(acc, a + step, b + step);
    }
    wgmma_commit();
  }
};

}  // namespace ch07
