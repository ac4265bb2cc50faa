/// @file
/// @brief Chapter 1: one thread per output, every operand read from global memory.
///
/// The starting point of the course's four problems. Each thread finds the output it owns from
/// its block and thread indices, reads every operand it needs straight from global memory, and
/// writes one result. Nothing is shared between threads except what the caches happen to keep.
/// The launchers are in launch.cuh.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cmath>

#include "course/launch.cuh"

/// Chapter 1: naive kernels, one thread per output.
namespace ch01 {

/// How consecutive threads of a warp map onto the output of a matrix product: the launch choice
/// of this chapter's products (`--mapping`), and its coalescing experiment.
enum class ThreadMapping {
  coalesced,   ///< consecutive threads compute consecutive columns: loads of B and stores coalesce
  transposed,  ///< consecutive threads compute consecutive rows: every access is strided
};

/// One element of a matrix: its row and its column.
struct Element {
  int row;  ///< row index
  int col;  ///< column index
};

/// The element of C that the thread @p thread of block @p block (blocks of @p size threads)
/// computes: a kernel passes its built-in threadIdx, blockIdx and blockDim. The 32 threads of a
/// warp have consecutive x indices. With ThreadMapping::coalesced a warp owns 32 neighbouring
/// elements of one row of C; with ThreadMapping::transposed, 32 neighbouring elements of one
/// column. The launcher lays out the grid to match. A host function too, so that a CPU test can
/// play every thread of a grid through it.
__host__ __device__ inline Element owned_element(ThreadMapping mapping, uint3 block, uint3 thread,
                                                 dim3 size) {
  // EXERCISE 1.5 begin: which element of C a thread owns
  // Which element of C does this thread compute? Number the threads of the grid along x and along
  // y (block, thread and size play the parts of blockIdx, threadIdx and blockDim). Then: which of
  // the two numbers do the 32 threads of a warp walk through one after another, and, for each
  // mapping, must that number be a row or a column of C for the warp to own what the mapping
  // says? The grid that launch_product (launch.cuh) lays out tells you which extent x covers. As
  // written, every thread falls outside C and skips it.
  (void)mapping;
  (void)block;
  (void)thread;
  (void)size;
  return {INT_MAX, INT_MAX};
  // EXERCISE 1.5 end
}

/// C = A * B: the thread that owns C[row][col] reads row `row` of A and column `col` of B from
/// global memory and writes their dot product.
__global__ void matmul_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                              ThreadMapping mapping) {
  const auto [row, col] = owned_element(mapping, blockIdx, threadIdx, blockDim);
  // The grid is rounded up to whole blocks, so some threads fall outside C. This kernel has no
  // barrier, so they may simply leave.
  if (row >= m || col >= n)
    return;
  float sum = 0.0f;
  // EXERCISE 1.6 begin: the sum over k
  // Accumulate in sum this thread's row of A times its column of B. Where in memory, in these
  // row-major arrays, are A[row][p] and B[p][col]? (For large matrices, row * k does not fit in
  // an int.)
  // EXERCISE 1.6 end
  C[static_cast<size_t>(row) * n + col] = sum;
}

/// C[row][col] = min over p of A[row][p] + B[p][col], the shortest path of two steps from `row`
/// to `col`: the same threads and the same reads as matmul_kernel, another arithmetic. The result
/// starts as +infinity ("no path") and each step keeps the smaller of it and A + B.
__global__ void minplus_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                               ThreadMapping mapping) {
  const auto [row, col] = owned_element(mapping, blockIdx, threadIdx, blockDim);
  if (row >= m || col >= n)
    return;
  float shortest = INFINITY;
  // EXERCISE 1.7 begin: the minimum over k
  // Keep in shortest the length of the shortest path from row to col in two steps, through any
  // middle vertex p; the reads are those of matmul_kernel.
  // EXERCISE 1.7 end
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
  // EXERCISE 1.8 begin: the sum over the mask
  // Accumulate in sum the mask-weighted neighbourhood of pixel (y, x), as the lesson defines the
  // convolution. Neighbours outside the image count as zero: skip them rather than read them.
  // EXERCISE 1.8 end
  out[static_cast<size_t>(y) * w + x] = sum;
}

/// Full 1D convolution: thread i computes y[i] = sum over j of a[i - j] * b[j], i < n + m - 1.
__global__ void conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long length = static_cast<long long>(n) + m - 1;
  if (i >= length)
    return;
  float sum = 0.0f;
  // EXERCISE 1.9 begin: the range of taps and their sum
  // Accumulate y[i]: each tap pairs with one signal sample. Visit only the taps whose sample
  // exists (a read outside a or b is an error that compute-sanitizer reports); can the loop's
  // bounds follow from i, n and m, so that no test is needed inside it?
  // EXERCISE 1.9 end
  y[i] = sum;
}

}  // namespace ch01
