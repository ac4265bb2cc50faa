/// @file kernels.cuh
/// @brief Chapter 4: register blocking. Shared memory becomes a small cache that feeds registers.
///
/// Matrix product (matmul and minplus share one kernel through a semiring): a block of 8 x 8
/// threads computes a 64 x 64 tile of C, each thread 8 x 8 results in registers, fed from a shared
/// cache of 4 k-steps. Three steps, each a kernel that `--variant` runs: plain (scalar loads),
/// float4 (padded operands, 16-byte loads) and prefetch (the next batch loaded into registers
/// while this one is multiplied: the solution). conv2d and conv1d: each thread computes a strip
/// of neighbouring outputs from a window of inputs read into registers once.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/semiring.cuh"

/// Chapter 4: register blocking; 64 x 64 tiles per block of 8 x 8 threads, 8 x 8 results per
/// thread in registers, fed from a shared cache filled four k-steps at a time.
namespace ch04 {

// ---------------------------------------------------------------------------------------------
// Matrix product: geometry
// ---------------------------------------------------------------------------------------------

/// Threads per side of a block: a block is 8 x 8 = 64 threads (two warps).
inline constexpr int kThreadsPerSide = 8;
/// Results per side that one thread keeps in registers: an 8 x 8 block, `v[8][8]`.
inline constexpr int kRegisterBlock = 8;
/// Outputs per side of a block's tile: 64 x 64.
inline constexpr int kTile = kThreadsPerSide * kRegisterBlock;
/// Half a tile: from step 2 on, a thread's 8 rows (and columns) are two groups of 4, 32 apart.
inline constexpr int kHalfTile = kTile / 2;
/// k-steps per trip through shared memory: `xx[4][64]`, `yy[4][64]`.
inline constexpr int kBatch = 4;
/// Floats in one float4, the width of every shared and global access of the main loop.
inline constexpr int kQuad = 4;
/// Threads per block.
inline constexpr int kProductThreads = kThreadsPerSide * kThreadsPerSide;
/// The float4 slots in one row of a panel (one k-step).
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;
/// Floats that each thread copies of each 4 x 64 panel per batch: one float4 from step 2 on.
inline constexpr int kCopiesPerThread = kBatch * kTile / kProductThreads;
/// The fewest blocks per SM the product kernels ask for (`__launch_bounds__`): 1 leaves ptxas free.
inline constexpr int kProductMinBlocksPerSm = 1;

static_assert(kCopiesPerThread == kQuad, "each thread copies one float4 of each panel per batch");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows are two float4 groups");
static_assert(kThreadsPerSide * kQuad == kHalfTile, "the 8 threads' groups of 4 fill half a tile");

/// Step 1's layout: thread (tx, ty) owns the rows `ty + 8i` and the columns `tx + 8j`.
struct Interleaved {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) { return t + kThreadsPerSide * i; }
};

/// The layout of steps 2 and 3: thread (tx, ty) owns the rows `ty*4 + 0..3` and `32 + ty*4 + 0..3`,
/// and the same columns with tx: each group of 4 is one float4 in `xx` and `yy`.
struct QuadGroups {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) {
    return (i / kQuad) * kHalfTile + t * kQuad + i % kQuad;
  }
};

/// Exercise 4.1, step 1's batch copy: `xx[kk][r] = A[row0 + r][k0 + kk]` (A's panel, transposed)
/// and `yy[kk][c] = B[k0 + kk][col0 + c]`, the identity outside A (m x k) and B (k x n).
template <class Semiring>
__device__ __forceinline__ void load_batch(const float* __restrict__ a, const float* __restrict__ b,
                                           int m, int n, int k, int row0, int col0, int k0,
                                           int thread, float (&xx)[kBatch][kTile],
                                           float (&yy)[kBatch][kTile]) {
  // EXERCISE 4.1 begin
#pragma unroll
  for (int q = 0; q < kCopiesPerThread; ++q) {
    const int e = q * kProductThreads + thread;
    const int a_row = row0 + e / kBatch;  // 4 neighbouring threads read along a row of A
    const int a_col = k0 + e % kBatch;
    xx[e % kBatch][e / kBatch] = a_row < m && a_col < k
                                     ? a[static_cast<std::size_t>(a_row) * k + a_col]
                                     : Semiring::identity();
    const int b_row = k0 + e / kTile;
    const int b_col = col0 + e % kTile;
    yy[e / kTile][e % kTile] = b_row < k && b_col < n
                                   ? b[static_cast<std::size_t>(b_row) * n + b_col]
                                   : Semiring::identity();
  }
  // EXERCISE 4.1 end
}

/// Exercise 4.2, every step: combines the outer product of @p x (a thread's 8 values of the A panel
/// at one k-step) and @p y (its 8 values of the B panel) into its 64 results.
template <class Semiring>
__device__ __forceinline__ void outer_product(const float (&x)[kRegisterBlock],
                                              const float (&y)[kRegisterBlock],
                                              float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.2 begin
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j)
      v[i][j] = Semiring::combine(v[i][j], x[i], y[j]);
  }
  // EXERCISE 4.2 end
}

/// Starts every result at the semiring's identity (0 for plus-times, +inf for min-plus).
template <class Semiring>
__device__ __forceinline__ void fill_identity(float (&v)[kRegisterBlock][kRegisterBlock]) {
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j)
      v[i][j] = Semiring::identity();
  }
}

/// Step 1's inner loop: per k-step, the thread's 8 values of xx[kk] and of yy[kk] (Interleaved),
/// one float per load, and their outer product.
template <class Semiring>
__device__ __forceinline__ void multiply_batch(const float (&xx)[kBatch][kTile],
                                               const float (&yy)[kBatch][kTile], int tx, int ty,
                                               float (&v)[kRegisterBlock][kRegisterBlock]) {
#pragma unroll
  for (int kk = 0; kk < kBatch; ++kk) {
    float x[kRegisterBlock];
    float y[kRegisterBlock];
#pragma unroll
    for (int i = 0; i < kRegisterBlock; ++i) {
      x[i] = xx[kk][Interleaved::offset(i, ty)];
      y[i] = yy[kk][Interleaved::offset(i, tx)];
    }
    outer_product<Semiring>(x, y, v);
  }
}

/// Exercise 4.3, every step: the thread's results into C (m x n) where @p Layout puts them, none
/// outside C. One float per store (why not a float4: see the appendix).
template <class Layout>
__device__ __forceinline__ void store_block(float* __restrict__ c, int m, int n, int row0, int col0,
                                            int tx, int ty,
                                            const float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.3 begin
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
    const int row = row0 + Layout::offset(i, ty);
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j) {
      const int col = col0 + Layout::offset(j, tx);
      if (row < m && col < n)
        c[static_cast<std::size_t>(row) * n + col] = v[i][j];
    }
  }
  // EXERCISE 4.3 end
}

/// Step 1 over @p Semiring: block (bx, by) computes `C[64*by + (0..63)][64*bx + (0..63)]` from A
/// and B as they are, one float per load.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    plain_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                         float* __restrict__ c, int m, int n, int k) {
  __shared__ float xx[kBatch][kTile];  // the A panel, transposed
  __shared__ float yy[kBatch][kTile];  // the B panel
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  for (int k0 = 0; k0 < k; k0 += kBatch) {  // the same trips for every thread of the block
    load_batch<Semiring>(a, b, m, n, k, row0, col0, k0, ty * kThreadsPerSide + tx, xx, yy);
    __syncthreads();  // the batch is in xx, yy
    multiply_batch<Semiring>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with xx, yy before the next batch overwrites them
  }
  store_block<Interleaved>(c, m, n, row0, col0, tx, ty, v);
}

/// Exercise 4.4, the inner loop of steps 2 and 3: multiply_batch with each group of 4 values of
/// @p Layout read as one float4 (LDS.128): two of xx[kk] and two of yy[kk] per k-step.
template <class Semiring, class Layout>
__device__ __forceinline__ void multiply_batch_float4(const float (&xx)[kBatch][kTile],
                                                      const float (&yy)[kBatch][kTile], int tx,
                                                      int ty,
                                                      float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.4 begin
#pragma unroll
  for (int kk = 0; kk < kBatch; ++kk) {
    const float4 x_lo = *reinterpret_cast<const float4*>(&xx[kk][Layout::offset(0, ty)]);
    const float4 x_hi = *reinterpret_cast<const float4*>(&xx[kk][Layout::offset(kQuad, ty)]);
    const float4 y_lo = *reinterpret_cast<const float4*>(&yy[kk][Layout::offset(0, tx)]);
    const float4 y_hi = *reinterpret_cast<const float4*>(&yy[kk][Layout::offset(kQuad, tx)]);
    const float x[kRegisterBlock] = {x_lo.x, x_lo.y, x_lo.z, x_lo.w,
                                     x_hi.x, x_hi.y, x_hi.z, x_hi.w};
    const float y[kRegisterBlock] = {y_lo.x, y_lo.y, y_lo.z, y_lo.w,
                                     y_hi.x, y_hi.y, y_hi.z, y_hi.w};
    outer_product<Semiring>(x, y, v);
  }
  // EXERCISE 4.4 end
}

/// Where copy @p q (thread q, 0..63) goes in a 4 x 64 panel from step 2 on: row `q / 16`, columns
/// `4 * (q % 16)` to `+3`; the 16 threads of a row copy 256 contiguous bytes.
struct PanelSlot {
  int row;  ///< k-step within the batch, 0..3
  int col;  ///< first of the 4 columns, 0, 4, ..., 60
};

/// The slot of copy @p q.
__device__ __forceinline__ PanelSlot panel_slot(int q) {
  return {q / kQuadsPerPanelRow, (q % kQuadsPerPanelRow) * kQuad};
}

/// Where one thread's float4s of a batch are: in the A^T panel and in the B panel.
struct BatchSources {
  const float* a;  ///< `&at[k0 + slot.row][row0 + slot.col]`
  const float* b;  ///< `&bp[k0 + slot.row][col0 + slot.col]`
};

/// Exercise 4.5, steps 2 and 3: where the thread's float4s of the first batch are in `at` (A
/// transposed, padded_k x @p padded_m) and `bp` (B, padded_k x @p padded_n), for the tile at
/// (@p row0, @p col0) of C.
__device__ __forceinline__ BatchSources batch_sources(const float* at, const float* bp,
                                                      int padded_m, int padded_n, int row0,
                                                      int col0, PanelSlot slot) {
  // EXERCISE 4.5 begin
  return {at + static_cast<std::size_t>(slot.row) * padded_m + row0 + slot.col,
          bp + static_cast<std::size_t>(slot.row) * padded_n + col0 + slot.col};
  // EXERCISE 4.5 end
}

/// Step 2 over @p Semiring: the tile of C from @p at and @p bp, padded with the identity, so only
/// the stores into C check bounds. @p Layout is QuadGroups (the bug hunt passes another).
template <class Semiring, class Layout = QuadGroups>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    float4_product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                          float* __restrict__ c, int m, int n, int padded_m, int padded_n,
                          int padded_k) {
  __shared__ __align__(16) float xx[kBatch][kTile];  // 16-byte aligned for the float4 accesses
  __shared__ __align__(16) float yy[kBatch][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const PanelSlot slot = panel_slot(ty * kThreadsPerSide + tx);
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  const BatchSources src = batch_sources(at, bp, padded_m, padded_n, row0, col0, slot);
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    const float4 a =
        __ldg(reinterpret_cast<const float4*>(src.a + static_cast<std::size_t>(k0) * padded_m));
    const float4 b =
        __ldg(reinterpret_cast<const float4*>(src.b + static_cast<std::size_t>(k0) * padded_n));
    *reinterpret_cast<float4*>(&xx[slot.row][slot.col]) = a;
    *reinterpret_cast<float4*>(&yy[slot.row][slot.col]) = b;
    __syncthreads();  // the batch is in xx, yy
    multiply_batch_float4<Semiring, Layout>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with xx, yy before the next batch overwrites them
  }
  store_block<Layout>(c, m, n, row0, col0, tx, ty, v);
}

/// Step 3 over @p Semiring, the solution: step 2 with the next batch's float4s loaded into
/// registers while this batch is multiplied, instead of in front of the barrier.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                   float* __restrict__ c, int m, int n, int padded_m, int padded_n, int padded_k) {
  __shared__ __align__(16) float xx[kBatch][kTile];
  __shared__ __align__(16) float yy[kBatch][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const PanelSlot slot = panel_slot(ty * kThreadsPerSide + tx);
  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);
  BatchSources src = batch_sources(at, bp, padded_m, padded_n, row0, col0, slot);
  // EXERCISE 4.6 begin
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;  // 4 rows down
  const std::size_t b_step = static_cast<std::size_t>(kBatch) * padded_n;
  float4 next_a = __ldg(reinterpret_cast<const float4*>(src.a));
  float4 next_b = __ldg(reinterpret_cast<const float4*>(src.b));
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    *reinterpret_cast<float4*>(&xx[slot.row][slot.col]) = next_a;
    *reinterpret_cast<float4*>(&yy[slot.row][slot.col]) = next_b;
    if (k0 + kBatch < padded_k) {  // the same for every thread of the block
      src.a += a_step;
      src.b += b_step;
      next_a = __ldg(reinterpret_cast<const float4*>(src.a));
      next_b = __ldg(reinterpret_cast<const float4*>(src.b));
    }
    __syncthreads();  // the batch is in xx, yy
    multiply_batch_float4<Semiring, QuadGroups>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with xx, yy before the next batch overwrites them
  }
  // EXERCISE 4.6 end
  store_block<QuadGroups>(c, m, n, row0, col0, tx, ty, v);
}

// ---------------------------------------------------------------------------------------------
// Convolutions: strips of outputs in registers
// ---------------------------------------------------------------------------------------------

/// Outputs per thread along a row: the strip that one thread keeps in registers.
inline constexpr int kStrip = 8;
/// Threads per conv2d block along x: 4 strips of 8 cover 32 outputs of a row.
inline constexpr int kStripThreadsX = 4;
/// Threads per conv2d block along y: one row of strips each.
inline constexpr int kStripThreadsY = 64;
/// Threads per conv2d block.
inline constexpr int kConv2dThreads = kStripThreadsX * kStripThreadsY;

/// The shared-memory layout of one conv2d block: the flipped mask, then the input tile.
struct ConvTile {
  int mask_pitch;  ///< mask columns rounded up to a whole float4; the extra columns hold 0
  int tile_rows;   ///< rows of inputs: the block's output rows + mask rows - 1
  int tile_cols;   ///< columns of inputs loaded: the block's output columns + mask_pitch
  int tile_pitch;  ///< floats between tile rows: >= tile_cols and = 4 (mod 8), see conv_tile()
  /// Bytes of dynamic shared memory for @p mask_rows mask rows and this tile.
  __host__ __device__ constexpr std::size_t shared_bytes(int mask_rows) const {
    return (static_cast<std::size_t>(mask_rows) * mask_pitch +
            static_cast<std::size_t>(tile_rows) * tile_pitch) *
           sizeof(float);
  }
};

/// The layout for a @p mask_rows x @p mask_cols mask. The tile pitch is 4 (mod 8) floats, so that
/// the float4 window reads of one quarter-warp phase (4 lanes on one row, 4 on the next) cover
/// 32 distinct banks.
__host__ __device__ constexpr ConvTile conv_tile(int mask_rows, int mask_cols) {
  const int mask_pitch = (mask_cols + kQuad - 1) / kQuad * kQuad;
  const int tile_cols = kStripThreadsX * kStrip + mask_pitch;
  const int tile_pitch = tile_cols % 8 == 4 ? tile_cols : tile_cols + 4;
  return {mask_pitch, kStripThreadsY + mask_rows - 1, tile_cols, tile_pitch};
}

/// Exercise 4.7: copies the N floats at @p src (16-byte aligned) into the register array @p dst,
/// one float4 load per 4 floats.
template <int N>
__device__ __forceinline__ void load_quads(const float* src, float (&dst)[N]) {
  static_assert(N % kQuad == 0, "the floats are loaded as whole float4s");
  // EXERCISE 4.7 begin
  const float4* quads = reinterpret_cast<const float4*>(src);
#pragma unroll
  for (int q = 0; q < N / kQuad; ++q) {
    const float4 f = quads[q];
    dst[q * kQuad + 0] = f.x;
    dst[q * kQuad + 1] = f.y;
    dst[q * kQuad + 2] = f.z;
    dst[q * kQuad + 3] = f.w;
  }
  // EXERCISE 4.7 end
}

/// Exercise 4.8: accumulates the K x L mask (flipped, in shared memory with pitch @p mask_pitch)
/// into the Strip outputs whose window starts at @p tile_at. Per mask row, the Strip + L - 1
/// inputs and the L mask values go into registers once, then Strip * L multiply-adds use only
/// registers.
template <int K, int L, int Strip>
__device__ __forceinline__ void accumulate_strip(const float* tile_at, int tile_pitch,
                                                 const float* mask_tile, int mask_pitch,
                                                 float (&acc)[Strip]) {
  // EXERCISE 4.8 begin
  constexpr int kWindowQuads = (Strip + L - 1 + kQuad - 1) / kQuad;
  constexpr int kMaskQuads = (L + kQuad - 1) / kQuad;
#pragma unroll 1
  for (int dy = 0; dy < K; ++dy) {  // rolled: the body is large enough
    float window[kWindowQuads * kQuad];
    float m[kMaskQuads * kQuad];
    load_quads(tile_at + dy * tile_pitch, window);
    load_quads(mask_tile + dy * mask_pitch, m);
#pragma unroll
    for (int dx = 0; dx < L; ++dx) {
#pragma unroll
      for (int s = 0; s < Strip; ++s)
        acc[s] = fmaf(m[dx], window[s + dx], acc[s]);
    }
  }
  // EXERCISE 4.8 end
}

/// Exercise 4.9: the same for a mask size known only at run time (@p mask_rows x @p mask_pitch,
/// zero past the real mask's columns), four mask columns at a time: a window of Strip + 4 inputs
/// and one float4 of the mask per step.
template <int Strip>
__device__ __forceinline__ void accumulate_strip_any(const float* tile_at, int tile_pitch,
                                                     const float* mask_tile, int mask_rows,
                                                     int mask_pitch, float (&acc)[Strip]) {
  // EXERCISE 4.9 begin
  for (int dy = 0; dy < mask_rows; ++dy) {
    for (int dx0 = 0; dx0 < mask_pitch; dx0 += kQuad) {
      const float4 m = *reinterpret_cast<const float4*>(mask_tile + dy * mask_pitch + dx0);
      float window[Strip + kQuad];
      load_quads(tile_at + dy * tile_pitch + dx0, window);
#pragma unroll
      for (int s = 0; s < Strip; ++s) {
        acc[s] = fmaf(m.x, window[s + 0], acc[s]);
        acc[s] = fmaf(m.y, window[s + 1], acc[s]);
        acc[s] = fmaf(m.z, window[s + 2], acc[s]);
        acc[s] = fmaf(m.w, window[s + 3], acc[s]);
      }
    }
  }
  // EXERCISE 4.9 end
}

/// conv2d with register strips: thread (tx, ty) of block (bx, by) computes row `64*by + ty`,
/// columns `32*bx + 8*tx + 0..7`. K, L > 0 fix the mask size at compile time; K = L = 0 is the
/// generic path (@p mk x @p ml). The dynamic buffer holds the flipped mask and the input tile.
template <int K, int L>
__global__ void __launch_bounds__(kConv2dThreads)
    conv2d_kernel(const float* __restrict__ img, int h, int w, const float* __restrict__ mask,
                  int mk, int ml, float* __restrict__ out) {
  constexpr int kWarp = 32;
  const int mask_rows = K > 0 ? K : mk;
  const int mask_cols = L > 0 ? L : ml;
  const ConvTile layout = conv_tile(mask_rows, mask_cols);
  extern __shared__ __align__(16) float shared_buffer[];        // sized by the launch
  float* mask_tile = shared_buffer;                             // [mask_rows][mask_pitch]
  float* tile = shared_buffer + mask_rows * layout.mask_pitch;  // [tile_rows][tile_pitch]
  const int thread = threadIdx.y * kStripThreadsX + threadIdx.x;
  // The mask, flipped: out[y][x] = sum of mask_tile[p][q] * img[y - K/2 + p][x - L/2 + q].
  for (int i = thread; i < mask_rows * layout.mask_pitch; i += kConv2dThreads) {
    const int p = i / layout.mask_pitch;
    const int q = i % layout.mask_pitch;
    mask_tile[i] =
        q < mask_cols ? mask[(mask_rows - 1 - p) * mask_cols + (mask_cols - 1 - q)] : 0.0f;
  }
  // The input tile with its halo, zero outside the image; each warp loads 32 neighbouring floats.
  const int block_y = blockIdx.y * kStripThreadsY;           // the block's first output row ...
  const int block_x = blockIdx.x * kStripThreadsX * kStrip;  // ... and column
  const int first_y = block_y - mask_rows / 2;               // image row of tile row 0
  const int first_x = block_x - mask_cols / 2;               // image column of tile column 0
  for (int r = thread / kWarp; r < layout.tile_rows; r += kConv2dThreads / kWarp) {
    const int source_y = first_y + r;
    for (int c = thread % kWarp; c < layout.tile_cols; c += kWarp) {
      const int source_x = first_x + c;
      const bool inside = source_y >= 0 && source_y < h && source_x >= 0 && source_x < w;
      tile[r * layout.tile_pitch + c] =
          inside ? img[static_cast<std::size_t>(source_y) * w + source_x] : 0.0f;
    }
  }
  __syncthreads();  // the tile and the mask are complete before anyone reads them
  float acc[kStrip] = {};
  const float* tile_at = tile + threadIdx.y * layout.tile_pitch + threadIdx.x * kStrip;
  if constexpr (K > 0)
    accumulate_strip<K, L, kStrip>(tile_at, layout.tile_pitch, mask_tile, layout.mask_pitch, acc);
  else
    accumulate_strip_any(tile_at, layout.tile_pitch, mask_tile, mask_rows, layout.mask_pitch, acc);
  // Write-back: float4s where the row is aligned and the whole strip inside the image (x <= w -
  // kStrip: x + kStrip <= w would overflow near INT_MAX), one float at a time elsewhere.
  const int y = block_y + threadIdx.y;
  const int x = block_x + threadIdx.x * kStrip;
  if (y >= h)
    return;
  float* dst = out + static_cast<std::size_t>(y) * w + x;
  const bool whole = x <= w - kStrip && w % kQuad == 0 &&
                     reinterpret_cast<std::uintptr_t>(out) % sizeof(float4) == 0;
#pragma unroll
  for (int s = 0; s < kStrip; ++s) {
    if (whole && s % kQuad == 0)
      *reinterpret_cast<float4*>(dst + s) = make_float4(acc[s], acc[s + 1], acc[s + 2], acc[s + 3]);
    else if (!whole && x + s < w)
      dst[s] = acc[s];
  }
}

/// Threads of a conv1d block.
inline constexpr int kConv1dThreads = 256;
/// Consecutive conv1d outputs per thread: a strip of 4, so that the window reads of 8
/// neighbouring lanes are 128 contiguous bytes.
inline constexpr int kConv1dStrip = kQuad;
/// conv1d outputs per block.
inline constexpr int kConv1dRun = kConv1dThreads * kConv1dStrip;
/// The longest conv1d mask (as in chapter 3): every tap stays in shared memory.
inline constexpr int kMaxTaps = 4096;

/// @p count rounded up to a whole number of float4.
__host__ __device__ constexpr int round_up_to_quad(int count) {
  return (count + kQuad - 1) / kQuad * kQuad;
}

/// Bytes of conv1d's buffer for @p m taps: the reversed taps rounded up to a float4 (zeros past
/// the last), then the segment of inputs that the block's kConv1dRun outputs read, one float4
/// longer than the taps so that the last window read stays inside. 127 taps: 5120 bytes.
__host__ __device__ constexpr std::size_t conv1d_shared_bytes(int m) {
  return (2 * static_cast<std::size_t>(round_up_to_quad(m)) + kConv1dRun) * sizeof(float);
}

/// Exercise 4.10: accumulates the reversed taps (@p taps, @p tap_quads float4, zero past the
/// last) into the kConv1dStrip outputs whose inputs start at @p window_at (16-byte aligned):
/// output s is the sum over q of `taps[q] * window_at[s + q]`.
__device__ __forceinline__ void accumulate_taps(const float* window_at, const float* taps,
                                                int tap_quads, float (&acc)[kConv1dStrip]) {
  // EXERCISE 4.10 begin
  const float4* inputs = reinterpret_cast<const float4*>(window_at);
  const float4* quads = reinterpret_cast<const float4*>(taps);
  float4 low = inputs[0];
  for (int q = 0; q < tap_quads; ++q) {
    const float4 high = inputs[q + 1];  // one new float4 of inputs per 4 taps
    const float4 t = quads[q];          // a broadcast: every lane reads the same taps
    const float window[2 * kQuad] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
    const float tap[kQuad] = {t.x, t.y, t.z, t.w};
#pragma unroll
    for (int s = 0; s < kConv1dStrip; ++s) {
#pragma unroll
      for (int j = 0; j < kQuad; ++j)
        acc[s] = fmaf(tap[j], window[s + j], acc[s]);
    }
    low = high;
  }
  // EXERCISE 4.10 end
}

/// Full 1D convolution `y[i] = sum over j of a[i - j] * b[j]`, i < n + m - 1: block i0 computes
/// the kConv1dRun outputs from i0 * kConv1dRun, thread t the strip of kConv1dStrip from there
/// + 4t. The block stages the taps reversed and the segment of inputs its outputs read (with the
/// halo of m - 1 before them, zero outside a) in the dynamic buffer, as chapter 3 did.
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* __restrict__ a, int n, const float* __restrict__ b, int m,
                  float* __restrict__ y) {
  const int tap_floats = round_up_to_quad(m);
  extern __shared__ __align__(16) float shared_buffer[];  // sized by the launch
  float* taps = shared_buffer;                            // tap_floats floats from offset 0
  float* segment = shared_buffer + tap_floats;            // kConv1dRun + tap_floats floats
  const long long first_output = static_cast<long long>(blockIdx.x) * kConv1dRun;
  const long long first = first_output - (m - 1);  // signal index of segment[0]
  for (int q = threadIdx.x; q < tap_floats; q += kConv1dThreads)
    taps[q] = q < m ? b[m - 1 - q] : 0.0f;
  for (int s = threadIdx.x; s < kConv1dRun + tap_floats; s += kConv1dThreads) {
    const long long source = first + s;
    segment[s] = s < kConv1dRun + m - 1 && source >= 0 && source < n ? a[source] : 0.0f;
  }
  __syncthreads();  // the taps and the segment are complete before anyone reads them
  float acc[kConv1dStrip] = {};
  accumulate_taps(segment + threadIdx.x * kConv1dStrip, taps, tap_floats / kQuad, acc);
  const long long i = first_output + threadIdx.x * kConv1dStrip;
  const long long length = static_cast<long long>(n) + m - 1;
#pragma unroll
  for (int s = 0; s < kConv1dStrip; ++s) {
    if (i + s < length)
      y[i + s] = acc[s];
  }
}

}  // namespace ch04
