/// @file kernels.cuh
/// @brief Chapter 5: warp tiles and a double-buffered cp.async pipeline.
///
/// Matrix product (matmul and minplus share one kernel through a semiring): a block of 8 warps
/// computes a 128 x 128 tile of C, each warp a 32 x 64 warp tile, each thread 8 x 8 results in
/// registers, fed from shared stages of 16 k-steps. Two steps, each a kernel that `--variant`
/// runs: warptile (each batch goes global -> registers -> one stage) and pipeline (cp.async copies
/// the next batch into a second stage while the warps multiply the first: the solution). conv2d
/// is not carried: it has no loop along k to pipeline.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/semiring.cuh"

/// Chapter 5: warp tiles and a cp.async pipeline; 128 x 128 tiles per block of 8 warps, 8 x 8
/// results per thread in registers, fed from shared stages of 16 k-steps.
namespace ch05 {

// ---------------------------------------------------------------------------------------------
// Matrix product: geometry
// ---------------------------------------------------------------------------------------------

/// Outputs per side of a block's tile: 128 x 128.
inline constexpr int kTile = 128;
/// Rows of C one warp computes: its warp tile is kWarpTileRows x kWarpTileCols.
inline constexpr int kWarpTileRows = 32;
/// Columns of C one warp computes.
inline constexpr int kWarpTileCols = 64;
/// Warps along a block tile's columns: 2 (and 4 down, 8 in all).
inline constexpr int kWarpsAcross = kTile / kWarpTileCols;
/// Warps along a block tile's rows.
inline constexpr int kWarpsDown = kTile / kWarpTileRows;
/// Threads in a warp.
inline constexpr int kWarpSize = 32;
/// Results per side that one thread keeps in registers: an 8 x 8 block, `v[8][8]`.
inline constexpr int kRegisterBlock = 8;
/// Floats in one float4, the width of every shared and global access of the main loop.
inline constexpr int kQuad = 4;
/// Lanes of a warp along its tile's columns (8) and rows (4): lane = ty * 8 + tx.
inline constexpr int kLanesAcross = kWarpTileCols / kRegisterBlock;
/// Lanes of a warp along its tile's rows.
inline constexpr int kLanesDown = kWarpSize / kLanesAcross;
/// A thread's 8 rows are two groups of 4, this far apart: half the warp tile's rows.
inline constexpr int kRowGroupStride = kWarpTileRows / 2;
/// A thread's 8 columns are two groups of 4, this far apart: half the warp tile's columns.
inline constexpr int kColGroupStride = kWarpTileCols / 2;
/// k-steps per batch, the rows of a stage: `xx[16][128]`, `yy[16][128]`.
inline constexpr int kBatch = 16;
/// Shared stages of the pipeline (step 2): while the warps multiply one, cp.async fills the other.
inline constexpr int kStages = 2;
/// Threads per product block.
inline constexpr int kProductThreads = kWarpsDown * kWarpsAcross * kWarpSize;
/// The float4 slots in one row of a panel (one k-step).
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;
/// float4 copies each thread makes per panel per batch.
inline constexpr int kCopiesPerThread = kBatch * kQuadsPerPanelRow / kProductThreads;

static_assert(kLanesAcross * kLanesDown == kWarpSize, "a warp's lanes cover its tile");
static_assert(kLanesDown * kRegisterBlock == kWarpTileRows, "8 rows per thread fill the warp tile");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows (and columns) are two float4 groups");
static_assert(kBatch * kQuadsPerPanelRow % kProductThreads == 0,
              "every thread copies the same number of float4s per batch");

/// One batch of both panels in shared memory: kBatch k-steps of the A^T panel and of the B panel,
/// 8 KB each (16 x 128 floats).
struct Stage {
  float xx[kBatch][kTile];  ///< xx[kk][r] = A[row0 + r][k0 + kk]  (the A panel, transposed)
  float yy[kBatch][kTile];  ///< yy[kk][c] = B[k0 + kk][col0 + c]  (the B panel)
};

/// Where one thread's 8 x 8 block sits in the block's 128 x 128 tile: its first row and first
/// column. Its rows are `row + 0..3` and `row + kRowGroupStride + 0..3`; its columns `col + 0..3`
/// and `col + kColGroupStride + 0..3`.
struct ThreadTile {
  int row;  ///< first row, within the block tile
  int col;  ///< first column, within the block tile
};

/// Exercise 5.1, the warp tile: where thread @p thread (0..255) of the block keeps its results.
/// The block's 8 warps each own one 32 x 64 rectangle of the 128 x 128 tile; inside its warp's
/// rectangle, a lane owns the same pattern as a thread of chapter 4 in its 64 x 64 tile, scaled to
/// the rectangle: two groups of 4 rows and two groups of 4 columns (the lesson's figure).
__device__ __forceinline__ ThreadTile thread_tile(int thread) {
  // EXERCISE 5.1 begin
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  return {(warp / kWarpsAcross) * kWarpTileRows + (lane / kLanesAcross) * kQuad,
          (warp % kWarpsAcross) * kWarpTileCols + (lane % kLanesAcross) * kQuad};
  // EXERCISE 5.1 end
}

/// Where copy @p q (0..511) of a batch goes in a 16 x 128 panel: row `q / 32`, columns
/// `4 * (q % 32)` to `+3`. Thread t makes the copies t and t + 256, so the 32 lanes of a warp copy
/// 512 contiguous bytes of one row.
struct PanelSlot {
  int row;  ///< k-step within the batch, 0..15
  int col;  ///< first of the 4 columns, 0, 4, ..., 124
};

/// The slot of copy @p q.
__device__ __forceinline__ PanelSlot panel_slot(int q) {
  return {q / kQuadsPerPanelRow, (q % kQuadsPerPanelRow) * kQuad};
}

/// Combines the outer product of @p x (a thread's 8 values of the A panel at one k-step) and @p y
/// (its 8 values of the B panel) into its 64 results, as in chapter 4.
template <class Semiring>
__device__ __forceinline__ void outer_product(const float (&x)[kRegisterBlock],
                                              const float (&y)[kRegisterBlock],
                                              float (&v)[kRegisterBlock][kRegisterBlock]) {
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j)
      v[i][j] = Semiring::combine(v[i][j], x[i], y[j]);
  }
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

/// Exercise 5.2, the inner loop of both steps: the kBatch k-steps of @p stage combined into the
/// thread's results @p v, each step's 8 + 8 operands read as float4s (chapter 4's step 2) at the
/// thread's place in its warp tile. Which lanes of a warp then read the same bytes, and which
/// neighbouring ones, decides how much shared memory has to deliver per step.
template <class Semiring>
__device__ __forceinline__ void multiply_batch(const Stage& stage, ThreadTile tile,
                                               float (&v)[kRegisterBlock][kRegisterBlock]) {
#pragma unroll
  for (int kk = 0; kk < kBatch; ++kk) {
    // EXERCISE 5.2 begin
    const float4 x_lo = *reinterpret_cast<const float4*>(&stage.xx[kk][tile.row]);
    const float4 x_hi = *reinterpret_cast<const float4*>(&stage.xx[kk][tile.row + kRowGroupStride]);
    const float4 y_lo = *reinterpret_cast<const float4*>(&stage.yy[kk][tile.col]);
    const float4 y_hi = *reinterpret_cast<const float4*>(&stage.yy[kk][tile.col + kColGroupStride]);
    const float x[kRegisterBlock] = {x_lo.x, x_lo.y, x_lo.z, x_lo.w,
                                     x_hi.x, x_hi.y, x_hi.z, x_hi.w};
    const float y[kRegisterBlock] = {y_lo.x, y_lo.y, y_lo.z, y_lo.w,
                                     y_hi.x, y_hi.y, y_hi.z, y_hi.w};
    outer_product<Semiring>(x, y, v);
    // EXERCISE 5.2 end
  }
}

/// The write-back: stores the thread's 8 x 8 results into C (m x n, row-major), skipping rows and
/// columns outside C (C is not padded). v[i][j] is row `row0 + tile.row + (i/4) *
/// kRowGroupStride + i%4`, column `col0 + tile.col + (j/4) * kColGroupStride + j%4`. One float
/// per store, as in chapter 4.
__device__ __forceinline__ void store_block(float* __restrict__ c, int m, int n, int row0, int col0,
                                            ThreadTile tile,
                                            const float (&v)[kRegisterBlock][kRegisterBlock]) {
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
    const int row = row0 + tile.row + (i / kQuad) * kRowGroupStride + i % kQuad;
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j) {
      const int col = col0 + tile.col + (j / kQuad) * kColGroupStride + j % kQuad;
      if (row < m && col < n)
        c[static_cast<std::size_t>(row) * n + col] = v[i][j];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Step 1, warptile: warp tiles, fed through registers into one stage
// ---------------------------------------------------------------------------------------------

/// Step 1's batch copy: this thread's kCopiesPerThread float4s of each panel, loaded from global
/// memory into registers (@p a points at `at[k0][row0]`, pitch @p a_pitch floats; @p b at
/// `bp[k0][col0]`, pitch @p b_pitch), then stored into @p stage.
__device__ __forceinline__ void load_stage(Stage& stage, const float* __restrict__ a,
                                           const float* __restrict__ b, int a_pitch, int b_pitch,
                                           int thread) {
  float4 x[kCopiesPerThread];
  float4 y[kCopiesPerThread];
#pragma unroll
  for (int i = 0; i < kCopiesPerThread; ++i) {  // every load in flight before the first store
    const PanelSlot slot = panel_slot(thread + i * kProductThreads);
    x[i] = __ldg(reinterpret_cast<const float4*>(a + static_cast<std::size_t>(slot.row) * a_pitch +
                                                 slot.col));
    y[i] = __ldg(reinterpret_cast<const float4*>(b + static_cast<std::size_t>(slot.row) * b_pitch +
                                                 slot.col));
  }
#pragma unroll
  for (int i = 0; i < kCopiesPerThread; ++i) {
    const PanelSlot slot = panel_slot(thread + i * kProductThreads);
    *reinterpret_cast<float4*>(&stage.xx[slot.row][slot.col]) = x[i];
    *reinterpret_cast<float4*>(&stage.yy[slot.row][slot.col]) = y[i];
  }
}

/// Step 1, the warp-tiled product over @p Semiring: block (bx, by) computes
/// `C[128*by + (0..127)][128*bx + (0..127)]`; @p at is A transposed and padded (padded_k x
/// padded_m), @p bp is B padded (padded_k rows, pitch @p b_pitch); both padded with
/// `Semiring::identity()`, so the loop over k has no bounds checks. Only the stores into C
/// (m x n) are checked. One stage: load, barrier, multiply, barrier.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    warptile_product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                            float* __restrict__ c, int m, int n, int padded_m, int b_pitch,
                            int padded_k) {
  __shared__ __align__(16) Stage stage;  // 16 KB

  const int thread = threadIdx.x;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const ThreadTile tile = thread_tile(thread);

  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);

  // Batch b of the panels starts kBatch * b rows down: at[kBatch * b][row0], bp[kBatch * b][col0].
  const float* a = at + row0;
  const float* b = bp + col0;
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;
  const std::size_t b_step = static_cast<std::size_t>(kBatch) * b_pitch;
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {  // the same trips for every thread of the block
    load_stage(stage, a, b, padded_m, b_pitch, thread);
    __syncthreads();  // the batch is in the stage
    multiply_batch<Semiring>(stage, tile, v);
    __syncthreads();  // everyone is done with the stage before the next batch overwrites it
    a += a_step;
    b += b_step;
  }
  store_block(c, m, n, row0, col0, tile, v);
}

// ---------------------------------------------------------------------------------------------
// Step 2, pipeline: cp.async into two stages, the solution
// ---------------------------------------------------------------------------------------------

/// Starts copying 16 bytes from global @p global to shared @p shared (both 16-byte aligned). The
/// thread does not wait, and no register holds the data: the load/store unit writes it into
/// shared memory when it arrives, and cp_async_wait_all() waits for it. `.cg` caches the data in
/// L2 only: each float of a stage is read once per block. GPUs before compute capability 8.0 have
/// no cp.async: there the copy is an ordinary load and store, done before the function returns,
/// and the commit and the wait have nothing to do.
__device__ __forceinline__ void cp_async_16(float* shared, const float* global) {
#if __CUDA_ARCH__ >= 800
  const unsigned shared_address = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address), "l"(global)
               : "memory");
#else
  *reinterpret_cast<float4*>(shared) = *reinterpret_cast<const float4*>(global);
#endif
}

/// Closes the group of copies this thread started since the last call; groups complete in order.
__device__ __forceinline__ void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until every group of copies this thread committed has landed in shared memory. Other
/// threads' copies need a __syncthreads() as well before this thread may read them.
__device__ __forceinline__ void cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/// Exercise 5.3, copying a stage: starts this thread's cp.async copies of one batch into
/// @p stage, the same float4s that load_stage() moves through registers in step 1 (@p a, @p b and
/// the pitches as there). Nothing waits here: the copies land while the warps compute.
__device__ __forceinline__ void copy_stage(Stage& stage, const float* a, const float* b,
                                           int a_pitch, int b_pitch, int thread) {
  // EXERCISE 5.3 begin
#pragma unroll
  for (int i = 0; i < kCopiesPerThread; ++i) {
    const PanelSlot slot = panel_slot(thread + i * kProductThreads);
    cp_async_16(&stage.xx[slot.row][slot.col],
                a + static_cast<std::size_t>(slot.row) * a_pitch + slot.col);
    cp_async_16(&stage.yy[slot.row][slot.col],
                b + static_cast<std::size_t>(slot.row) * b_pitch + slot.col);
  }
  // EXERCISE 5.3 end
}

/// Step 2, the pipelined, warp-tiled product over @p Semiring, the chapter's solution: step 1's
/// kernel with two stages, the next batch copied by cp.async into one while the warps multiply
/// the other. The arguments are step 1's.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                   float* __restrict__ c, int m, int n, int padded_m, int b_pitch, int padded_k) {
  __shared__ __align__(16) Stage stages[kStages];  // 32 KB

  const int thread = threadIdx.x;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const ThreadTile tile = thread_tile(thread);

  float v[kRegisterBlock][kRegisterBlock];
  fill_identity<Semiring>(v);

  const float* a = at + row0;
  const float* b = bp + col0;
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;
  const std::size_t b_step = static_cast<std::size_t>(kBatch) * b_pitch;
  const int batches = padded_k / kBatch;
  // EXERCISE 5.4 begin
  copy_stage(stages[0], a, b, padded_m, b_pitch, thread);
  cp_async_commit();
  for (int batch = 0; batch < batches; ++batch) {
    cp_async_wait_all();
    __syncthreads();  // batch is in stages[batch % 2], and nobody still reads the other stage
    if (batch + 1 < batches) {  // the same for every thread of the block: no divergence
      a += a_step;
      b += b_step;
      copy_stage(stages[(batch + 1) % kStages], a, b, padded_m, b_pitch, thread);
      cp_async_commit();
    }
    multiply_batch<Semiring>(stages[batch % kStages], tile, v);
  }
  // EXERCISE 5.4 end
  store_block(c, m, n, row0, col0, tile, v);
}

}  // namespace ch05
