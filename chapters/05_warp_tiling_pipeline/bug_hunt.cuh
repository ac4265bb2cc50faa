/// @file bug_hunt.cuh
/// @brief Chapter 5's bug hunt: product kernels built from this chapter's pieces whose
/// synchronisation is wrong. `--bug NAME` runs one of them in place of the chapter's kernel;
/// `--list-bugs` names them and the tool that catches each. The lesson says how to hunt, not where.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace ch05::bug {

/// What the pipeline of a planted bug gets wrong.
enum class Defect {
  copy_before_barrier,  ///< the next batch's copies start before the barrier of the trip
  no_wait,              ///< no thread waits for its own copies before the barrier
};

/// A pipelined product (the arguments of product_kernel) with @p D planted in its loop.
template <class Semiring, Defect D>
__global__ void __launch_bounds__(kProductThreads)
    pipeline_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                    float* __restrict__ c, int m, int n, int padded_m, int b_pitch, int padded_k) {
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
    if (D != Defect::no_wait)
      cp_async_wait_all();
    if (D != Defect::copy_before_barrier)
      __syncthreads();
    if (batch + 1 < batches) {
      a += static_cast<std::size_t>(kBatch) * padded_m;
      b += static_cast<std::size_t>(kBatch) * b_pitch;
      copy_stage(stages[(batch + 1) % kStages], a, b, padded_m, b_pitch, thread);
      cp_async_commit();
    }
    if (D == Defect::copy_before_barrier)
      __syncthreads();
    multiply_batch<Semiring>(stages[batch % kStages], tile, v);
  }
  store_block(c, m, n, blockIdx.y * kTile, blockIdx.x * kTile, tile, v);
}

/// Step 1 (warptile) with one barrier per batch instead of two.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    one_barrier_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                       float* __restrict__ c, int m, int n, int padded_m, int b_pitch,
                       int padded_k) {
  __shared__ __align__(16) Stage stage;
  const int thread = threadIdx.x;
  const ThreadTile tile = thread_tile(thread);
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    load_stage(stage, at + static_cast<std::size_t>(k0) * padded_m + blockIdx.y * kTile,
               bp + static_cast<std::size_t>(k0) * b_pitch + blockIdx.x * kTile, padded_m, b_pitch,
               thread);
    __syncthreads();
    multiply_batch<Semiring>(stage, tile, v);
  }
  store_block(c, m, n, blockIdx.y * kTile, blockIdx.x * kTile, tile, v);
}

}  // namespace ch05::bug
