/// @file bug_hunt.cuh
/// @brief Chapter 5's bug hunt: step 1's product with its batches copied by cp.async, built from
/// this chapter's pieces, with one defect in its synchronisation. `--bug stage-reuse` runs it in
/// place of the chapter's kernel; the lesson says which tool finds it, not where it is.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace ch05::bug {

/// Step 1 (warptile_product_kernel, same arguments) with the batch copied by cp.async straight
/// into its one stage: no register holds the data any more, and the loop was shortened to match.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    stage_reuse_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                       float* __restrict__ c, int m, int n, int padded_m, int b_pitch,
                       int padded_k) {
  __shared__ __align__(16) Stage stage;
  const ThreadTile tile = thread_tile(threadIdx.x);
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    copy_stage(stage, at + static_cast<std::size_t>(k0) * padded_m + blockIdx.y * kTile,
               bp + static_cast<std::size_t>(k0) * b_pitch + blockIdx.x * kTile, padded_m, b_pitch,
               threadIdx.x);
    cp_async_commit();
    cp_async_wait_all();
    __syncthreads();  // every thread's copies have landed: the batch is in the stage
    multiply_batch<Semiring>(stage, tile, v);
  }
  store_block(c, m, n, blockIdx.y * kTile, blockIdx.x * kTile, tile, v);
}

}  // namespace ch05::bug
