/// @file
/// @brief Chapter 2's bug hunt: a tiled product with a defect. `--bug barrier` runs it in place
/// of the chapter's product; `--list-bugs` names it and the tool that catches it. The lesson says
/// how to hunt, not where.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace ch02::bug {

/// A tiled product like product_kernel, with square Tile x Tile tiles (one step is Tile deep),
/// written out on its own so that it does not depend on your exercises: each thread copies one
/// entry of each tile per step, then walks its row of the A tile and its column of the B tile
/// with two pointers. Its output is often right.
template <typename Semiring, int Tile>
__global__ void __launch_bounds__(product_threads(Tile))
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float a_tile[Tile][Tile];
  __shared__ float b_tile[Tile][Tile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  const float* a_next = A + static_cast<size_t>(row) * k + tx;  // this thread's entry of A ...
  const float* b_next = B + static_cast<size_t>(ty) * n + col;  // ... and of B at step 0
  float acc = Semiring::identity();
  for (int step = 0; step < k; step += Tile) {
    const bool a_inside = row < m && step + tx < k;
    const bool b_inside = step + ty < k && col < n;
    a_tile[ty][tx] = a_inside ? a_next[step] : Semiring::identity();
    b_tile[ty][tx] = b_inside ? b_next[static_cast<size_t>(step) * n] : Semiring::identity();
    __syncthreads();
    const float* a_row = a_tile[ty];
    const float* b_column = &b_tile[0][tx];
#pragma unroll
    for (int p = 0; p < Tile; ++p, b_column += Tile)
      acc = Semiring::combine(acc, a_row[p], *b_column);
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

}  // namespace ch02::bug
