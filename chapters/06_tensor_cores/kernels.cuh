/// @file kernels.cuh
/// @brief Chapter 6: tensor cores. The product on TF32 `mma.sync`, with FP32 accumulation.
///
/// matmul only: a block of 256 threads (8 warps) computes a 128 x 256 tile of C, each warp a
/// 64 x 64 part of it. A warp's part is 4 x 8 tiles of 16 x 8, and each is computed by tensor-core
/// instructions `mma.sync.m16n8k8` (16 x 8 results, 8 k-steps per instruction), whose operands
/// and results are spread over the 32 lanes in a fixed layout: the fragments. The block walks
/// along k 32 steps at a time through three shared stages filled by `cp.async`, as in chapter 5.
/// A pre-pass rounds both operands to TF32 (10 mantissa bits), pads them with zeros and stores B
/// transposed, so that both shared tiles hold rows of k and `ldmatrix` reads whole fragments.
///
/// minplus is not carried: a tensor core computes sums of products and nothing else, so a
/// min-plus product has no tensor-core instruction. conv2d is not carried either (chapter 5 says
/// why a convolution gains nothing from these tiles).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/// Chapter 6: tensor cores; 128 x 256 tiles per block of 8 warps, each warp 64 x 64 results as
/// 4 x 8 mma.sync.m16n8k8 TF32 tiles, fed from three shared stages of 32 k-steps by cp.async.
namespace ch06 {

// ---------------------------------------------------------------------------------------------
// Geometry
// ---------------------------------------------------------------------------------------------

/// Rows of C per block tile.
inline constexpr int kTileRows = 128;
/// Columns of C per block tile.
inline constexpr int kTileCols = 256;
/// Rows and columns of C one warp computes: a 64 x 64 warp tile.
inline constexpr int kWarpTile = 64;
/// Warps along a block tile's rows (2) and columns (4): 8 warps.
inline constexpr int kWarpsDown = kTileRows / kWarpTile;
/// Warps along a block tile's columns.
inline constexpr int kWarpsAcross = kTileCols / kWarpTile;
/// Threads in a warp.
inline constexpr int kWarpSize = 32;
/// Threads per block.
inline constexpr int kProductThreads = kWarpsDown * kWarpsAcross * kWarpSize;
/// The shape of one tensor-core instruction, mma.sync.m16n8k8: a 16 x 8 tile of C from a 16 x 8
/// tile of A and an 8 x 8 tile of B.
inline constexpr int kMmaM = 16;
/// Columns of C (and of B) per instruction.
inline constexpr int kMmaN = 8;
/// k-steps per instruction.
inline constexpr int kMmaK = 8;
/// Instruction tiles per warp tile: 4 down, 8 across.
inline constexpr int kMmaTilesDown = kWarpTile / kMmaM;
/// Instruction tiles across a warp tile.
inline constexpr int kMmaTilesAcross = kWarpTile / kMmaN;
/// k-steps per stage.
inline constexpr int kBatch = 32;
/// Shared stages: cp.async fills two while the warps multiply the third.
inline constexpr int kStages = 3;
/// Floats in one float4, the width of every copy.
inline constexpr int kQuad = 4;
/// Floats between rows of a stage: kBatch + 4. The 4 extra floats move each row 4 banks further,
/// so the 8 rows that one ldmatrix reads (16 bytes each) fall on 32 different banks.
inline constexpr int kPitch = kBatch + kQuad;
/// Floats of one stage: the A tile (kTileRows rows) and the B^T tile (kTileCols rows).
inline constexpr int kStageFloats = (kTileRows + kTileCols) * kPitch;
/// Dynamic shared memory of the product kernel, in bytes (165888: more than the default 48 KB).
inline constexpr std::size_t kProductSharedBytes =
    static_cast<std::size_t>(kStages) * kStageFloats * sizeof(float);
/// The float4 slots in one row of a stage.
inline constexpr int kQuadsPerRow = kBatch / kQuad;
static_assert(kTileRows * kQuadsPerRow % kProductThreads == 0 &&
                  kTileCols * kQuadsPerRow % kProductThreads == 0,
              "every thread copies the same number of float4s per stage");
static_assert(kMmaTilesAcross % 2 == 0, "one ldmatrix.x4 loads the B fragments of two tiles");
static_assert(kPitch % 32 == 4, "rows 4 banks apart: ldmatrix's 8 rows hit 32 distinct banks");

// ---------------------------------------------------------------------------------------------
// Fragments: which lane holds which element
// ---------------------------------------------------------------------------------------------
//
// For mma.sync.m16n8k8 with TF32 operands, lane l of the warp is (g, t) = (l / 4, l % 4):
//   A (16 x 8, row-major) a[0] = A[g][t]  a[1] = A[g + 8][t]  a[2] = A[g][t + 4]  a[3] = A[g + 8][t
//   + 4] B ( 8 x 8, k x n)     b[0] = B[t][g]  b[1] = B[t + 4][g] C (16 x 8)            c[0] =
//   C[g][2t] c[1] = C[g][2t + 1] c[2] = C[g + 8][2t] c[3] = C[g + 8][2t + 1]

/// A lane's operand fragment of A: four TF32 values (as 32-bit registers).
struct FragmentA {
  unsigned reg[4];  ///< A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]
};
/// A lane's operand fragment of B: two TF32 values.
struct FragmentB {
  unsigned reg[2];  ///< B[t][g], B[t + 4][g]
};

/// A position inside one 16 x 8 tile of C.
struct Position {
  int row;  ///< 0..15
  int col;  ///< 0..7
};

/// Exercise 6.1, the fragment layout: the position in its 16 x 8 tile of C of accumulator element
/// @p e (0..3) of lane @p lane. Lane l is (g, t) = (l / 4, l % 4); its elements are C[g][2t],
/// C[g][2t + 1], C[g + 8][2t] and C[g + 8][2t + 1].
__host__ __device__ constexpr Position accumulator_position(int lane, int e) {
  // EXERCISE 6.1 begin: row g for e = 0, 1 and g + 8 for e = 2, 3; column 2t + (e % 2).
  // Placeholder (replace it): every element of every lane is put in the tile's corner.
  return {0 * lane * e, 0};
  // EXERCISE 6.1 end
}

/// One tensor-core instruction: acc += a * b over a 16 x 8 x 8 tile, FP32 accumulation.
__device__ __forceinline__ void mma_tf32(float (&acc)[4], const FragmentA& a, const FragmentB& b) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a.reg[0]), "r"(a.reg[1]), "r"(a.reg[2]), "r"(a.reg[3]), "r"(b.reg[0]), "r"(b.reg[1]));
#else
  __trap();  // unreachable: matmul() refuses GPUs before compute capability 8.0
#endif
}

/// `ldmatrix.x4`: the warp reads four 8 x 4 matrices of 32-bit values from shared memory. Lane l
/// gives the address of row l % 8 of matrix l / 8; afterwards register j of lane l holds element
/// (l / 4, l % 4) of matrix j, exactly the (g, t) position of the fragments above.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&reg)[4], const float* row_address) {
#if __CUDA_ARCH__ >= 800
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(reg[0]), "=r"(reg[1]), "=r"(reg[2]), "=r"(reg[3])
               : "r"(address));
#else
  (void)reg;
  (void)row_address;
  __trap();  // unreachable: matmul() refuses GPUs before compute capability 8.0
#endif
}

/// Exercise 6.3, the ldmatrix addresses: which row of a stage lane @p lane points at, for the A
/// fragments (@p for_a) or the B fragments. Both tiles hold rows of k (A row-major, B
/// transposed), kPitch floats apart. For A, matrix j = lane / 8 of one 16 x 8 instruction tile is
/// rows (j % 2) * 8 + 0..7, k-columns (j / 2) * 4 + 0..3: registers 0..3 become a[0..3]. For B,
/// matrix j is B^T rows (j / 2) * 8 + 0..7 (two instruction tiles side by side), k-columns
/// (j % 2) * 4 + 0..3: registers 0, 1 become b[0], b[1] of the first tile and 2, 3 of the second.
/// Returns the offset in floats from the fragment's top-left corner: row * kPitch + column.
__host__ __device__ constexpr int ldmatrix_offset(int lane, bool for_a) {
  // EXERCISE 6.3 begin: matrix j = lane / 8, row r = lane % 8. A: row (j % 2) * 8 + r, column
  // (j / 2) * 4. B: row (j / 2) * 8 + r, column (j % 2) * 4.
  // Placeholder (replace it): every lane points at the fragment's first row.
  return 0 * lane * (for_a ? 1 : 0);
  // EXERCISE 6.3 end
}

// ---------------------------------------------------------------------------------------------
// cp.async: global to shared memory without a detour through registers (as in chapter 5)
// ---------------------------------------------------------------------------------------------

/// Starts copying 16 bytes from global @p global to shared @p shared (both 16-byte aligned).
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

/// Waits until at most @p Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// Starts the copies of one stage: kTileRows rows of A and kTileCols rows of B^T, kBatch floats
/// each, from @p a (at `ap[row0][k0]`) and @p bt (at `btp[col0][k0]`), both @p pitch floats
/// between rows. Eight threads copy one row's 128 bytes.
__device__ __forceinline__ void copy_stage(float* stage, const float* a, const float* bt,
                                           std::size_t pitch, int thread) {
  float* a_tile = stage;
  float* b_tile = stage + kTileRows * kPitch;
#pragma unroll
  for (int i = 0; i < kTileRows * kQuadsPerRow / kProductThreads; ++i) {
    const int q = thread + i * kProductThreads;
    const int row = q / kQuadsPerRow;
    const int col = (q % kQuadsPerRow) * kQuad;
    cp_async_16(a_tile + row * kPitch + col, a + row * pitch + col);
  }
#pragma unroll
  for (int i = 0; i < kTileCols * kQuadsPerRow / kProductThreads; ++i) {
    const int q = thread + i * kProductThreads;
    const int row = q / kQuadsPerRow;
    const int col = (q % kQuadsPerRow) * kQuad;
    cp_async_16(b_tile + row * kPitch + col, bt + row * pitch + col);
  }
}

/// Exercise 6.2, the warp's loop over one stage: for each 8 k-steps, load the A fragments of the
/// warp's 4 instruction rows and the B fragments of its 8 instruction columns with ldmatrix, then
/// one mma.sync per (i, j) into acc[i][j]. @p a_at and @p b_at point at this lane's ldmatrix row
/// of the warp's first A and B fragments in the stage (ldmatrix_offset() already added).
__device__ __forceinline__ void multiply_stage(const float* a_at, const float* b_at,
                                               float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
  // EXERCISE 6.2 begin: for k8 = 0, 8, 16, 24: a[i] from ldmatrix_x4 at a_at + i * kMmaM *
  // kPitch + k8; b[j] and b[j + 1] (j even) from one ldmatrix_x4 at b_at + j * kMmaN * kPitch +
  // k8 (registers 0, 1 for j and 2, 3 for j + 1); then mma_tf32(acc[i][j], a[i], b[j]) for all
  // i < kMmaTilesDown, j < kMmaTilesAcross. Unroll every loop.
  // (nothing yet: the accumulators stay 0)
  (void)a_at;
  (void)b_at;
  (void)acc;
  // EXERCISE 6.2 end
}

/// Exercise 6.4, the write-back: stores the warp's accumulators into C (m x n, row-major).
/// acc[i][j][e] belongs to row `row0 + i * kMmaM + p.row` and column `col0 + j * kMmaN + p.col`,
/// with p = accumulator_position(lane, e), where (row0, col0) is the warp tile's corner in C.
/// Skip rows and columns outside C. Elements e and e + 1 are neighbours in a row: store them as
/// one float2 when both are inside C, n is even and C is 8-byte aligned (then so is the pair).
__device__ __forceinline__ void store_tiles(float* __restrict__ c, int m, int n, int row0, int col0,
                                            int lane,
                                            const float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
  // EXERCISE 6.4 begin: for each i, j and e = 0, 2: p = accumulator_position(lane, e); row =
  // row0 + i * kMmaM + p.row, col = col0 + j * kMmaN + p.col; if row < m: write acc[i][j][e]
  // (if col < n) and acc[i][j][e + 1] (if col + 1 < n), as a float2 when both fit and pairs.
  // Compute row * n in std::size_t.
  // (nothing yet: C keeps whatever it held before)
  (void)c;
  (void)m;
  (void)n;
  (void)row0;
  (void)col0;
  (void)lane;
  (void)acc;
  // EXERCISE 6.4 end
}

/// The tensor-core product: block (bx, by) computes `C[128*by + (0..127)][256*bx + (0..255)]`.
/// @p ap is A rounded to TF32 and padded with zeros (padded_m x padded_k), @p btp is B^T rounded
/// and padded (padded_n x padded_k); the loop over k has no bounds checks. Only the stores into
/// C (m x n) are checked. Dynamic shared memory: kProductSharedBytes.
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ ap, const float* __restrict__ btp,
                   float* __restrict__ c, int m, int n, int padded_k) {
  extern __shared__ float4 shared_quads[];  // float4: 16-byte alignment for cp.async and ldmatrix
  float* stages = reinterpret_cast<float*>(shared_quads);

  const int thread = threadIdx.x;
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  const int warp_row = (warp / kWarpsAcross) * kWarpTile;  // the warp's tile inside the block's
  const int warp_col = (warp % kWarpsAcross) * kWarpTile;
  const int row0 = blockIdx.y * kTileRows;
  const int col0 = blockIdx.x * kTileCols;

  float acc[kMmaTilesDown][kMmaTilesAcross][4];
#pragma unroll
  for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[i][j][e] = 0.0f;
    }
  }

  const std::size_t pitch = static_cast<std::size_t>(padded_k);
  const float* a = ap + static_cast<std::size_t>(row0) * pitch;
  const float* bt = btp + static_cast<std::size_t>(col0) * pitch;
  const int a_offset = warp_row * kPitch + ldmatrix_offset(lane, true);
  const int b_offset = kTileRows * kPitch + warp_col * kPitch + ldmatrix_offset(lane, false);
  const int batches = padded_k / kBatch;

  // The pipeline of chapter 5, three stages deep: batches b + 1 and b + 2 are in flight while b is
  // multiplied. Every trip commits one group (empty near the end), so "all but the newest
  // kStages - 2 groups have landed" always means "batch b has landed".
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < batches)
      copy_stage(stages + s * kStageFloats, a + s * kBatch, bt + s * kBatch, pitch, thread);
    cp_async_commit();
  }
  for (int batch = 0; batch < batches; ++batch) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // batch is in its stage; the stage of batch - 1 is free
    const int next = batch + kStages - 1;
    if (next < batches) {
      copy_stage(stages + (next % kStages) * kStageFloats, a + next * kBatch, bt + next * kBatch,
                 pitch, thread);
    }
    cp_async_commit();
    const float* stage = stages + (batch % kStages) * kStageFloats;
    multiply_stage(stage + a_offset, stage + b_offset, acc);
  }
  cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits
  store_tiles(c, m, n, row0 + warp_row, col0 + warp_col, lane, acc);
}

// ---------------------------------------------------------------------------------------------
// The pre-pass's element hook: round to TF32
// ---------------------------------------------------------------------------------------------

/// @p x rounded to the nearest TF32 value (10 mantissa bits; ties away from zero), as a float
/// whose low 13 mantissa bits are zero.
__device__ __forceinline__ float round_to_tf32(float x) {
#if __CUDA_ARCH__ >= 800
  unsigned bits;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
  return __uint_as_float(bits);
#else
  __trap();  // unreachable: matmul() refuses GPUs before compute capability 8.0
  return x;
#endif
}

/// The pre-pass's element hook (course/prepass.cuh): every copied element rounded to TF32.
struct RoundToTf32 {
  /// @p x rounded to TF32.
  __device__ float operator()(float x) const { return round_to_tf32(x); }
};

}  // namespace ch06
