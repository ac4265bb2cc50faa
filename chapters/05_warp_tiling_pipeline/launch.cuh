/// @file launch.cuh
/// @brief Chapter 5, host side: the exercise table, the pre-pass and the product's launchers.
///
/// Included after a chapter-5 kernels.cuh (yours or the solution's), which defines the kernels
/// these launchers start; it includes no kernels file itself, so a later chapter can run chapter
/// 5's solution through it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "course/cuda_check.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

namespace ch05 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"5.1", "matmul", "warp tile: the rows and columns of this thread's 8 x 8 block"},
    {"5.1", "minplus", "warp tile: the rows and columns of this thread's 8 x 8 block"},
    {"5.2", "matmul", "copy a stage: this thread's cp.async chunks of the A^T and B panels"},
    {"5.2", "minplus", "copy a stage: this thread's cp.async chunks of the A^T and B panels"},
    {"5.3", "matmul", "the pipeline: wait for batch b, start batch b + 1, multiply batch b"},
    {"5.3", "minplus", "the pipeline: wait for batch b, start batch b + 1, multiply batch b"},
    {"5.4", "matmul", "inner loop: float4 reads of a stage and the 8 x 8 outer product"},
    {"5.4", "minplus", "inner loop: float4 reads of a stage and the 8 x 8 outer product"},
};

/// Rounds @p value up to a multiple of @p step, checking that the result still fits an int.
inline int round_up_checked(int value, int step, const char* name) {
  const long long rounded = course::ceil_div(value, step) * step;
  course::require(rounded <= 0x7fffffffLL,
                  std::string(name) + " is too large to pad to a multiple of the tile");
  return static_cast<int>(rounded);
}

/// The product C = A (x) B over @p Semiring: pads and transposes A into scratch memory, pads B
/// unless it already has the padded shape, and runs product_kernel. All launches go to @p s. The
/// scratch is allocated on @p s (cudaMallocAsync) and freed on it after the product
/// (cudaFreeAsync), so concurrent calls on different streams each have their own.
template <class Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  const int padded_m = round_up_checked(m, kTile, "m");
  const int padded_n = round_up_checked(n, kTile, "n");
  const int padded_k = round_up_checked(k, kBatch, "k");
  // Every grid first: a size the grids cannot cover is refused before anything is allocated.
  const dim3 copy_block(kTransposeTile, kTransposeRowsPerPass);
  const dim3 transpose_grid =
      course::grid_2d(padded_k, padded_m, dim3(kTransposeTile, kTransposeTile));
  const dim3 pad_grid = course::grid_2d(padded_n, padded_k, copy_block);
  const dim3 block(kProductThreads);
  // One block per 128 x 128 tile of C: ceil(n/128) x ceil(m/128) blocks.
  const dim3 grid =
      course::grid_2d(course::ceil_div(n, kTile), course::ceil_div(m, kTile), dim3(1, 1));

  // A transposed: the 128 rows a block needs at one k-step become 128 contiguous floats.
  float* at = nullptr;
  COURSE_CUDA_CHECK(
      cudaMallocAsync(&at, static_cast<std::size_t>(padded_k) * padded_m * sizeof(float), s));
  {
    const auto kernel = transpose_pad_kernel<Semiring>;
    kernel<<<transpose_grid, copy_block, 0, s>>>(A, m, k, at, padded_m, padded_k);
    COURSE_CHECK_LAUNCH(kernel, transpose_grid, copy_block, 0, s);
  }

  // B already has the padded shape when n is a multiple of 128, k of 16, and B is 16-byte aligned.
  const float* bp = B;
  int b_pitch = n;
  float* padded = nullptr;
  const bool b_ready = n % kTile == 0 && k % kBatch == 0 &&
                       reinterpret_cast<std::uintptr_t>(B) % sizeof(float4) == 0;
  if (!b_ready) {
    COURSE_CUDA_CHECK(
        cudaMallocAsync(&padded, static_cast<std::size_t>(padded_k) * padded_n * sizeof(float), s));
    const auto kernel = pad_kernel<Semiring>;
    kernel<<<pad_grid, copy_block, 0, s>>>(B, k, n, padded, padded_n, padded_k);
    COURSE_CHECK_LAUNCH(kernel, pad_grid, copy_block, 0, s);
    bp = padded;
    b_pitch = padded_n;
  }

  const auto kernel = product_kernel<Semiring>;
  kernel<<<grid, block, 0, s>>>(at, bp, C, m, n, padded_m, b_pitch, padded_k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
  // Freed in stream order: the memory is reused only after the kernels above are done.
  COURSE_CUDA_CHECK(cudaFreeAsync(at, s));
  if (padded != nullptr)
    COURSE_CUDA_CHECK(cudaFreeAsync(padded, s));
}

/// C = A * B (plus-times), row-major FP32: A is m x k, B is k x n, C is m x n. Any m, n, k >= 1.
/// Each block of 8 warps computes a 128 x 128 tile of C, each warp a 32 x 64 part of it, each
/// thread an 8 x 8 block of results in registers, fed by a double-buffered cp.async pipeline.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, s);
}

/// C[i][j] = min over kk of (A[i][kk] + B[kk][j]) (min-plus), row-major FP32; +inf means "no
/// edge" and propagates. Same kernel and data movement as matmul(); exact in any order of k.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, s);
}

}  // namespace ch05
