/// @file kernels.cuh
/// @brief Chapter 6: tensor cores. The product on TF32 `mma.sync`, with FP32 accumulation.
///
/// matmul only: a block of 256 threads (8 warps) computes a 128 x 256 tile of C, each warp a
/// 64 x 64 part of it. A warp's part is 4 x 8 tiles of 16 x 8, and each is computed by tensor-core
/// instructions `mma.sync.m16n8k8` (16 x 8 results, 8 k-steps per instruction), whose operands
/// and results are spread over the 32 lanes in a fixed layout: the fragments. A pre-pass rounds
/// both operands to TF32 (10 mantissa bits), pads them with zeros and stores B transposed, so
/// that both shared tiles hold rows of k. The block walks along k 32 steps at a time through
/// shared stages filled by `cp.async`, as in chapter 5. The lesson builds the kernel in three
/// steps, one product_kernel each, that `--variant` runs:
///   1. mma: every fragment element read with its own 32-bit shared load (PlainLoader), two
///      stages (chapter 5's double buffer);
///   2. ldmatrix: whole fragments read by `ldmatrix`, four 8 x 4 matrices per instruction
///      (LdmatrixLoader), two stages;
///   3. pipeline: step 2 with three stages, two batches in flight (the solution and the default).
///
/// minplus is not carried: a tensor core computes sums of products and nothing else, so a
/// min-plus product has no tensor-core instruction. conv2d is not carried either (chapter 5 says
/// why a convolution gains nothing from these tiles).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/// Chapter 6: tensor cores; 128 x 256 tiles per block of 8 warps, each warp 64 x 64 results as
/// 4 x 8 mma.sync.m16n8k8 TF32 tiles, fed from shared stages of 32 k-steps by cp.async.
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
/// Shared stages of step 3: cp.async fills two while the warps multiply the third. Steps 1 and 2
/// use two, as chapter 5 does.
inline constexpr int kStages = 3;
/// Floats in one float4, the width of every copy.
inline constexpr int kQuad = 4;
/// Floats between rows of a stage: kBatch + 4. The 4 extra floats move each row 4 banks further,
/// so that 8 rows read together (a fragment's 8 values g, or ldmatrix's 8 rows) fall on
/// different banks. Any multiple of kQuad works; try kBatch and count the conflicts.
inline constexpr int kPitch = kBatch + kQuad;
/// Floats of one stage: the A tile (kTileRows rows) and the B^T tile (kTileCols rows).
inline constexpr int kStageFloats = (kTileRows + kTileCols) * kPitch;
/// The float4 slots in one row of a stage.
inline constexpr int kQuadsPerRow = kBatch / kQuad;

/// Dynamic shared memory of a product kernel with @p stages stages, in bytes (two: 110592,
/// three: 165888; both more than the default 48 KB).
constexpr std::size_t product_shared_bytes(int stages) {
  return static_cast<std::size_t>(stages) * kStageFloats * sizeof(float);
}

static_assert(kTileRows * kQuadsPerRow % kProductThreads == 0 &&
                  kTileCols * kQuadsPerRow % kProductThreads == 0,
              "every thread copies the same number of float4s per stage");
static_assert(kMmaTilesAcross % 2 == 0, "one ldmatrix.x4 loads the B fragments of two tiles");
static_assert(kPitch % kQuad == 0, "rows start 16-byte aligned, as cp.async and ldmatrix need");

// ---------------------------------------------------------------------------------------------
// Fragments: which lane holds which element
// ---------------------------------------------------------------------------------------------

// clang-format off
// mma.sync.m16n8k8 with TF32 operands (PTX ISA, "Matrix fragments for mma.m16n8k8"). Lane l of
// the warp is (g, t) = (l / 4, l % 4): 8 groups of 4 lanes. Row and column indices are those of
// each tile: A is 16 x 8 (m x k), B is 8 x 8 (k x n), C is 16 x 8 (m x n).
//
//   register of lane (g, t)   0            1                2                3
//   A fragment  a[0..3]       A[g][t]      A[g + 8][t]      A[g][t + 4]      A[g + 8][t + 4]
//   B fragment  b[0..1]       B[t][g]      B[t + 4][g]
//   C, D        c[0..3]       C[g][2t]     C[g][2t + 1]     C[g + 8][2t]     C[g + 8][2t + 1]
// clang-format on

/// A lane's operand fragment of A: four TF32 values (as 32-bit registers).
struct FragmentA {
  unsigned reg[4];  ///< A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4]
};
/// A lane's operand fragment of B: two TF32 values.
struct FragmentB {
  unsigned reg[2];  ///< B[t][g], B[t + 4][g]
};

/// A position inside one instruction tile: of C (16 x 8), of A (16 rows x 8 k) or of B^T
/// (8 columns of B x 8 k).
struct Position {
  int row;  ///< 0..15 (C, A) or 0..7 (B^T)
  int col;  ///< 0..7
};

/// Exercise 6.1, the fragment layout of C: the position in its 16 x 8 tile of C of accumulator
/// element @p e (0..3) of lane @p lane. The write-back needs it.
__host__ __device__ constexpr Position accumulator_position(int lane, int e) {
  // EXERCISE 6.1 begin: which row and column of the 16 x 8 tile does element e of this lane
  // hold? Read it off the table above, with (g, t) from the lane.
  // Placeholder (replace it): every element of every lane is put in the tile's corner.
  (void)lane;
  (void)e;
  return {0, 0};
  // EXERCISE 6.1 end
}

/// Exercise 6.2, the operand fragments: where register @p reg of lane @p lane's fragment of A
/// (@p for_a) or of B lies in a stage. Both tiles of a stage hold rows of k (A as it is, B
/// transposed), so the answer is (row, k): for A the row of A (0..15), for B the column of B
/// (0..7), which is a row of B^T. Step 1 loads each register from there.
__host__ __device__ constexpr Position operand_position(int lane, int reg, bool for_a) {
  // EXERCISE 6.2 begin: which element of A (reg 0..3) or of B (reg 0..1) does this lane hold,
  // by the table above? Mind that B^T's row is B's column.
  // Placeholder (replace it): every register of every lane reads the tile's corner.
  (void)lane;
  (void)reg;
  (void)for_a;
  return {0, 0};
  // EXERCISE 6.2 end
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

// clang-format off
/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: the warp reads four matrices of 8 rows x 16 bytes
/// from shared memory. The instruction sees 8 x 8 matrices of 16-bit values, but it only moves
/// bits, two 16-bit values per 32-bit register, the lower column in the lower half; a row of 16
/// bytes is just as well 4 floats, and the pair of 16-bit columns (2t, 2t + 1) is float t. So:
///
///   lanes 0-7, 8-15, 16-23, 24-31   give the addresses of rows 0-7 of matrix 0, 1, 2, 3
///                                   (lane l: row l % 8 of matrix l / 8; 16-byte aligned)
///   register j of lane l            receives row l / 4, 16-bit columns 2(l % 4) and
///                                   2(l % 4) + 1 of matrix j = float l % 4 of that row
///
/// Read as 32-bit values, register j of lane (g, t) holds element (g, t) of an 8 x 4 matrix of
/// floats: the (g, t) of the fragment table.
// clang-format on
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

/// Exercise 6.5, the ldmatrix addresses: the offset in floats, from the top-left corner of an
/// instruction tile in a stage (row * kPitch + k), of the row that lane @p lane points ldmatrix at,
/// for the A fragments (@p for_a: one 16 x 8 tile of A, registers 0..3 become a[0..3]) or the B
/// fragments (two 8-column tiles of B^T side by side: registers 0, 1 become b[0], b[1] of the
/// first, 2, 3 those of the second).
__host__ __device__ constexpr int ldmatrix_offset(int lane, bool for_a) {
  // EXERCISE 6.5 begin: lane l points at row l % 8 of matrix l / 8, and register j receives
  // matrix j. Which 8 x 4 block of the tile must matrix j be, so that its (g, t) element is the
  // fragment register j of the table? Then: which row, which k?
  // Placeholder (replace it): every lane points at the tile's first row.
  (void)lane;
  (void)for_a;
  return 0;
  // EXERCISE 6.5 end
}

// ---------------------------------------------------------------------------------------------
// Loaders: how a warp reads its fragments for 8 k-steps (the difference of steps 1 and 2)
// ---------------------------------------------------------------------------------------------

/// Step 1: every fragment register with its own 32-bit shared load, at operand_position(). Per 8
/// k-steps a lane issues 4 x 4 loads for A and 8 x 2 for B.
struct PlainLoader {
  /// Loads the warp's 4 A fragments from @p a_tile (its first row of A in the stage, at the first
  /// k of the 8) and its 8 B fragments from @p b_tile (its first row of B^T, same k).
  __device__ static void load(const float* a_tile, const float* b_tile, int lane,
                              FragmentA (&a)[kMmaTilesDown], FragmentB (&b)[kMmaTilesAcross]) {
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const Position p = operand_position(lane, r, true);
        a[i].reg[r] = __float_as_uint(a_tile[(i * kMmaM + p.row) * kPitch + p.col]);
      }
    }
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const Position p = operand_position(lane, r, false);
        b[j].reg[r] = __float_as_uint(b_tile[(j * kMmaN + p.row) * kPitch + p.col]);
      }
    }
  }
};

/// Steps 2 and 3: whole fragments with ldmatrix.x4, one per A fragment and one per two B
/// fragments: 4 + 4 instructions per 8 k-steps instead of 32 loads.
struct LdmatrixLoader {
  /// As PlainLoader::load().
  __device__ static void load(const float* a_tile, const float* b_tile, int lane,
                              FragmentA (&a)[kMmaTilesDown], FragmentB (&b)[kMmaTilesAcross]) {
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i)
      ldmatrix_x4(a[i].reg, a_tile + i * kMmaM * kPitch + ldmatrix_offset(lane, true));
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; j += 2) {
      unsigned reg[4];
      ldmatrix_x4(reg, b_tile + j * kMmaN * kPitch + ldmatrix_offset(lane, false));
      b[j] = {{reg[0], reg[1]}};
      b[j + 1] = {{reg[2], reg[3]}};
    }
  }
};

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

/// The warp's loop over one stage: for each 8 k-steps, @p Loader reads the A fragments of the
/// warp's 4 instruction rows and the B fragments of its 8 instruction columns, then the warp
/// multiplies them into acc[i][j]. @p a_tile and @p b_tile point at the warp's first row of A
/// and of B^T in the stage.
template <class Loader>
__device__ __forceinline__ void multiply_batch(const float* a_tile, const float* b_tile, int lane,
                                               float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
#pragma unroll
  for (int k8 = 0; k8 < kBatch; k8 += kMmaK) {
    FragmentA a[kMmaTilesDown];
    FragmentB b[kMmaTilesAcross];
    Loader::load(a_tile + k8, b_tile + k8, lane, a, b);
    // EXERCISE 6.3 begin: the warp holds 4 fragments of A and 8 of B. Which products make its
    // 4 x 8 accumulator tiles? Unroll every loop, so that acc stays in registers.
    // (nothing yet: the accumulators stay 0)
    // EXERCISE 6.3 end
  }
}

/// Exercise 6.4, the write-back: stores the warp's accumulators into C (m x n, row-major), where
/// (row0, col0) is the warp tile's corner in C and acc[i][j] is the instruction tile i down, j
/// across. Elements 0, 1 (and 2, 3) of a lane are neighbours in a row: they go out as one float2
/// when both are inside C, n is even and C is 8-byte aligned (then so is the pair).
__device__ __forceinline__ void store_block(float* __restrict__ c, int m, int n, int row0, int col0,
                                            int lane,
                                            const float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
  // EXERCISE 6.4 begin: where in C does each accumulator element go (exercise 6.1 knows its
  // place in its tile)? C is not padded: which of those places exist? Compute row * n in
  // std::size_t.
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

/// The tensor-core product: block (bx, by) computes `C[128*by + (0..127)][256*bx + (0..255)]`,
/// reading fragments with @p Loader through @p Stages shared stages (step 1: PlainLoader, 2;
/// step 2: LdmatrixLoader, 2; step 3: LdmatrixLoader, kStages). @p ap is A rounded to TF32 and
/// padded with zeros (padded_m x padded_k), @p btp is B^T rounded and padded (padded_n x
/// padded_k); the loop over k has no bounds checks. Only the stores into C (m x n) are checked.
/// Dynamic shared memory: product_shared_bytes(Stages).
template <class Loader, int Stages>
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ ap, const float* __restrict__ btp,
                   float* __restrict__ c, int m, int n, int padded_k) {
  static_assert(Stages >= 2, "one stage is multiplied while the next is copied");
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
  const int a_offset = warp_row * kPitch;                // the warp's rows of A
  const int b_offset = (kTileRows + warp_col) * kPitch;  // and of B^T, in a stage
  const int batches = padded_k / kBatch;

  // The pipeline of chapter 5, Stages deep: batches b + 1 .. b + Stages - 1 are in flight while b
  // is multiplied. Every trip commits one group (empty near the end), so "all but the newest
  // Stages - 2 groups have landed" always means "batch b has landed".
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < batches)
      copy_stage(stages + s * kStageFloats, a + s * kBatch, bt + s * kBatch, pitch, thread);
    cp_async_commit();
  }
  for (int batch = 0; batch < batches; ++batch) {
    cp_async_wait<Stages - 2>();
    __syncthreads();  // batch is in its stage; the stage of batch - 1 is free
    const int next = batch + Stages - 1;
    if (next < batches) {
      copy_stage(stages + (next % Stages) * kStageFloats, a + next * kBatch, bt + next * kBatch,
                 pitch, thread);
    }
    cp_async_commit();
    const float* stage = stages + (batch % Stages) * kStageFloats;
    multiply_batch<Loader>(stage + a_offset, stage + b_offset, lane, acc);
  }
  cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits
  store_block(c, m, n, row0 + warp_row, col0 + warp_col, lane, acc);
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
