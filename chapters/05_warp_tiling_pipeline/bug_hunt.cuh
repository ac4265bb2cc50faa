/// @file bug_hunt.cuh
/// @brief Chapter 5's bug hunt: step 2's pipelined product, built from this chapter's pieces, with
/// one defect in its synchronisation. `--bug stage-reuse` runs it in place of the chapter's kernel;
/// the lesson says which tool finds it, not where it is.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace ch05::bug {

/// The pipelined product of product_kernel (same arguments), with a planted defect.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    stage_reuse_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                       float* __restrict__ c, int m, int n, int padded_m, int b_pitch,
                       int padded_k) {
  __shared__ __align__(16) Stage stages[kStages];
  const int thread = threadIdx.x;
  const ThreadTile tile = thread_tile(thread);
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  const float* a = at + blockIdx.y * kTile;
  const float* b = bp + blockIdx.x * kTile;
  const int batches = padded_k / kBatch;
  copy_stage(stages[0], a, b, padded_m, b_pitch, thread);
  cp_async_commit();
  for (int batch = 0; batch < batches; ++batch) {
    cp_async_wait_all();
    if (batch + 1 < batches) {
      a += static_cast<std::size_t>(kBatch) * padded_m;
      b += static_cast<std::size_t>(kBatch) * b_pitch;
      copy_stage(stages[(batch + 1) % kStages], a, b, padded_m, b_pitch, thread);
      cp_async_commit();
    }
    __syncthreads();
    multiply_batch<Semiring>(stages[batch % kStages], tile, v);
  }
  store_block(c, m, n, blockIdx.y * kTile, blockIdx.x * kTile, tile, v);
}

}  // namespace ch05::bug
