/// @file kernels.cuh
/// @brief Chapter 5: warp tiles and a double-buffered cp.async pipeline.
///
/// Matrix product (matmul and minplus share one kernel through a semiring): a block of 256 threads
/// (8 warps) computes a 128 x 128 tile of C. The tile is split into 8 warp tiles of 32 x 64, and
/// each thread of a warp keeps an 8 x 8 block of results in registers, as in chapter 4. The block
/// walks along k sixteen steps at a time through two shared stages: while the warps multiply the
/// batch in one stage, `cp.async` copies the next batch from global memory straight into the
/// other, without passing through registers. A pre-pass copies A transposed and pads both
/// operands with the semiring's identity, so every copy of the main loop is 16 bytes, aligned and
/// needs no bounds check.
///
/// conv2d is not carried: its block loads one tile once and has no loop along k to pipeline (the
/// lesson explains why chapter 4's strips stay the right design for it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/semiring.cuh"

/// Chapter 5: warp tiling and a cp.async pipeline; 128 x 128 tiles per block of 8 warps, each warp
/// a 32 x 64 rectangle of C, each thread 8 x 8 results in registers, fed from two shared stages
/// of 16 k-steps that cp.async fills while the other is multiplied.
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
/// Warps along a block tile's rows and columns: 4 x 2 = 8 warps.
inline constexpr int kWarpsDown = kTile / kWarpTileRows;
/// Warps along a block tile's columns.
inline constexpr int kWarpsAcross = kTile / kWarpTileCols;
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
/// k-steps per stage: `xs[16][128]`, `ys[16][128]`.
inline constexpr int kBatch = 16;
/// Shared stages: while the warps multiply one, cp.async fills the other.
inline constexpr int kStages = 2;
/// Threads per block.
inline constexpr int kProductThreads = kWarpsDown * kWarpsAcross * kWarpSize;
/// The float4 slots in one row of a stage (one k-step of a panel).
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;
/// float4 copies each thread issues per panel per stage.
inline constexpr int kCopiesPerThread = kBatch * kQuadsPerPanelRow / kProductThreads;
/// Tile side of the transpose pre-pass (a 32 x 32 tile through shared memory, 32 x 8 threads).
inline constexpr int kTransposeTile = 32;
/// Rows of the transpose tile that its 32 x 8 threads copy per pass.
inline constexpr int kTransposeRowsPerPass = 8;

static_assert(kLanesAcross * kLanesDown == kWarpSize, "a warp's lanes cover its tile");
static_assert(kLanesDown * kRegisterBlock == kWarpTileRows, "8 rows per thread fill the warp tile");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows (and columns) are two float4 groups");
static_assert(kBatch * kQuadsPerPanelRow % kProductThreads == 0,
              "every thread copies the same number of float4s per stage");

/// Where one thread's 8 x 8 block sits in the block's 128 x 128 tile: its first row and first
/// column. Its rows are `row + 0..3` and `row + kRowGroupStride + 0..3`; its columns `col + 0..3`
/// and `col + kColGroupStride + 0..3`.
struct ThreadTile {
  int row;  ///< first row, within the block tile
  int col;  ///< first column, within the block tile
};

/// Exercise 5.1, the warp tile: the block's 8 warps form a 4 x 2 grid of 32 x 64 warp tiles
/// (warp w covers rows `(w / 2) * 32`, columns `(w % 2) * 64`), and inside its warp tile lane l
/// is (tx, ty) = (l % 8, l / 8), owning rows `ty*4 + 0..3` and `16 + ty*4 + 0..3`, columns
/// `tx*4 + 0..3` and `32 + tx*4 + 0..3` of the warp tile, as a thread of chapter 4 did in its
/// 64 x 64 tile.
__device__ __forceinline__ ThreadTile thread_tile(int thread) {
  // EXERCISE 5.1 begin: warp = thread / kWarpSize, lane = thread % kWarpSize; the warp's tile
  // starts at row (warp / kWarpsAcross) * kWarpTileRows and column (warp % kWarpsAcross) *
  // kWarpTileCols; add the lane's ty * kQuad rows and tx * kQuad columns.
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  const int ty = lane / kLanesAcross;
  const int tx = lane % kLanesAcross;
  return {(warp / kWarpsAcross) * kWarpTileRows + ty * kQuad,
          (warp % kWarpsAcross) * kWarpTileCols + tx * kQuad};
  // EXERCISE 5.1 end
}

// ---------------------------------------------------------------------------------------------
// cp.async: global to shared memory without a detour through registers
// ---------------------------------------------------------------------------------------------

/// Starts copying 16 bytes from global @p global to shared @p shared (both 16-byte aligned). The
/// thread does not wait: the copy lands later, and cp_async_wait_all() waits for it.
/// `.cg` caches the data in L2 only: each float of a stage is read once per block. GPUs before
/// compute capability 8.0 have no cp.async: there the copy is an ordinary load and store, done
/// before the function returns, and the commit and the wait have nothing to do.
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

/// One stage of the pipeline: kBatch k-steps of the A^T panel and of the B panel, 16 KB each.
struct Stage {
  float xs[kBatch][kTile];  ///< xs[kk][r] = A[row0 + r][k0 + kk]  (the A panel, transposed)
  float ys[kBatch][kTile];  ///< ys[kk][c] = B[k0 + kk][col0 + c]  (the B panel)
};

/// Exercise 5.2, copying a stage: starts the cp.async copies of one batch into @p stage. @p a
/// points at `at[k0][row0]` (pitch @p a_pitch floats), @p b at `bp[k0][col0]` (pitch
/// @p b_pitch). Each panel is kBatch rows of kTile floats; the 256 threads copy it as float4s,
/// thread t taking the float4s t, t + 256, ... (kCopiesPerThread of them), so consecutive
/// threads copy consecutive 16 bytes of a row and the reads coalesce.
__device__ __forceinline__ void copy_stage(Stage& stage, const float* a, const float* b,
                                           int a_pitch, int b_pitch, int thread) {
  // EXERCISE 5.2 begin: for each of the kCopiesPerThread float4s q = thread + i *
  // kProductThreads: row q / kQuadsPerPanelRow, column (q % kQuadsPerPanelRow) * kQuad; copy
  // a[row * a_pitch + column] to stage.xs[row][column] and b[row * b_pitch + column] to
  // stage.ys[row][column] with cp_async_16. Compute row * pitch in std::size_t.
#pragma unroll
  for (int i = 0; i < kCopiesPerThread; ++i) {
    const int q = thread + i * kProductThreads;
    const int row = q / kQuadsPerPanelRow;
    const int col = (q % kQuadsPerPanelRow) * kQuad;
    cp_async_16(&stage.xs[row][col], a + static_cast<std::size_t>(row) * a_pitch + col);
    cp_async_16(&stage.ys[row][col], b + static_cast<std::size_t>(row) * b_pitch + col);
  }
  // EXERCISE 5.2 end
}

/// Exercise 5.4, the inner loop: kBatch steps of an 8 x 8 outer product, from @p stage into
/// @p v. At step kk the thread reads its 8 rows of xs[kk] (two float4, at tile.row and
/// tile.row + kRowGroupStride) and its 8 columns of ys[kk] (at tile.col and tile.col +
/// kColGroupStride). In a warp, the 4 ty read 4 float4 of xs[kk] that lie side by side (64 bytes)
/// and the 8 tx read 8 float4 of ys[kk] side by side (128 bytes): no bank conflicts, because the
/// A panel is stored transposed.
template <class Semiring>
__device__ __forceinline__ void multiply_batch(const Stage& stage, ThreadTile tile,
                                               float (&v)[kRegisterBlock][kRegisterBlock]) {
  // EXERCISE 5.4 begin: for kk < kBatch: x = the 8 floats xs[kk][tile.row + 0..3] and
  // xs[kk][tile.row + kRowGroupStride + 0..3], y = ys[kk][tile.col + 0..3] and
  // ys[kk][tile.col + kColGroupStride + 0..3], read as float4; then v[i][j] =
  // Semiring::combine(v[i][j], x[i], y[j]). Unroll every loop.
#pragma unroll
  for (int kk = 0; kk < kBatch; ++kk) {
    const float4 x_lo = *reinterpret_cast<const float4*>(&stage.xs[kk][tile.row]);
    const float4 x_hi = *reinterpret_cast<const float4*>(&stage.xs[kk][tile.row + kRowGroupStride]);
    const float4 y_lo = *reinterpret_cast<const float4*>(&stage.ys[kk][tile.col]);
    const float4 y_hi = *reinterpret_cast<const float4*>(&stage.ys[kk][tile.col + kColGroupStride]);
    const float x[kRegisterBlock] = {x_lo.x, x_lo.y, x_lo.z, x_lo.w,
                                     x_hi.x, x_hi.y, x_hi.z, x_hi.w};
    const float y[kRegisterBlock] = {y_lo.x, y_lo.y, y_lo.z, y_lo.w,
                                     y_hi.x, y_hi.y, y_hi.z, y_hi.w};
#pragma unroll
    for (int i = 0; i < kRegisterBlock; ++i) {
#pragma unroll
      for (int j = 0; j < kRegisterBlock; ++j)
        v[i][j] = Semiring::combine(v[i][j], x[i], y[j]);
    }
  }
  // EXERCISE 5.4 end
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

/// The pipelined, warp-tiled product over @p Semiring: block (bx, by) computes
/// `C[128*by + (0..127)][128*bx + (0..127)]`; @p at is A transposed and padded (padded_k x
/// padded_m), @p bp is B padded (padded_k x b_pitch); both padded with `Semiring::identity()`,
/// so the loop over k has no bounds checks. Only the stores into C (m x n) are checked.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                   float* __restrict__ c, int m, int n, int padded_m, int b_pitch, int padded_k) {
  // Two stages of 32 KB in all: cp.async fills one while the warps multiply the other.
  __shared__ __align__(16) Stage stages[kStages];

  const int thread = threadIdx.x;
  const int row0 = blockIdx.y * kTile;
  const int col0 = blockIdx.x * kTile;
  const ThreadTile tile = thread_tile(thread);

  float v[kRegisterBlock][kRegisterBlock];
#pragma unroll
  for (int i = 0; i < kRegisterBlock; ++i) {
#pragma unroll
    for (int j = 0; j < kRegisterBlock; ++j)
      v[i][j] = Semiring::identity();
  }

  // Batch b of the panels starts kBatch * b rows down: at[kBatch * b][row0], bp[kBatch * b][col0].
  const float* a = at + row0;
  const float* b = bp + col0;
  const std::size_t a_step = static_cast<std::size_t>(kBatch) * padded_m;
  const std::size_t b_step = static_cast<std::size_t>(kBatch) * b_pitch;
  const int batches = padded_k / kBatch;
  // EXERCISE 5.3 begin: start batch 0 into stages[0] (copy_stage, then cp_async_commit). Then for
  // each batch: wait for your copies (cp_async_wait_all) and for everyone's (__syncthreads); start
  // the next batch, if there is one, into the other stage and commit it; multiply this batch.
  // The barrier also tells every warp that the others are done with the stage the next copy
  // overwrites: it was multiplied in the previous trip, before they reached the barrier.
  copy_stage(stages[0], a, b, padded_m, b_pitch, thread);
  cp_async_commit();
  for (int batch = 0; batch < batches; ++batch) {
    cp_async_wait_all();
    __syncthreads();  // batch is in stages[batch % 2], and stages[(batch + 1) % 2] is free
    if (batch + 1 < batches) {  // the same for every thread of the block: no divergence
      a += a_step;
      b += b_step;
      copy_stage(stages[(batch + 1) % kStages], a, b, padded_m, b_pitch, thread);
      cp_async_commit();
    }
    multiply_batch<Semiring>(stages[batch % kStages], tile, v);
  }
  // EXERCISE 5.3 end
  store_block(c, m, n, row0, col0, tile, v);
}

/// Pre-pass: `at[kk][i] = a[i][kk]` for i < m, kk < k (a is m x k), and `Semiring::identity()`
/// elsewhere in the padded_k x padded_m result. A 32 x 32 tile through shared memory keeps both
/// the reads of a and the writes of at coalesced; the +1 column avoids bank conflicts.
template <class Semiring>
__global__ void transpose_pad_kernel(const float* __restrict__ a, int m, int k,
                                     float* __restrict__ at, int padded_m, int padded_k) {
  __shared__ float tile[kTransposeTile][kTransposeTile + 1];
  const int k_base = blockIdx.x * kTransposeTile;  // columns of a, rows of at
  const int i_base = blockIdx.y * kTransposeTile;  // rows of a, columns of at
  for (int r = threadIdx.y; r < kTransposeTile; r += kTransposeRowsPerPass) {
    const int i = i_base + r;
    const int kk = k_base + threadIdx.x;
    tile[r][threadIdx.x] =
        (i < m && kk < k) ? a[static_cast<std::size_t>(i) * k + kk] : Semiring::identity();
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kTransposeTile; r += kTransposeRowsPerPass) {
    const int kk = k_base + r;
    const int i = i_base + threadIdx.x;
    if (kk < padded_k && i < padded_m) {
      at[static_cast<std::size_t>(kk) * padded_m + i] = tile[threadIdx.x][r];
    }
  }
}

/// Pre-pass: `bp[kk][j] = b[kk][j]` for kk < k, j < n (b is k x n), and `Semiring::identity()`
/// elsewhere in the padded_k x padded_n result.
template <class Semiring>
__global__ void pad_kernel(const float* __restrict__ b, int k, int n, float* __restrict__ bp,
                           int padded_n, int padded_k) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int kk = blockIdx.y * blockDim.y + threadIdx.y;
  if (j < padded_n && kk < padded_k) {
    bp[static_cast<std::size_t>(kk) * padded_n + j] =
        (kk < k && j < n) ? b[static_cast<std::size_t>(kk) * n + j] : Semiring::identity();
  }
}

}  // namespace ch05
