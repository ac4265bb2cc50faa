/// @file
/// @brief Chapter 1: one thread per output, every operand read from global memory.
///
/// The starting point of the course. Each thread finds the output it owns from its block and
/// thread indices, reads every operand it needs straight from global memory, and writes one
/// result. Nothing is shared between threads except what the caches happen to keep.
#pragma once

#include <cuda_runtime.h>

#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

/// Chapter 1: naive kernels, one thread per output.
namespace ch01 {

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"1.1", "matmul", "which output a thread owns"},
    {"1.1", "minplus", "which output a thread owns"},
    {"1.2", "matmul", "the reduction over k"},
    {"1.2", "minplus", "the reduction over k"},
    {"1.3", "conv2d", "the sum over the mask"},
    {"1.4", "conv1d", "the range of taps and their sum"},
};

/// Threads per block along x: one warp, so a warp spans 32 consecutive outputs of a row.
constexpr int kBlockX = 32;
/// Threads per block along y.
constexpr int kBlockY = 8;
/// Threads per block of the 1D kernel.
constexpr int kBlock1d = 256;

/// Matrix product over @p Semiring: thread (fast, slow) computes one element of C.
/// With ThreadMapping::coalesced the fast index (consecutive threads of a warp) walks the
/// columns, so the warp reads 32 consecutive elements of a row of B and writes 32 consecutive
/// elements of C; with ThreadMapping::transposed it walks the rows, and every access is strided.
template <typename Semiring, course::ThreadMapping Mapping>
__global__ void product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  // EXERCISE 1.1 begin: which output a thread owns
  // Compute this thread's fast index (consecutive threads of a warp: blockIdx.x, blockDim.x,
  // threadIdx.x) and slow index (the same along y), then assign them to row and col according to
  // Mapping: coalesced puts the fast index on the column, transposed on the row.
  const int row = m;  // replace these two lines: as written, every thread skips its output
  const int col = n;
  // EXERCISE 1.1 end
  // The grid is rounded up to whole blocks, so some threads fall outside C. This kernel has no
  // barrier, so they may simply leave.
  if (row >= m || col >= n)
    return;
  float acc = Semiring::identity();
  // EXERCISE 1.2 begin: the reduction over k
  // For p from 0 to k - 1, combine acc with A[row][p] and B[p][col] (row-major: index
  // row * k + p and p * n + col, in size_t so that large matrices do not overflow).
  // EXERCISE 1.2 end
  C[static_cast<size_t>(row) * n + col] = acc;
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
  // EXERCISE 1.3 begin: the sum over the mask
  // For every mask entry (p, q), add mask[p][q] * img[y + mk/2 - p][x + ml/2 - q] to sum,
  // skipping image positions outside [0, h) x [0, w) (zero padding).
  // EXERCISE 1.3 end
  out[static_cast<size_t>(y) * w + x] = sum;
}

/// Full 1D convolution: thread i computes y[i] = sum over j of a[i - j] * b[j], i < n + m - 1.
__global__ void conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long length = static_cast<long long>(n) + m - 1;
  if (i >= length)
    return;
  float sum = 0.0f;
  // EXERCISE 1.4 begin: the range of taps and their sum
  // Sum a[i - j] * b[j] over the taps j with 0 <= j < m and 0 <= i - j < n.
  // EXERCISE 1.4 end
  y[i] = sum;
}

/// Launches product_kernel for @p Semiring with the mapping in @p options.
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, const course::LaunchOptions& options) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  const dim3 block(kBlockX, kBlockY);
  if (options.mapping == course::ThreadMapping::coalesced) {
    const auto kernel = product_kernel<Semiring, course::ThreadMapping::coalesced>;
    const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
    kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  } else {
    const auto kernel = product_kernel<Semiring, course::ThreadMapping::transposed>;
    const dim3 grid = course::grid_2d(m, n, block);  // x walks rows
    kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  }
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one thread per element of C.
/// @p options.mapping selects the coalesced (default) or transposed thread mapping.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, const course::LaunchOptions& options = {}) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, options);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one thread per element of C.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, const course::LaunchOptions& options = {}) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, options);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, const course::LaunchOptions& options = {}) {
  (void)options;
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
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream,
                   const course::LaunchOptions& options = {}) {
  (void)options;
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  const dim3 block(kBlock1d);
  const dim3 grid = course::grid_1d(static_cast<long long>(n) + m - 1, kBlock1d);
  conv1d_kernel<<<grid, block, 0, stream>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(conv1d_kernel, grid, block, 0, stream);
}

}  // namespace ch01
