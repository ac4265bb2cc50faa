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

#include "course/launch.cuh"

/// Chapter 1: naive kernels, one thread per output.
namespace ch01 {

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
  // Compute this thread's fast index, blockIdx.x * blockDim.x + threadIdx.x (the 32 threads of
  // a warp have consecutive fast indices), and its slow index, the same along y. Then return
  // {row, col}: with ThreadMapping::coalesced the fast index is the column ({slow, fast}); with
  // ThreadMapping::transposed it is the row ({fast, slow}). For the transposed mapping the
  // launcher swaps the grid, grid_2d(m, n) instead of grid_2d(n, m), so that x covers the m rows
  // and y the n columns: see launch_product().
  return {INT_MAX, INT_MAX};  // replace: as written, every thread falls outside C and skips it
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
  // For p from 0 to k - 1, add A[row][p] * B[p][col] to sum (row-major: indices row * k + p and
  // p * n + col, computed in size_t so that large matrices do not overflow an int).
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
  // For p from 0 to k - 1, keep the smaller of shortest and A[row][p] + B[p][col] (fminf), with
  // the same indices as in matmul_kernel.
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
  // For every mask entry (p, q), add mask[p][q] * img[y + mk/2 - p][x + ml/2 - q] to sum,
  // skipping image positions outside [0, h) x [0, w) (zero padding).
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
  // Sum a[i - j] * b[j] over the taps j with 0 <= j < m and 0 <= i - j < n.
  // EXERCISE 1.5 end
  y[i] = sum;
}

}  // namespace ch01
