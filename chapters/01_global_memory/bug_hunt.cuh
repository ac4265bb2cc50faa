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
/// Takes the product kernels' signature so that launch_product can launch it.
__global__ void matmul_edge_kernel(const float* A, const float* B, float* C, int m, int n, int k,
                                   course::ThreadMapping /*mapping: always coalesced*/) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row > m || col > n)
    return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p)
    sum += A[static_cast<size_t>(row) * k + p] * B[static_cast<size_t>(p) * n + col];
  C[static_cast<size_t>(row) * n + col] = sum;
}

}  // namespace ch01
