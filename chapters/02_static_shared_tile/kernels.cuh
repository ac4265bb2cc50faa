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
  // A tile entry stands for one element of the matrix. Where the tile sticks out of the
  // matrix (the last tiles when m, n or k is not a multiple of the tile width) there is no
  // element: what value can the tile hold there so that the reduction is not changed by it, for
  // either semiring? Index M as chapter 1 did, so that large matrices do not overflow an int.
  (void)M;
  (void)rows;
  (void)cols;
  (void)r;
  (void)c;
  return Semiring::identity();  // replace: as written, every tile entry is the identity
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
    // Every thread of the block copies its share of this step's tile of A and of B. The tiles
    // are deeper along k than the block is wide: how many entries of each tile fall to one
    // thread, and which ones, so that every warp's loads from global memory stay coalesced? Then
    // no thread may read the tiles before all of them are complete.
    (void)a_tile;  // silences "declared but never referenced" until you use the tiles
    (void)b_tile;
    // EXERCISE 2.2 end
    // EXERCISE 2.3 begin: the reduction over the tiles in shared memory, then a barrier
    // Fold this step's contribution into acc: the part of this thread's row of A and column of
    // B that the tiles hold (how far along k does one step reach?). Then, before the loop comes
    // back to overwrite the tiles, make sure no thread still needs them.
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
  // The block's outputs need more than their own inputs: a halo around them, as wide as the
  // mask reaches. Copy all of it into tile, laid out as its declaration says (first_y and
  // first_x: the image row and column of tile[0][0]), 0 where it falls outside the image (zero
  // padding), with every thread of the block taking part (there are more inputs than threads);
  // and copy the mask into mask_tile.
  (void)tile;       // delete these two lines: they only keep the compiler from warning that the
  (void)mask_tile;  // arrays are never used
  // EXERCISE 2.4 end
  float sum = 0.0f;
  // EXERCISE 2.5 begin: barrier, then the sum over the mask from shared memory
  // Before reading what other threads copied, wait for them. Then sum over the mask: which
  // entry of tile holds the image element that mask entry (p, q) multiplies for this output?
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
  // Output i needs the taps and the Taps inputs that end at a[i]: for the whole block, its own
  // inputs and a halo before them. Copy that segment of a into segment, laid out as its
  // declaration says (first: the index in a of segment[0]), 0 where an index falls outside the
  // signal, every thread taking part; and copy the taps into mask_tile.
  (void)segment;    // delete these two lines: they only keep the compiler from warning that
  (void)mask_tile;  // the arrays are never used
  // EXERCISE 2.6 end
  float sum = 0.0f;
  // EXERCISE 2.7 begin: barrier, then the sum over the taps from shared memory
  // Wait until the segment and the taps are complete, then sum over the taps: where in segment
  // is the input that tap j multiplies for this thread's output?
  // EXERCISE 2.7 end
  if (i < static_cast<long long>(n) + kHalo)
    y[i] = sum;
}

}  // namespace ch02
