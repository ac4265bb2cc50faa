/// @file kernels.cuh
/// @brief Chapter 4: register blocking. Shared memory becomes a small cache that feeds registers.
///
/// Matrix product (matmul and minplus share one kernel through a semiring): a block of 8 x 8
/// threads computes a 64 x 64 tile of C, and each thread keeps its 8 x 8 results in registers.
/// The block walks along k four steps at a time: the 64 threads copy a 4 x 64 panel of A
/// (transposed) and a 4 x 64 panel of B into `xx` and `yy`, then each thread reads 8 + 8 values
/// per step and combines them into its 64 results. The lesson builds the kernel in three steps,
/// each a kernel of its own that `--variant` runs:
///   1. plain: scalar loads everywhere; the batch copy reads A and B where they are, with bounds
///      checks (plain_product_kernel);
///   2. float4: a pre-pass copies A transposed and pads both operands with the semiring's
///      identity, so every load is a float4, from global and from shared memory, with no bounds
///      check (float4_product_kernel);
///   3. prefetch: the next batch travels from global memory into registers while this one is
///      multiplied (product_kernel, the solution and the default).
///
/// conv2d: each thread computes a strip of outputs along a row; for each mask row it loads the
/// window of inputs those outputs need from the shared tile into registers once, and reuses every
/// value for up to `Strip` outputs.
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
/// Half a tile: a thread's 8 rows (and 8 columns) are two groups of 4, 32 apart.
inline constexpr int kHalfTile = kTile / 2;
/// k-steps per trip through shared memory: `xx[4][64]`, `yy[4][64]`.
inline constexpr int kBatch = 4;
/// Floats in one float4, the width of every shared and global access of the loop from step 2 on.
inline constexpr int kQuad = 4;
/// Threads per block.
inline constexpr int kProductThreads = kThreadsPerSide * kThreadsPerSide;
/// Floats that each thread copies of each 4 x 64 panel per batch.
inline constexpr int kCopiesPerThread = kBatch * kTile / kProductThreads;
/// The float4 slots in one row of a 4 x 64 panel.
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;
/// The second `__launch_bounds__` argument of the product kernels: the fewest blocks per SM they
/// must allow. 1 leaves ptxas free to give each thread what the loop wants (the lesson's "going
/// further" section shows what capping the registers costs).
inline constexpr int kProductMinBlocksPerSm = 1;

static_assert(kCopiesPerThread == kQuad,
              "each thread copies exactly one float4 of each 4 x 64 panel per batch");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows are two float4 groups");
static_assert(kThreadsPerSide * kQuad == kHalfTile, "the 8 threads' groups of 4 fill half a tile");

/// Step 1's layout of a thread's 8 x 8 results in the 64 x 64 tile: thread (tx, ty) owns the rows
/// `ty + 8i` and the columns `tx + 8j` (i, j = 0..7), so the 8 threads of a warp's row read 8
/// neighbouring floats of `yy` with one scalar load each, without bank conflicts.
struct Interleaved {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) { return t + kThreadsPerSide * i; }
};

/// The layout of steps 2 and 3: thread (tx, ty) owns two groups of 4 rows, 32 apart
/// (`ty*4 + 0..3` and `32 + ty*4 + 0..3`), and two groups of 4 columns (the same with tx), so that
/// each group is one float4 in `xx` and `yy`.
struct QuadGroups {
  /// The @p i-th row (or column) of thread index @p t (ty for rows, tx for columns).
  __host__ __device__ static constexpr int offset(int i, int t) {
    return (i / kQuad) * kHalfTile + t * kQuad + i % kQuad;
  }
};

// ---------------------------------------------------------------------------------------------
// Step 1, plain: 8 x 8 results per thread, scalar loads
// ---------------------------------------------------------------------------------------------

/// Exercise 4.1, the batch copy of step 1: copies `xx[kk][r] = A[row0 + r][k0 + kk]` (the block's
/// 64 rows of A at 4 k-steps, transposed) and `yy[kk][c] = B[k0 + kk][col0 + c]`, with
/// `Semiring::identity()` wherever the index is outside A (m x k) or B (k x n). The 64 threads
/// copy 4 floats of each panel each: copy q of thread @p thread is element
/// `e = q * 64 + thread` of the panel.
template <class Semiring>
__device__ __forceinline__ void load_batch(const float* __restrict__ a, const float* __restrict__ b,
                                           int m, int n, int k, int row0, int col0, int k0,
                                           int thread, float (&xx)[kBatch][kTile],
                                           float (&yy)[kBatch][kTile]) {
  // EXERCISE 4.1 begin: for each q < kCopiesPerThread, with e = q * kProductThreads + thread:
  // - A: kk = e % kBatch, r = e / kBatch (so 4 neighbouring threads read 4 neighbouring floats of
  //   one row of A); xx[kk][r] = A[row0 + r][k0 + kk], or the identity outside A;
  // - B: kk = e / kTile, c = e % kTile (neighbouring threads, neighbouring columns);
  //   yy[kk][c] = B[k0 + kk][col0 + c], or the identity outside B.
  // Compute row * pitch in std::size_t: for large matrices it passes 2^31.
#pragma unroll
  for (int q = 0; q < kCopiesPerThread; ++q) {
    const int e = q * kProductThreads + thread;
    const int a_row = row0 + e / kBatch;
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

/// Exercise 4.2, the register block of every step: combines the outer product of @p x (this
/// thread's 8 values of the A panel at one k-step, one per row it owns) and @p y (its 8 values of
/// the B panel, one per column) into its 64 results: `v[i][j] = combine(v[i][j], x[i], y[j])`.
/// 16 values loaded, 64 combines: every value is used 8 times.
template <class Semiring>
__device__ __forceinline__ void outer_product(const float (&x)[kRegisterBlock],
                                              const float (&y)[kRegisterBlock],
                                              float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.2 begin: v[i][j] = Semiring::combine(v[i][j], x[i], y[j]) for all 64 (i, j).
  // Unroll both loops (#pragma unroll) so that x, y and v are indexed by constants and stay in
  // registers.
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

/// The inner loop of step 1: for each of the 4 k-steps of the batch, this thread's 8 values of
/// xx[kk] and 8 of yy[kk], one float per load, in the Interleaved layout (x[i] is row `ty + 8i`,
/// y[j] column `tx + 8j`), and their outer product.
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

/// Exercise 4.3, the write-back of every step: stores the thread's 8 x 8 results into C (m x n,
/// row-major), skipping rows and columns outside C (C is not padded). @p Layout (Interleaved or
/// QuadGroups) says where in the tile the thread's results are. One float per store. (In the
/// QuadGroups layout, why not one float4 store per group of 4: see the lesson's "going further".)
template <class Layout>
__device__ __forceinline__ void store_block(float* __restrict__ c, int m, int n, int row0, int col0,
                                            int tx, int ty,
                                            const float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.3 begin: v[i][j] belongs to row row0 + Layout::offset(i, ty) and column
  // col0 + Layout::offset(j, tx). Write it there if that row is < m and that column < n.
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

/// Step 1, the plain register-blocked product over @p Semiring: block (bx, by) computes
/// `C[64*by + (0..63)][64*bx + (0..63)]` from A (m x k) and B (k x n) as they are. Every load is
/// one float; the batch copy checks its bounds and fills the identity outside the matrices.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    plain_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                         float* __restrict__ c, int m, int n, int k) {
  // The cache: kBatch rows of the A panel (transposed) and of the B panel, 2 KB in all.
  __shared__ float xx[kBatch][kTile];
  __shared__ float yy[kBatch][kTile];

  const int tx = threadIdx.x;  // columns tx + 8j
  const int ty = threadIdx.y;  // rows ty + 8i
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

// ---------------------------------------------------------------------------------------------
// Step 2, float4: padded operands, float4 loads everywhere
// ---------------------------------------------------------------------------------------------

/// Exercise 4.4, the inner loop of steps 2 and 3: multiply_batch in the QuadGroups layout, with
/// each group of 4 values read as one float4 (LDS.128): per step kk, two float4 of xx[kk] and two
/// of yy[kk]. Register `v[i][j]` now holds row `(i/4)*32 + ty*4 + i%4` and column
/// `(j/4)*32 + tx*4 + j%4`.
template <class Semiring>
__device__ __forceinline__ void multiply_batch_float4(const float (&xx)[kBatch][kTile],
                                                      const float (&yy)[kBatch][kTile], int tx,
                                                      int ty,
                                                      float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 4.4 begin: as multiply_batch, but read this thread's x values of step kk as the
  // two float4 at &xx[kk][ty*4] and &xx[kk][32 + ty*4] (reinterpret_cast<const float4*>: xx is
  // 16-byte aligned), and its y values as the two at &yy[kk][tx*4] and &yy[kk][32 + tx*4]; then
  // outer_product.
#pragma unroll
  for (int kk = 0; kk < kBatch; ++kk) {
    const float4 x_lo = *reinterpret_cast<const float4*>(&xx[kk][ty * kQuad]);
    const float4 x_hi = *reinterpret_cast<const float4*>(&xx[kk][kHalfTile + ty * kQuad]);
    const float4 y_lo = *reinterpret_cast<const float4*>(&yy[kk][tx * kQuad]);
    const float4 y_hi = *reinterpret_cast<const float4*>(&yy[kk][kHalfTile + tx * kQuad]);
    const float x[kRegisterBlock] = {x_lo.x, x_lo.y, x_lo.z, x_lo.w,
                                     x_hi.x, x_hi.y, x_hi.z, x_hi.w};
    const float y[kRegisterBlock] = {y_lo.x, y_lo.y, y_lo.z, y_lo.w,
                                     y_hi.x, y_hi.y, y_hi.z, y_hi.w};
    outer_product<Semiring>(x, y, v);
  }
  // EXERCISE 4.4 end
}

/// Where thread @p thread (0..63) copies in a 4 x 64 panel from step 2 on: row `thread / 16`,
/// columns `4 * (thread % 16)` to `+3`. The 16 threads of a row read 256 contiguous bytes.
struct PanelSlot {
  int row;  ///< k-step within the batch, 0..3
  int col;  ///< first of the 4 columns, 0, 4, ..., 60
};

/// The slot that thread @p thread copies in every batch.
__device__ __forceinline__ PanelSlot panel_slot(int thread) {
  return {thread / kQuadsPerPanelRow, (thread % kQuadsPerPanelRow) * kQuad};
}

/// Where one thread's float4s of a batch are: in the A^T panel and in the B panel.
struct BatchSources {
  const float* a;  ///< `&at[k0 + slot.row][row0 + slot.col]`
  const float* b;  ///< `&bp[k0 + slot.row][col0 + slot.col]`
};

/// Exercise 4.5, the batch copy of steps 2 and 3: where this thread's float4s of the first batch
/// (k0 = 0) are in the transposed, padded A (`at`, padded_k x padded_m) and the padded B (`bp`,
/// padded_k x padded_n), for the block whose tile starts at row @p row0, column @p col0 of C. The
/// kernel reads them as float4 and moves both 4 rows down per batch. Both operands are padded, so
/// the reads need no bounds checks, and 16-byte aligned, so each is one float4.
template <class Semiring>
__device__ __forceinline__ BatchSources batch_sources(const float* at, const float* bp,
                                                      int padded_m, int padded_n, int row0,
                                                      int col0, PanelSlot slot) {
  // EXERCISE 4.5 begin: the A^T float4 is at row slot.row, column row0 + slot.col of at (pitch
  // padded_m): the block's 64 rows of A are 64 contiguous columns of at. The B float4 is at row
  // slot.row, column col0 + slot.col of bp (pitch padded_n). Compute row * pitch in std::size_t:
  // for large matrices it passes 2^31.
  return {at + static_cast<std::size_t>(slot.row) * padded_m + row0 + slot.col,
          bp + static_cast<std::size_t>(slot.row) * padded_n + col0 + slot.col};
  // EXERCISE 4.5 end
}

/// Step 2, the product over @p Semiring with float4 loads: block (bx, by) computes
/// `C[64*by + (0..63)][64*bx + (0..63)]`; @p at is A transposed and padded (padded_k x padded_m),
/// @p bp is B padded (padded_k x padded_n); both padded with `Semiring::identity()`, so the loop
/// over k has no bounds checks. Only the stores into C (m x n) are checked.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    float4_product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                          float* __restrict__ c, int m, int n, int padded_m, int padded_n,
                          int padded_k) {
  // The cache, 16-byte aligned for the float4 accesses.
  __shared__ __align__(16) float xx[kBatch][kTile];
  __shared__ __align__(16) float yy[kBatch][kTile];

  const int tx = threadIdx.x;  // column groups: columns tx*4.. and 32 + tx*4..
  const int ty = threadIdx.y;  // row groups: rows ty*4.. and 32 + ty*4..
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const PanelSlot slot = panel_slot(ty * kThreadsPerSide + tx);

  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);

  const BatchSources src = batch_sources<Semiring>(at, bp, padded_m, padded_n, row0, col0, slot);
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    // One float4 of each panel per thread, through the read-only path (__ldg).
    const float4 a =
        __ldg(reinterpret_cast<const float4*>(src.a + static_cast<std::size_t>(k0) * padded_m));
    const float4 b =
        __ldg(reinterpret_cast<const float4*>(src.b + static_cast<std::size_t>(k0) * padded_n));
    *reinterpret_cast<float4*>(&xx[slot.row][slot.col]) = a;
    *reinterpret_cast<float4*>(&yy[slot.row][slot.col]) = b;
    __syncthreads();  // the batch is in xx, yy
    multiply_batch_float4<Semiring>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with xx, yy before the next batch overwrites them
  }
  store_block<QuadGroups>(c, m, n, row0, col0, tx, ty, v);
}

// ---------------------------------------------------------------------------------------------
// Step 3, prefetch: the solution
// ---------------------------------------------------------------------------------------------

/// Step 3, the register-blocked product over @p Semiring: step 2 with a register prefetch, the
/// chapter's solution. The next batch's two float4 are loaded from global memory into registers
/// right after the current batch is stored to shared memory, so they travel while the block
/// multiplies; no warp then waits for a global load right before its barrier.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads, kProductMinBlocksPerSm)
    product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                   float* __restrict__ c, int m, int n, int padded_m, int padded_n, int padded_k) {
  // The cache: kBatch rows of the A^T panel and of the B panel, 2 KB in all.
  __shared__ __align__(16) float xx[kBatch][kTile];
  __shared__ __align__(16) float yy[kBatch][kTile];

  const int tx = threadIdx.x;  // column group: columns tx*4.. and 32 + tx*4..
  const int ty = threadIdx.y;  // row group: rows ty*4.. and 32 + ty*4..
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const PanelSlot slot = panel_slot(ty * kThreadsPerSide + tx);

  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);

  BatchSources src = batch_sources<Semiring>(at, bp, padded_m, padded_n, row0, col0, slot);
  // EXERCISE 4.6 begin: the loop of float4_product_kernel, with the global loads moved: load the
  // first batch's two float4 (next_a, next_b) before the loop; in each trip, store them to xx, yy,
  // then, if another batch follows (k0 + kBatch < padded_k), move src.a and src.b 4 rows down
  // and load that batch's float4 into next_a, next_b; then the barrier, multiply_batch_float4, and
  // the second barrier.
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;  // 4 rows down
  const std::size_t b_step = static_cast<std::size_t>(kBatch) * padded_n;
  float4 next_a = __ldg(reinterpret_cast<const float4*>(src.a));
  float4 next_b = __ldg(reinterpret_cast<const float4*>(src.b));
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    *reinterpret_cast<float4*>(&xx[slot.row][slot.col]) = next_a;
    *reinterpret_cast<float4*>(&yy[slot.row][slot.col]) = next_b;
    if (k0 + kBatch < padded_k) {  // the same for every thread of the block: no divergence
      src.a += a_step;
      src.b += b_step;
      next_a = __ldg(reinterpret_cast<const float4*>(src.a));
      next_b = __ldg(reinterpret_cast<const float4*>(src.b));
    }
    __syncthreads();  // the batch is in xx, yy
    multiply_batch_float4<Semiring>(xx, yy, tx, ty, v);
    __syncthreads();  // everyone is done with xx, yy before the next batch overwrites them
  }
  // EXERCISE 4.6 end
  store_block<QuadGroups>(c, m, n, row0, col0, tx, ty, v);
}

// ---------------------------------------------------------------------------------------------
// conv2d: register-blocked strips
// ---------------------------------------------------------------------------------------------

/// Outputs per thread along a row: the strip that one thread keeps in registers.
inline constexpr int kStrip = 8;
/// Threads per block along x and y: 4 x 64 threads of 8 outputs each cover 32 x 64 outputs.
/// With 32 / kStrip threads per row, the float4 window reads of 8 neighbouring lanes (4 per
/// row, 2 rows) land on 32 distinct banks (see conv_tile()).
inline constexpr int kStripThreadsX = 4;
/// Threads per conv2d block along y: one row of strips each.
inline constexpr int kStripThreadsY = 64;

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

/// The layout for a mask of @p mask_rows x @p mask_cols and blocks of ThreadsX x ThreadsY
/// threads with Strip outputs each. The tile pitch is 4 (mod 8) floats: a float4 read by 8
/// neighbouring lanes (ThreadsX per row, 8 / ThreadsX rows) then touches 32 distinct banks.
template <int Strip, int ThreadsX, int ThreadsY>
__host__ __device__ constexpr ConvTile conv_tile(int mask_rows, int mask_cols) {
  const int mask_pitch = (mask_cols + kQuad - 1) / kQuad * kQuad;
  const int tile_cols = ThreadsX * Strip + mask_pitch;
  const int tile_pitch = tile_cols % 8 == 4 ? tile_cols : tile_cols + 4;
  return {mask_pitch, ThreadsY + mask_rows - 1, tile_cols, tile_pitch};
}

/// Exercise 4.7: copies the N floats at @p src into the register array @p dst, one float4 load
/// for every 4 floats. @p src must be 16-byte aligned and N a multiple of 4.
template <int N>
__device__ __forceinline__ void load_quads(const float* src, float (&dst)[N]) {
  static_assert(N % kQuad == 0, "the floats are loaded as whole float4s");
  // EXERCISE 4.7 begin: read float4 number q of src (reinterpret_cast<const float4*>) for each
  // q < N / 4 and put its x, y, z, w into dst[4q + 0..3]. Unroll the loop (#pragma unroll): dst
  // stays in registers only if every index is a constant.
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

/// Exercise 4.8: accumulates the K x L mask (flipped, in shared memory with pitch `mask_pitch`)
/// into the Strip outputs whose inputs start at @p tile_at (row 0, column 0 of their window).
/// For each mask row: the Strip + L - 1 inputs of the window and the L mask values go into
/// registers once, then Strip * L multiply-adds use only registers.
template <int K, int L, int Strip>
__device__ __forceinline__ void accumulate_strip(const float* tile_at, int tile_pitch,
                                                 const float* mask_s, int mask_pitch,
                                                 float (&acc)[Strip]) {
  // EXERCISE 4.8 begin: for each mask row dy: load_quads the window of Strip + L - 1 inputs,
  // tile_at[dy * tile_pitch ..], rounded up to whole float4s, into a register array window, and
  // the L values of the mask row, mask_s[dy * mask_pitch ..], rounded up the same way, into m;
  // then acc[s] += m[dx] * window[s + dx] (fmaf) for all dx < L, s < Strip. Unroll the dx and s
  // loops so that every index is a constant; leave the dy loop rolled (#pragma unroll 1): its
  // body is large enough.
  constexpr int kWindow = Strip + L - 1;
  constexpr int kWindowQuads = (kWindow + kQuad - 1) / kQuad;
  constexpr int kMaskQuads = (L + kQuad - 1) / kQuad;
#pragma unroll 1
  for (int dy = 0; dy < K; ++dy) {
    float window[kWindowQuads * kQuad];
    float m[kMaskQuads * kQuad];
    load_quads(tile_at + dy * tile_pitch, window);
    load_quads(mask_s + dy * mask_pitch, m);
#pragma unroll
    for (int dx = 0; dx < L; ++dx) {
#pragma unroll
      for (int s = 0; s < Strip; ++s)
        acc[s] = fmaf(m[dx], window[s + dx], acc[s]);
    }
  }
  // EXERCISE 4.8 end
}

/// Exercise 4.9: the same for a mask size known only at run time (mask_rows x mask_pitch, the
/// columns past the real mask hold 0). The mask columns go four at a time: a window of
/// Strip + 4 inputs and one float4 of the mask per step, all in registers.
template <int Strip>
__device__ __forceinline__ void accumulate_strip_any(const float* tile_at, int tile_pitch,
                                                     const float* mask_s, int mask_rows,
                                                     int mask_pitch, float (&acc)[Strip]) {
  // EXERCISE 4.9 begin: for each mask row dy and each group of 4 mask columns dx0 = 0, 4, ...
  // < mask_pitch: load_quads the Strip + 4 inputs tile_at[dy * tile_pitch + dx0 ..] and read the
  // float4 mask_s[dy * mask_pitch + dx0 ..]; then acc[s] += m[c] * window[s + c] for c < 4,
  // s < Strip. The padding columns of the mask are 0, so no bounds checks are needed.
  constexpr int kWindowQuads = Strip / kQuad + 1;
  for (int dy = 0; dy < mask_rows; ++dy) {
    for (int dx0 = 0; dx0 < mask_pitch; dx0 += kQuad) {
      const float* window_src = tile_at + dy * tile_pitch + dx0;
      const float4 m = *reinterpret_cast<const float4*>(mask_s + dy * mask_pitch + dx0);
      float window[kWindowQuads * kQuad];
      load_quads(window_src, window);
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

/// conv2d with register strips. Block (bx, by) computes outputs `y = by*ThreadsY + threadIdx.y`,
/// `x = bx*ThreadsX*Strip + threadIdx.x*Strip + 0..Strip-1`. K, L > 0 fix the mask size at compile
/// time; K = L = 0 is the generic path (mask size @p mk x @p ml). Dynamic shared memory holds the
/// flipped mask and the input tile, laid out by conv_tile().
template <int K, int L, int Strip, int ThreadsX, int ThreadsY>
__global__ void __launch_bounds__(ThreadsX* ThreadsY)
    conv2d_kernel(const float* __restrict__ img, int h, int w, const float* __restrict__ mask,
                  int mk, int ml, float* __restrict__ out) {
  static_assert(Strip % kQuad == 0, "the window is read as float4");
  static_assert((ThreadsX * ThreadsY) % 32 == 0, "the tile is loaded a warp-wide row at a time");
  constexpr int kThreads = ThreadsX * ThreadsY;
  constexpr int kWarp = 32;
  extern __shared__ float4 shared_quads[];  // float4: 16-byte alignment for the window reads
  float* shared = reinterpret_cast<float*>(shared_quads);

  const int mask_rows = K > 0 ? K : mk;
  const int mask_cols = L > 0 ? L : ml;
  const ConvTile layout = conv_tile<Strip, ThreadsX, ThreadsY>(mask_rows, mask_cols);
  float* mask_s = shared;                                // [mask_rows][mask_pitch]
  float* tile = shared + mask_rows * layout.mask_pitch;  // [tile_rows][tile_pitch]

  const int thread = threadIdx.y * ThreadsX + threadIdx.x;
  // The mask, flipped, so that out[y][x] = sum mask_s[dy][dx] * img[y - K/2 + dy][x - L/2 + dx].
  for (int e = thread; e < mask_rows * layout.mask_pitch; e += kThreads) {
    const int dy = e / layout.mask_pitch;
    const int dx = e % layout.mask_pitch;
    mask_s[e] =
        dx < mask_cols ? mask[(mask_rows - 1 - dy) * mask_cols + (mask_cols - 1 - dx)] : 0.0f;
  }
  // The input tile with its halo, zero outside the image; each warp loads 32 neighbouring floats.
  const int y_base = blockIdx.y * ThreadsY;
  const int x_base = blockIdx.x * ThreadsX * Strip;
  const int row_origin = y_base - mask_rows / 2;
  const int col_origin = x_base - mask_cols / 2;
  for (int r = thread / kWarp; r < layout.tile_rows; r += kThreads / kWarp) {
    const int gy = row_origin + r;
    const bool row_inside = gy >= 0 && gy < h;
    for (int col = thread % kWarp; col < layout.tile_cols; col += kWarp) {
      const int gx = col_origin + col;
      tile[r * layout.tile_pitch + col] =
          (row_inside && gx >= 0 && gx < w) ? img[static_cast<std::size_t>(gy) * w + gx] : 0.0f;
    }
  }
  __syncthreads();  // the only barrier: every thread reaches it

  float acc[Strip];
#pragma unroll
  for (int s = 0; s < Strip; ++s)
    acc[s] = 0.0f;
  const float* tile_at = tile + threadIdx.y * layout.tile_pitch + threadIdx.x * Strip;
  if constexpr (K > 0) {
    accumulate_strip<K, L, Strip>(tile_at, layout.tile_pitch, mask_s, layout.mask_pitch, acc);
  } else {
    accumulate_strip_any<Strip>(tile_at, layout.tile_pitch, mask_s, mask_rows, layout.mask_pitch,
                                acc);
  }

  // Write-back: a float4 at a time where the row is aligned and the strip inside the image.
  const int y = y_base + threadIdx.y;
  const int x = x_base + threadIdx.x * Strip;
  if (y >= h)
    return;
  float* dst = out + static_cast<std::size_t>(y) * w + x;
  const bool aligned =
      w % kQuad == 0 && reinterpret_cast<std::uintptr_t>(out) % sizeof(float4) == 0;
  if (aligned && x <= w - Strip) {  // not x + Strip <= w, which overflows near INT_MAX
#pragma unroll
    for (int q = 0; q < Strip / kQuad; ++q) {
      reinterpret_cast<float4*>(dst)[q] = make_float4(acc[q * kQuad + 0], acc[q * kQuad + 1],
                                                      acc[q * kQuad + 2], acc[q * kQuad + 3]);
    }
  } else {
#pragma unroll
    for (int s = 0; s < Strip; ++s) {
      if (x + s < w)
        dst[s] = acc[s];
    }
  }
}

}  // namespace ch04
