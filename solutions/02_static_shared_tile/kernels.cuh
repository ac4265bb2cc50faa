/// @file
/// @brief Chapter 2: a `__shared__` tile whose shape is fixed at compile time.
///
/// Each block copies the inputs it needs into shared memory once, waits at a barrier, and then
/// computes from shared memory, where every element it copied is reused by many threads. The
/// matrix product walks along k one tile of A (T x 2T) and of B (2T x T) at a time: load, barrier,
/// compute, barrier. The convolutions stage their input tile with the halo around it, and the mask,
/// then compute. Tile widths, mask sides and tap counts are template parameters: each one the
/// executable offers is a separately compiled kernel (chapters/02_static_shared_tile/launch.cuh
/// lists them and refuses the others). From this chapter on matmul and minplus share one product
/// kernel, a template over the semiring it combines with (course::PlusTimes or course::MinPlus,
/// common/include/course/semiring.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/semiring.cuh"

/// Chapter 2: static shared tiles.
namespace ch02 {

/// Threads of a product block for the tile width @p tile: one per tile element.
__host__ __device__ constexpr int product_threads(int tile) {
  return tile * tile;
}
/// Depth along k of a product step for the tile width @p tile: the tiles of A (tile x depth) and
/// of B (depth x tile) hold two tile widths of k, so a step does 2T combines per thread between
/// its two barriers.
__host__ __device__ constexpr int product_depth(int tile) {
  return 2 * tile;
}
/// The warp size: a warp must cover whole rows of a product tile (see product_kernel).
constexpr int kWarp = 32;
/// Outputs per side of a conv2d block, one per thread: a block is 32 x 32 threads, a warp is one
/// row of outputs.
constexpr int kConvBlock = 32;
/// Threads of a conv2d block.
constexpr int kConvThreads = kConvBlock * kConvBlock;
/// Threads of a conv1d block, one output each: eight warps.
constexpr int kConv1dThreads = 256;

/// One tile entry: element (@p r, @p c) of the @p rows x @p cols row-major matrix @p M, or the
/// semiring's identity where (r, c) falls outside it, so that any m, n, k works.
template <typename Semiring>
__device__ float element_or_identity(const float* M, int rows, int cols, int r, int c) {
  // EXERCISE 2.1 begin: one tile entry, the identity outside the matrix
  return r < rows && c < cols ? M[static_cast<size_t>(r) * cols + c] : Semiring::identity();
  // EXERCISE 2.1 end
}

/// Matrix product over @p Semiring: a block of Tile x Tile threads computes a Tile x Tile tile of
/// C, thread (x, y) the element in row y and column x of it. The block walks along k one step of
/// kDepth = 2 Tile at a time. At each step every thread copies two elements of A's Tile x kDepth
/// tile and two of B's kDepth x Tile tile into shared memory (the semiring's identity where a tile
/// sticks out of the matrix), the block waits until both tiles are complete, every thread combines
/// its row of the A tile with its column of the B tile, and the block waits again before the next
/// step overwrites the tiles. A warp spans whole rows of threads (one for T = 32, two for T = 16),
/// so its loads of A and B are coalesced; in shared memory it reads one A element per row of
/// threads (a broadcast) and consecutive B elements (distinct banks, or the same words twice: a
/// broadcast) at a time.
template <typename Semiring, int Tile>
__global__ void __launch_bounds__(product_threads(Tile))
    product_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  static_assert(product_threads(Tile) <= 1024,
                "one thread per tile element: at most 1024 per block");
  static_assert(Tile % kWarp == 0 || kWarp % Tile == 0,
                "a warp covers whole tile rows, or a tile row is whole warps");
  constexpr int kDepth = product_depth(Tile);
  __shared__ float a_tile[Tile][kDepth];  // A[rows of this block][step .. step + kDepth)
  __shared__ float b_tile[kDepth][Tile];  // B[step .. step + kDepth)[columns of this block]
  const int tx = threadIdx.x;             // column within the tile
  const int ty = threadIdx.y;             // row within the tile
  const int row = blockIdx.y * Tile + ty;
  const int col = blockIdx.x * Tile + tx;
  // No early return for threads outside C: every thread must reach every barrier, and these
  // threads still copy their share of the tiles.
  float acc = Semiring::identity();
  for (int step = 0; step < k; step += kDepth) {
    // EXERCISE 2.2 begin: this thread's share of the step's tiles, then a barrier
    // The tiles are kDepth / Tile times as deep as the block is wide: a thread copies one entry
    // of each per Tile columns of A's tile (rows of B's).
#pragma unroll
    for (int d = 0; d < kDepth; d += Tile) {
      a_tile[ty][d + tx] = element_or_identity<Semiring>(A, m, k, row, step + d + tx);
      b_tile[d + ty][tx] = element_or_identity<Semiring>(B, k, n, step + d + ty, col);
    }
    // Both tiles are complete before anyone reads them.
    __syncthreads();
    // EXERCISE 2.2 end
    // EXERCISE 2.3 begin: the reduction over the tiles in shared memory, then a barrier
#pragma unroll
    for (int p = 0; p < kDepth; ++p)
      acc = Semiring::combine(acc, a_tile[ty][p], b_tile[p][tx]);
    __syncthreads();  // nobody still reads the tiles when the next step overwrites them
    // EXERCISE 2.3 end
  }
  if (row < m && col < n)
    C[static_cast<size_t>(row) * n + col] = acc;
}

/// 2D convolution, zero padding, same-size output, with a Mask x Mask mask: a block of
/// kConvBlock x kConvBlock threads computes as many outputs, thread (x, y) out[y][x]. The block
/// first stages what its outputs need in shared memory: the input tile with a halo of Mask / 2 on
/// every side ((kConvBlock + Mask - 1) squared inputs, zero outside the image, more inputs than
/// threads, so each thread copies several) and the mask. After a barrier every thread sums over
/// the mask from shared memory. A warp reads one mask element (a broadcast) and 32 consecutive
/// tile elements (32 different banks) at a time.
template <int Mask>
__global__ void __launch_bounds__(kConvThreads)
    conv2d_kernel(const float* img, int h, int w, const float* mask, float* out) {
  static_assert(Mask >= 1 && Mask % 2 == 1, "the mask side is odd");
  constexpr int kRadius = Mask / 2;                    // halo width on each side
  constexpr int kTileSide = kConvBlock + 2 * kRadius;  // inputs per side of the staged tile
  __shared__ float tile[kTileSide][kTileSide];         // img[first_y + r][first_x + c] at [r][c]
  __shared__ float mask_tile[Mask][Mask];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int block_x = blockIdx.x * kConvBlock;  // the block's first output column ...
  const int block_y = blockIdx.y * kConvBlock;  // ... and row
  const int x = block_x + tx;
  const int y = block_y + ty;
  // EXERCISE 2.4 begin: stage the input tile with its halo, and the mask, in shared memory
  const int first_y = block_y - kRadius;  // image row of tile row 0
  const int first_x = block_x - kRadius;  // image column of tile column 0
  // The tile is larger than the block: the block covers it in kConvBlock x kConvBlock patches.
  for (int r = ty; r < kTileSide; r += kConvBlock) {
    const int source_y = first_y + r;
    for (int c = tx; c < kTileSide; c += kConvBlock) {
      const int source_x = first_x + c;
      const bool inside = source_y >= 0 && source_y < h && source_x >= 0 && source_x < w;
      tile[r][c] = inside ? img[static_cast<size_t>(source_y) * w + source_x] : 0.0f;
    }
  }
  for (int i = ty * kConvBlock + tx; i < Mask * Mask; i += kConvThreads)
    mask_tile[i / Mask][i % Mask] = mask[i];
  // EXERCISE 2.4 end
  float sum = 0.0f;
  // EXERCISE 2.5 begin: barrier, then the sum over the mask from shared memory
  __syncthreads();  // the tile and the mask are complete before anyone reads them
  // out[y][x] sits at tile[ty + kRadius][tx + kRadius]; img[y + kRadius - p][x + kRadius - q]
  // is kRadius - p rows and kRadius - q columns away from it.
  const int center_y = ty + kRadius;
  const int center_x = tx + kRadius;
#pragma unroll
  for (int p = 0; p < Mask; ++p) {
#pragma unroll
    for (int q = 0; q < Mask; ++q)
      sum += mask_tile[p][q] * tile[center_y + kRadius - p][center_x + kRadius - q];
  }
  // EXERCISE 2.5 end
  if (x < w && y < h)
    out[static_cast<size_t>(y) * w + x] = sum;
}

/// Full 1D convolution y[i] = sum over j of a[i - j] * b[j], i < n + Taps - 1, with Taps taps: a
/// block of kConv1dThreads threads computes as many consecutive outputs, thread t output
/// first_output + t. Output i reads a[i - Taps + 1] to a[i], so the block stages a *segment* of
/// the input: its own kConv1dThreads inputs and a halo of Taps - 1 before them (zero outside a,
/// where the full convolution starts and ends), more inputs than threads; and the taps. After a
/// barrier every thread sums over the taps from shared memory. A warp reads one tap (a broadcast)
/// and 32 consecutive segment elements (32 different banks) at a time.
template <int Taps>
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* a, int n, const float* b, float* y) {
  static_assert(Taps >= 1, "at least one tap");
  constexpr int kHalo = Taps - 1;                   // inputs staged before the first output's
  constexpr int kSegment = kConv1dThreads + kHalo;  // inputs staged per block
  __shared__ float segment[kSegment];               // a[first + s] at [s]
  __shared__ float mask_tile[Taps];                 // b[j] at [j]
  const int t = threadIdx.x;
  const long long first_output = static_cast<long long>(blockIdx.x) * kConv1dThreads;
  const long long i = first_output + t;
  // EXERCISE 2.6 begin: stage the segment with its halo, and the taps, in shared memory
  const long long first = first_output - kHalo;  // input index of segment[0]
  for (int s = t; s < kSegment; s += kConv1dThreads) {
    const long long source = first + s;
    segment[s] = source >= 0 && source < n ? a[source] : 0.0f;
  }
  for (int j = t; j < Taps; j += kConv1dThreads)
    mask_tile[j] = b[j];
  // EXERCISE 2.6 end
  float sum = 0.0f;
  // EXERCISE 2.7 begin: barrier, then the sum over the taps from shared memory
  __syncthreads();  // the segment and the taps are complete before anyone reads them
  // a[i] sits at segment[t + kHalo]; a[i - j] is j places before it.
#pragma unroll
  for (int j = 0; j < Taps; ++j)
    sum += mask_tile[j] * segment[t + kHalo - j];
  // EXERCISE 2.7 end
  if (i < static_cast<long long>(n) + kHalo)
    y[i] = sum;
}

}  // namespace ch02
