/// @file
/// @brief Chapter 1: one thread per output, every operand read from global memory.
///
/// The starting point of the course. Each thread finds the output it owns from its block and
/// thread indices, reads every operand it needs straight from global memory, and writes one
/// result. Nothing is shared between threads except what the caches happen to keep.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cmath>

#include "course/exercise.hpp"
#include "course/launch.cuh"

/// Chapter 1: naive kernels, one thread per output.
namespace ch01 {

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"1.1", "matmul", "which element of C a thread owns"},
    {"1.1", "minplus", "which element of C a thread owns"},
    {"1.2", "matmul", "the sum over k"},
    {"1.3", "minplus", "the minimum over k"},
    {"1.4", "conv2d", "the sum over the mask"},
    {"1.5", "conv1d", "the range of taps and their sum"},
};

/// Threads per block along x: one warp, so a warp spans 32 consecutive outputs of a row.
constexpr int kBlockX = 32;
/// Threads per block along y.
constexpr int kBlockY = 8;
/// Threads per block of the 1D kernel.
constexpr int kBlock1d = 256;

/// One element of a matrix: its row and its column.
struct Element {
  int row;  ///< row index
  int col;  ///< column index
};

/// The element of C that the calling thread computes. Its *fast* index counts along x, so that
/// the 32 threads of a warp have consecutive fast indices; its *slow* index counts along y. With
/// ThreadMapping::coalesced the fast index is the column: a warp reads 32 consecutive elements of
/// a row of B and writes 32 consecutive elements of C. With ThreadMapping::transposed it is the
/// row, and every access of the warp is strided. The launcher lays out the grid to match.
__device__ inline Element owned_element(course::ThreadMapping mapping) {
  // EXERCISE 1.1 begin: which element of C a thread owns
  const int fast = blockIdx.x * blockDim.x + threadIdx.x;  // consecutive threads of a warp
  const int slow = blockIdx.y * blockDim.y + threadIdx.y;
  if (mapping == course::ThreadMapping::coalesced)
    return {slow, fast};
  return {fast, slow};
  // EXERCISE 1.1 end
}

/// C = A * B: the thread that owns C[row][col] reads row `row` of A and column `col` of B from
/// global memory and writes their dot product.
__global__ void matmul_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                              course::ThreadMapping mapping) {
  const auto [row, col] = owned_element(mapping);
  // The grid is rounded up to whole blocks, so some threads fall outside C. This kernel has no
  // barrier, so they may simply leave.
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  // EXERCISE 1.2 begin: the sum over k
  for (int p = 0; p < k; ++p)
    sum += A[static_cast<size_t>(row) * k + p] * B[static_cast<size_t>(p) * n + col];
  // EXERCISE 1.2 end
  C[static_cast<size_t>(row) * n + col] = sum;
}

/// C[row][col] = min over p of A[row][p] + B[p][col], the shortest path of two steps from `row`
/// to `col`: the same threads and the same reads as matmul_kernel, another arithmetic. The result
/// starts as +infinity ("no path") and each step keeps the smaller of it and A + B.
__global__ void minplus_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                               course::ThreadMapping mapping) {
  const auto [row, col] = owned_element(mapping);
  if (row >= m || col >= n)
    return;
  float shortest = INFINITY;
  // EXERCISE 1.3 begin: the minimum over k
  for (int p = 0; p < k; ++p) {
    shortest =
        fminf(shortest, A[static_cast<size_t>(row) * k + p] + B[static_cast<size_t>(p) * n + col]);
  }
  // EXERCISE 1.3 end
  C[static_cast<size_t>(row) * n + col] = shortest;
}

/// 2D convolution, zero padding, same-size output: thread (x, y) computes out[y][x] from the
/// mk x ml neighbourhood of img[y][x], reading image and mask from global memory.
__global__ void conv2d_kernel(const float* img, int h, int w, const float* mask, int mk, int ml,
                              float* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float sum = 0.0f;
  // EXERCISE 1.4 begin: the sum over the mask
  for (int p = 0; p < mk; ++p) {
    const int source_y = y + mk / 2 - p;
    if (source_y < 0 || source_y >= h)
      continue;  // zero padding above and below
    for (int q = 0; q < ml; ++q) {
      const int source_x = x + ml / 2 - q;
      if (source_x < 0 || source_x >= w)
        continue;  // zero padding left and right
      sum += mask[p * ml + q] * img[static_cast<size_t>(source_y) * w + source_x];
    }
  }
  // EXERCISE 1.4 end
  out[static_cast<size_t>(y) * w + x] = sum;
}

/// Full 1D convolution: thread i computes y[i] = sum over j of a[i - j] * b[j], i < n + m - 1.
__global__ void conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long length = static_cast<long long>(n) + m - 1;
  if (i >= length)
    return;
  float sum = 0.0f;
  // EXERCISE 1.5 begin: the range of taps and their sum
  // Only taps j with 0 <= i - j < n touch the signal.
  const long long first = i - (n - 1) > 0 ? i - (n - 1) : 0;
  const long long last = i < m - 1 ? i : m - 1;
  for (long long j = first; j <= last; ++j)
    sum += a[i - j] * b[j];
  // EXERCISE 1.5 end
  y[i] = sum;
}

/// The signature of matmul_kernel and minplus_kernel.
using ProductKernel = void (*)(const float* A, const float* B, float* C, int m, int n, int k,
                               course::ThreadMapping mapping);

/// Launches @p kernel (matmul_kernel or minplus_kernel) with one thread per element of C. The
/// grid's x extent covers the index that consecutive threads walk: the n columns with
/// ThreadMapping::coalesced, the m rows with ThreadMapping::transposed.
inline void launch_product(ProductKernel kernel, const float* A, const float* B, float* C, int m,
                           int n, int k, cudaStream_t stream, course::ThreadMapping mapping) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = mapping == course::ThreadMapping::coalesced ? course::grid_2d(n, m, block)
                                                                : course::grid_2d(m, n, block);
  kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k, mapping);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one thread per element of C.
/// @p mapping: consecutive threads walk the columns (coalesced, the default) or the rows.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream,
                   course::ThreadMapping mapping = course::ThreadMapping::coalesced) {
  launch_product(matmul_kernel, A, B, C, m, n, k, stream, mapping);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one thread per element of C.
/// @p mapping: consecutive threads walk the columns (coalesced, the default) or the rows.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream,
                    course::ThreadMapping mapping = course::ThreadMapping::coalesced) {
  launch_product(minplus_kernel, A, B, C, m, n, k, stream, mapping);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  course::require(mk >= 1 && ml >= 1 && mk % 2 == 1 && ml % 2 == 1, "the mask sides must be odd");
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid = course::grid_2d(w, h, block);
  conv2d_kernel<<<grid, block, 0, stream>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(conv2d_kernel, grid, block, 0, stream);
}

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  const dim3 block(kBlock1d);
  const dim3 grid = course::grid_1d(static_cast<long long>(n) + m - 1, kBlock1d);
  conv1d_kernel<<<grid, block, 0, stream>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(conv1d_kernel, grid, block, 0, stream);
}

}  // namespace ch01
