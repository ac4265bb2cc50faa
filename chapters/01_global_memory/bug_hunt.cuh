/// @file
/// @brief Chapter 1's bug hunt: a matrix-product kernel with one defect planted in it.
///
/// Run it with `--bug edge` (see the lesson for the tools). It computes what matmul_kernel computes
/// with the coalesced mapping, reading A and B from global memory, one thread per element of C.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/launch.cuh"

namespace ch01 {

/// C = A * B, one thread per element of C (the launcher's grid: x over columns, y over rows).
/// Takes the product kernels' signature so that launch_product can launch it. It walks row `row`
/// of A and column `col` of B with two pointers.
__global__ void matmul_edge_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                                   ThreadMapping /*mapping: always coalesced*/) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row > m || col > n)
    return;
  const float* a = A + static_cast<size_t>(row) * k;  // A[row][0]; A[row][p] is a[p]
  const float* b = B + col;                           // B[0][col]; each next row is n further
  float dot = 0.0f;
  for (const float* end = a + k; a != end; ++a, b += n)
    dot += *a * *b;
  C[static_cast<size_t>(row) * n + col] = dot;
}

}  // namespace ch01
