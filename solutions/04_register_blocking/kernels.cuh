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
#include <string>

#include "course/cuda_check.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

/// Chapter 4: register blocking; 64 x 64 tiles per block of 8 x 8 threads, 8 x 8 results per
/// thread in registers, fed from a shared cache filled four k-steps at a time.
namespace ch04 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"4.1", "matmul", "plain step: copy a batch of A (transposed) and B into xx, yy"},
    {"4.1", "minplus", "plain step: copy a batch of A (transposed) and B into xx, yy"},
    {"4.2", "matmul", "every step: the 8 x 8 outer product of x and y, combined into v"},
    {"4.2", "minplus", "every step: the 8 x 8 outer product of x and y, combined into v"},
    {"4.3", "matmul", "every step: store the thread's 8 x 8 results where they belong in C"},
    {"4.3", "minplus", "every step: store the thread's 8 x 8 results where they belong in C"},
    {"4.4", "matmul", "float4 step: read x and y from xx, yy as two float4 each"},
    {"4.4", "minplus", "float4 step: read x and y from xx, yy as two float4 each"},
    {"4.5", "matmul", "float4 step: where this thread's float4s of the padded panels are"},
    {"4.5", "minplus", "float4 step: where this thread's float4s of the padded panels are"},
    {"4.6", "matmul", "prefetch step: load the next batch while this one is multiplied"},
    {"4.6", "minplus", "prefetch step: load the next batch while this one is multiplied"},
    {"4.7", "conv2d", "load a row of floats into a register array, a float4 at a time"},
    {"4.8", "conv2d", "register strip for a compile-time mask: reuse each window value"},
    {"4.9", "conv2d", "register strip for any mask size, four mask columns at a time"},
};

// ---------------------------------------------------------------------------------------------
// Matrix product: geometry
// ---------------------------------------------------------------------------------------------

/// The steps in which the lesson builds the product kernel. The launchers take one as their
/// trailing parameter; `--variant` chooses it.
enum class Step {
  plain,     ///< step 1: scalar loads, A and B read where they are (plain_product_kernel)
  float4,    ///< step 2: padded operands, float4 loads everywhere (float4_product_kernel)
  prefetch,  ///< step 3: step 2 with the next batch prefetched into registers (product_kernel)
};

/// A step and its name on the command line.
struct StepName {
  Step step;         ///< the step
  const char* name;  ///< its `--variant` name
};

/// The steps that `--variant` offers, the default first: the chapter's solution, then the lesson's
/// steps back to the first.
inline constexpr StepName kSteps[] = {
    {Step::prefetch, "prefetch"}, {Step::float4, "float4"}, {Step::plain, "plain"}};

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
/// Tile side of the transpose pre-pass (a 32 x 32 tile through shared memory, 32 x 8 threads).
inline constexpr int kTransposeTile = 32;
/// Rows of the transpose tile that its 32 x 8 threads copy per pass.
inline constexpr int kTransposeRowsPerPass = 8;

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
// Matrix product: launchers
// ---------------------------------------------------------------------------------------------

/// Rounds @p value up to a multiple of @p step, checking that the result still fits an int.
inline int round_up_checked(int value, int step, const char* name) {
  const long long rounded = course::ceil_div(value, step) * step;
  course::require(rounded <= 0x7fffffffLL,
                  std::string(name) + " is too large to pad to a multiple of the tile");
  return static_cast<int>(rounded);
}

/// The product C = A (x) B over @p Semiring with the kernel of @p step; all launches go to @p s.
/// Step 1 reads A and B as they are. Steps 2 and 3 first copy A, transposed and padded, into
/// scratch memory, and B too unless it already has the padded shape; the scratch is allocated on
/// @p s (cudaMallocAsync) and freed on it after the product (cudaFreeAsync), so concurrent calls
/// on different streams each have their own.
template <class Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                    Step step) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  const int padded_m = round_up_checked(m, kTile, "m");
  const int padded_n = round_up_checked(n, kTile, "n");
  const int padded_k = round_up_checked(k, kBatch, "k");
  const dim3 block(kThreadsPerSide, kThreadsPerSide);
  // The index space is one thread per 8 x 8 register block: ceil(n/8) x ceil(m/8) threads.
  const dim3 grid = course::grid_2d(course::ceil_div(n, kRegisterBlock),
                                    course::ceil_div(m, kRegisterBlock), block);

  if (step == Step::plain) {
    const auto kernel = plain_product_kernel<Semiring>;
    kernel<<<grid, block, 0, s>>>(A, B, C, m, n, k);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
    return;
  }

  // The pre-pass grids too before anything is allocated: a refused size leaks nothing.
  const dim3 copy_block(kTransposeTile, kTransposeRowsPerPass);
  const dim3 transpose_grid =
      course::grid_2d(padded_k, padded_m, dim3(kTransposeTile, kTransposeTile));
  const dim3 pad_grid = course::grid_2d(padded_n, padded_k, copy_block);

  // A transposed: the 64 rows a block needs at one k-step become 64 contiguous floats.
  float* at = nullptr;
  COURSE_CUDA_CHECK(
      cudaMallocAsync(&at, static_cast<std::size_t>(padded_k) * padded_m * sizeof(float), s));
  {
    const auto kernel = transpose_pad_kernel<Semiring>;
    kernel<<<transpose_grid, copy_block, 0, s>>>(A, m, k, at, padded_m, padded_k);
    COURSE_CHECK_LAUNCH(kernel, transpose_grid, copy_block, 0, s);
  }

  // B already has the padded shape when n is a multiple of 64, k of 4, and B is 16-byte aligned.
  const float* bp = B;
  int b_pitch = n;
  float* padded = nullptr;
  const bool b_ready = n % kTile == 0 && k % kBatch == 0 &&
                       reinterpret_cast<std::uintptr_t>(B) % sizeof(float4) == 0;
  if (!b_ready) {
    COURSE_CUDA_CHECK(
        cudaMallocAsync(&padded, static_cast<std::size_t>(padded_k) * padded_n * sizeof(float), s));
    const auto kernel = pad_kernel<Semiring>;
    kernel<<<pad_grid, copy_block, 0, s>>>(B, k, n, padded, padded_n, padded_k);
    COURSE_CHECK_LAUNCH(kernel, pad_grid, copy_block, 0, s);
    bp = padded;
    b_pitch = padded_n;
  }

  const auto kernel =
      step == Step::float4 ? float4_product_kernel<Semiring> : product_kernel<Semiring>;
  kernel<<<grid, block, 0, s>>>(at, bp, C, m, n, padded_m, b_pitch, padded_k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
  // Freed in stream order: the memory is reused only after the kernels above are done.
  COURSE_CUDA_CHECK(cudaFreeAsync(at, s));
  if (padded != nullptr)
    COURSE_CUDA_CHECK(cudaFreeAsync(padded, s));
}

/// C = A * B (plus-times), row-major FP32: A is m x k, B is k x n, C is m x n. Any m, n, k >= 1.
/// Each 8 x 8 block of threads computes a 64 x 64 tile of C with an 8 x 8 block of results per
/// thread in registers.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
/// @param step the lesson's step whose kernel runs; the default is the solution.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                   Step step = kSteps[0].step) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, s, step);
}

/// C[i][j] = min over kk of (A[i][kk] + B[kk][j]) (min-plus), row-major FP32; +inf means "no
/// edge" and propagates. Same kernels and data movement as matmul(); exact in any order of k.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
/// @param step the lesson's step whose kernel runs; the default is the solution.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                    Step step = kSteps[0].step) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, s, step);
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
/// The largest mask side, as in chapter 3.
inline constexpr int kMaxMaskSide = 63;
/// Dynamic shared memory a block may use without opting in.
inline constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

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

/// Launches conv2d_kernel<K, L, Strip, ThreadsX, ThreadsY> on @p s (K = L = 0: generic path),
/// opting in to more than 48 KB of dynamic shared memory when the tile needs it.
template <int K, int L, int Strip = kStrip, int ThreadsX = kStripThreadsX,
          int ThreadsY = kStripThreadsY>
void launch_conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t s) {
  const auto kernel = conv2d_kernel<K, L, Strip, ThreadsX, ThreadsY>;
  const std::size_t bytes = conv_tile<Strip, ThreadsX, ThreadsY>(mk, ml).shared_bytes(mk);
  if (bytes > kDefaultSharedLimit) {
    int device = 0;
    int optin_limit = 0;
    COURSE_CUDA_CHECK(cudaGetDevice(&device));
    COURSE_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    course::require(bytes <= static_cast<std::size_t>(optin_limit),
                    "conv2d: a " + std::to_string(mk) + " x " + std::to_string(ml) +
                        " mask needs " + std::to_string(bytes) +
                        " bytes of shared memory per block, more than this device allows (" +
                        std::to_string(optin_limit) + ")");
    COURSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
  }
  const dim3 block(ThreadsX, ThreadsY);
  // The index space is one thread per strip: ceil(w / Strip) x h threads.
  const dim3 grid = course::grid_2d(course::ceil_div(w, Strip), h, block);
  kernel<<<grid, block, bytes, s>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, s);
}

/// 2D convolution, zero padding, same size (scipy.ndimage.convolve, mode='constant'):
/// `out[y][x] = sum over kk < mk, l < ml of mask[kk][l] * img[y + mk/2 - kk][x + ml/2 - l]`.
/// Each thread computes a strip of kStrip outputs along a row from registers. Masks 1x1, 3x3, 5x5,
/// 7x7, 9x9, 11x11, 13x13 and 3x5 have compiled instances; other odd sizes up to 63 per side take
/// the generic path.
/// @param img device pointer, h x w, row-major. @param h image rows. @param w image columns.
/// @param mask device pointer, mk x ml, row-major. @param mk mask rows (odd, 1..63).
/// @param ml mask columns (odd, 1..63). @param out device pointer, h x w. @param s stream.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t s) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  course::require_positive(mk, "mk");
  course::require_positive(ml, "ml");
  course::require(mk % 2 == 1 && ml % 2 == 1, "conv2d: mask sides must be odd, got " +
                                                  std::to_string(mk) + " x " + std::to_string(ml));
  course::require(mk <= kMaxMaskSide && ml <= kMaxMaskSide,
                  "conv2d: mask sides must be at most " + std::to_string(kMaxMaskSide) + ", got " +
                      std::to_string(mk) + " x " + std::to_string(ml));
  course::require(img != nullptr && mask != nullptr && out != nullptr,
                  "conv2d: pointers must not be null");
  if (mk == ml) {
    switch (mk) {
      case 1:
        return launch_conv2d<1, 1>(img, h, w, mask, mk, ml, out, s);
      case 3:
        return launch_conv2d<3, 3>(img, h, w, mask, mk, ml, out, s);
      case 5:
        return launch_conv2d<5, 5>(img, h, w, mask, mk, ml, out, s);
      case 7:
        return launch_conv2d<7, 7>(img, h, w, mask, mk, ml, out, s);
      case 9:
        return launch_conv2d<9, 9>(img, h, w, mask, mk, ml, out, s);
      case 11:
        return launch_conv2d<11, 11>(img, h, w, mask, mk, ml, out, s);
      case 13:
        return launch_conv2d<13, 13>(img, h, w, mask, mk, ml, out, s);
      default:
        break;
    }
  } else if (mk == 3 && ml == 5) {
    return launch_conv2d<3, 5>(img, h, w, mask, mk, ml, out, s);
  }
  launch_conv2d<0, 0>(img, h, w, mask, mk, ml, out, s);
}

}  // namespace ch04
