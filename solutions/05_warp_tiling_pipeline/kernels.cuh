/// @file kernels.cuh
/// @brief Chapter 5: warp tiles and a double-buffered cp.async pipeline (the product only).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "course/semiring.cuh"

/// Chapter 5: warp tiles and a cp.async pipeline.
namespace ch05 {

inline constexpr int kRegisterBlock = 8;  ///< results per side of a thread: `v[8][8]`
inline constexpr int kQuad = 4;           ///< floats in one float4
inline constexpr int kWarpSize = 32;      ///< threads in a warp
inline constexpr int kWarpTileRows = 32;  ///< rows of C one warp computes
inline constexpr int kWarpTileCols = 64;  ///< columns of C one warp computes
inline constexpr int kTile = 128;         ///< outputs per side of a block tile
inline constexpr int kWarpsAcross = kTile / kWarpTileCols;           ///< warps along a row: 2
inline constexpr int kWarpsDown = kTile / kWarpTileRows;             ///< warps along a column: 4
inline constexpr int kLanesAcross = kWarpTileCols / kRegisterBlock;  ///< lanes along a row: 8
inline constexpr int kRowGroupStride = kWarpTileRows / 2;  ///< between a thread's two row groups
inline constexpr int kColGroupStride = kWarpTileCols / 2;  ///< between its two column groups
inline constexpr int kBatch = 16;  ///< k-steps per batch: `xx[16][128]`, `yy[16][128]`
inline constexpr int kStages = 2;  ///< step 2: cp.async fills one stage, the warps read the other
inline constexpr int kProductThreads = kWarpsDown * kWarpsAcross * kWarpSize;  ///< threads
inline constexpr int kQuadsPerPanelRow = kTile / kQuad;  ///< float4 slots in a row of a panel
/// float4 copies each thread makes of each panel per batch.
inline constexpr int kCopiesPerThread = kBatch * kQuadsPerPanelRow / kProductThreads;

static_assert(kWarpSize / kLanesAcross * kRegisterBlock == kWarpTileRows, "lanes fill a warp tile");
static_assert(kRegisterBlock == 2 * kQuad, "a thread's 8 rows (and columns) are two float4 groups");
static_assert(kBatch * kQuadsPerPanelRow % kProductThreads == 0, "whole copies per thread");

/// One batch of both panels in shared memory, 8 KB each.
struct Stage {
  float xx[kBatch][kTile];  ///< xx[kk][r] = A[row0 + r][k0 + kk]  (the A panel, transposed)
  float yy[kBatch][kTile];  ///< yy[kk][c] = B[k0 + kk][col0 + c]  (the B panel)
};

/// Where a thread's two groups of 4 rows (and of 4 columns) start in the block tile.
struct ThreadTile {
  int row;  ///< first row, within the block tile
  int col;  ///< first column, within the block tile
};

/// Exercise 5.1: where thread @p thread of the block keeps its results in the warp tiles.
__host__ __device__ __forceinline__ ThreadTile thread_tile(int thread) {
  // EXERCISE 5.1 begin
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  return {(warp / kWarpsAcross) * kWarpTileRows + (lane / kLanesAcross) * kQuad,
          (warp % kWarpsAcross) * kWarpTileCols + (lane % kLanesAcross) * kQuad};
  // EXERCISE 5.1 end
}

/// Combines the outer product of a thread's 8 + 8 operands @p x, @p y into its results @p v.
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

/// Exercise 5.2: multiplies a batch, each group of 4 operands read as one float4.
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

/// Stores the thread's results into C (m x n, not padded), none outside C.
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

/// Where a thread's float4 copy goes in a panel: row (k-step) and first column.
struct PanelSlot {
  int row;  ///< k-step within the batch
  int col;  ///< first of the 4 columns
};

/// The slot of copy @p q: consecutive copies fill a row.
__device__ __forceinline__ PanelSlot panel_slot(int q) {
  return {q / kQuadsPerPanelRow, (q % kQuadsPerPanelRow) * kQuad};
}

/// Step 1's batch copy from @p a (`at[k0][row0]`) and @p b (`bp[k0][col0]`) through registers.
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

/// Step 1 over @p Semiring: warp tiles, float4 loads from @p at (A^T) and @p bp (B), padded.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    warptile_product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                            float* __restrict__ c, int m, int n, int padded_m, int b_pitch,
                            int padded_k) {
  __shared__ __align__(16) Stage stage;
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
  for (int k0 = 0; k0 < padded_k; k0 += kBatch) {
    load_stage(stage, a, b, padded_m, b_pitch, thread);
    __syncthreads();  // the batch is in shared memory
    multiply_batch<Semiring>(stage, tile, v);
    __syncthreads();  // everyone is done with the batch before the next overwrites it
    a += a_step;
    b += b_step;
  }
  store_block(c, m, n, row0, col0, tile, v);
}

/// Starts copying 16 bytes from global @p global to shared @p shared (both 16-byte aligned),
/// cached in L2 only (`.cg`); before compute capability 8.0, an ordinary load and store.
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

/// Waits until every group of copies this thread committed has landed in shared memory.
__device__ __forceinline__ void cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::: "memory");
#endif
}

/// Exercise 5.3: load_stage() with cp.async: the copies start, nobody waits.
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

/// Step 2 over @p Semiring, the solution: step 1 with the next batch copied by cp.async.
template <class Semiring>
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ at, const float* __restrict__ bp,
                   float* __restrict__ c, int m, int n, int padded_m, int b_pitch, int padded_k) {
  __shared__ __align__(16) Stage stages[kStages];
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
