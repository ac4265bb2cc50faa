/// @file kernels.cuh
/// @brief Chapter 4: register blocking. Shared memory becomes a small cache that feeds registers.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "course/semiring.cuh"

/// Chapter 4: register blocking.
namespace ch04 {

inline constexpr int kRegisterBlock = 8;   ///< results per side of a thread: `v[8][8]`
inline constexpr int kQuad = 4;            ///< floats in one float4
inline constexpr int kThreadsPerSide = 8;  ///< a block is 8 x 8 threads (two warps)
inline constexpr int kTile = kThreadsPerSide * kRegisterBlock;  ///< outputs per side of a tile
inline constexpr int kHalfTile = kTile / 2;  ///< steps 2, 3: a thread's two row groups are 32 apart
inline constexpr int kBatch = 4;             ///< k-steps per batch: `xx[4][64]`, `yy[4][64]`
inline constexpr int kProductThreads = kThreadsPerSide * kThreadsPerSide;  ///< threads per block
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;  ///< float4 slots in a row of a panel
inline constexpr int kCopiesPerThread = kBatch * kTile / kProductThreads;  ///< floats per panel
inline constexpr int kProductMinBlocksPerSm = 1;  ///< for `__launch_bounds__`: ptxas stays free

static_assert(kCopiesPerThread == kQuad, "each thread copies one float4 of each panel per batch");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows (and columns) are two float4 groups");

/// Step 1's layout: thread (tx, ty) owns the rows `ty + 8i` and the columns `tx + 8j`.
struct Interleaved {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) { return t + kThreadsPerSide * i; }
};

/// Steps 2 and 3: thread (tx, ty) owns the rows `ty*4 + 0..3` and `32 + ty*4 + 0..3` (and columns).
struct QuadGroups {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) {
    return (i / kQuad) * kHalfTile + t * kQuad + i % kQuad;
  }
};

/// Exercise 4.1, step 1: one batch of the A panel (transposed) into `xx`, of B into `yy`.
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

/// Combines the outer product of a thread's 8 + 8 operands @p x, @p y into its results @p v.
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

/// Step 1's inner loop: each k-step's 8 + 8 operands one float per load, their outer product.
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

/// Stores the thread's results into C (m x n, not padded), none outside C.
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

/// Step 1 over @p Semiring: block (bx, by) computes `C[64*by + (0..63)][64*bx + (0..63)]`.
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
    __syncthreads();  // the batch is in shared memory
    multiply_batch<Semiring>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with the batch before the next overwrites it
  }
  store_block<Interleaved>(c, m, n, row0, col0, tx, ty, v);
}

/// Exercise 4.4: multiply_batch() with each group of 4 operands read as one float4.
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

/// Where a thread's float4 copy goes in a panel: row (k-step) and first column.
struct PanelSlot {
  int row;  ///< k-step within the batch
  int col;  ///< first of the 4 columns
};

/// The slot of copy @p q: consecutive copies fill a row.
__host__ __device__ __forceinline__ PanelSlot panel_slot(int q) {
  return {q / kQuadsPerPanelRow, (q % kQuadsPerPanelRow) * kQuad};
}

/// Where a thread's float4s of a batch are in the A^T panel and in the B panel.
struct BatchSources {
  const float* a;  ///< `&at[k0 + slot.row][row0 + slot.col]`
  const float* b;  ///< `&bp[k0 + slot.row][col0 + slot.col]`
};

/// Exercise 4.5: the thread's first batch in @p at (pitch @p padded_m) and @p bp (@p padded_n).
/// A host function too, so that a CPU test can play a block's copies through it.
__host__ __device__ __forceinline__ BatchSources batch_sources(const float* at, const float* bp,
                                                               int padded_m, int padded_n, int row0,
                                                               int col0, PanelSlot slot) {
  // EXERCISE 4.5 begin
  return {at + static_cast<std::size_t>(slot.row) * padded_m + row0 + slot.col,
          bp + static_cast<std::size_t>(slot.row) * padded_n + col0 + slot.col};
  // EXERCISE 4.5 end
}

/// Step 2 over @p Semiring: float4 loads from @p at (A^T) and @p bp (B), padded with the identity.
template <class Semiring, class Layout = QuadGroups>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    float4_product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                          float* __restrict__ c, int m, int n, int padded_m, int padded_n,
                          int padded_k) {
  __shared__ __align__(16) float xx[kBatch][kTile];
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
    __syncthreads();  // the batch is in shared memory
    multiply_batch_float4<Semiring, Layout>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with the batch before the next overwrites it
  }
  store_block<Layout>(c, m, n, row0, col0, tx, ty, v);
}

/// Step 3 over @p Semiring, the solution: step 2 with the next batch prefetched into registers.
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
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;
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
    __syncthreads();  // the batch is in shared memory
    multiply_batch_float4<Semiring, QuadGroups>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with the batch before the next overwrites it
  }
  // EXERCISE 4.6 end
  store_block<QuadGroups>(c, m, n, row0, col0, tx, ty, v);
}

inline constexpr int kStrip = 8;           ///< outputs per thread along a row, in registers
inline constexpr int kStripThreadsX = 4;   ///< conv2d threads along x: 4 strips cover 32 outputs
inline constexpr int kStripThreadsY = 64;  ///< conv2d threads along y: one row of strips each
inline constexpr int kConv2dThreads = kStripThreadsX * kStripThreadsY;  ///< threads per block

/// The dynamic buffer of a conv2d block: the flipped mask, then the input tile.
struct ConvTile {
  int mask_pitch;  ///< mask columns rounded up to a whole float4; the extra columns hold 0
  int tile_rows;   ///< rows of inputs: the block's output rows + mask rows - 1
  int tile_cols;   ///< columns of inputs: the block's output columns + mask_pitch
  int tile_pitch;  ///< floats between tile rows: >= tile_cols and = 4 (mod 8)
  /// Bytes of the buffer for @p mask_rows mask rows.
  __host__ __device__ constexpr std::size_t shared_bytes(int mask_rows) const {
    return (static_cast<std::size_t>(mask_rows) * mask_pitch +
            static_cast<std::size_t>(tile_rows) * tile_pitch) *
           sizeof(float);
  }
};

/// The layout for a @p mask_rows x @p mask_cols mask (a pitch of 4 mod 8: no bank conflicts).
__host__ __device__ constexpr ConvTile conv_tile(int mask_rows, int mask_cols) {
  const int mask_pitch = (mask_cols + kQuad - 1) / kQuad * kQuad;
  const int tile_cols = kStripThreadsX * kStrip + mask_pitch;
  const int tile_pitch = tile_cols % 8 == 4 ? tile_cols : tile_cols + 4;
  return {mask_pitch, kStripThreadsY + mask_rows - 1, tile_cols, tile_pitch};
}

/// Exercise 4.7: copies the N floats at @p src (16-byte aligned) into registers @p dst by float4s.
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

/// Exercise 4.8: accumulates the K x L mask into the Strip outputs at @p tile_at, from registers.
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

/// Exercise 4.9: the same for a run-time mask size, four mask columns (one float4) at a time.
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

/// conv2d in strips of kStrip outputs per thread; a K x L mask, or any mask for K = L = 0.
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
  // float4s where the whole strip is inside and aligned (not x + kStrip <= w: INT_MAX overflow).
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

inline constexpr int kConv1dThreads = 256;  ///< threads of a conv1d block
inline constexpr int kMaxTaps = 4096;       ///< the most taps: they and their segment fit in 48 KB

inline constexpr int kConv1dStrip = kQuad;  ///< outputs per thread: 8 lanes read 128 bytes
inline constexpr int kConv1dRun = kConv1dThreads * kConv1dStrip;  ///< outputs per block

/// @p count rounded up to a whole number of float4.
__host__ __device__ constexpr int round_up_to_quad(int count) {
  return (count + kQuad - 1) / kQuad * kQuad;
}

/// Bytes of conv1d's buffer for @p m taps: the taps and the segment, each rounded up to float4s.
__host__ __device__ constexpr std::size_t conv1d_shared_bytes(int m) {
  return (2 * static_cast<std::size_t>(round_up_to_quad(m)) + kConv1dRun) * sizeof(float);
}

/// Exercise 4.10: the strip's sums over @p tap_quads float4s of taps, from registers.
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

/// Full 1D convolution `y[i] = sum over j of a[i - j] * b[j]`, a strip of outputs per thread.
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
  __syncthreads();  // the segment and the taps are complete before anyone reads them
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
