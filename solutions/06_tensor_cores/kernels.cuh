/// @file kernels.cuh
/// @brief Chapter 6: tensor cores. The product (matmul only) on TF32 `mma.sync`, FP32 accumulation.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/// Chapter 6: tensor cores.
namespace ch06 {

inline constexpr int kWarpSize = 32;   ///< threads in a warp
inline constexpr int kWarpTile = 64;   ///< rows and columns of C one warp computes
inline constexpr int kTileRows = 128;  ///< rows of C per block tile
inline constexpr int kTileCols = 256;  ///< columns of C per block tile
inline constexpr int kWarpsAcross = kTileCols / kWarpTile;  ///< warps along a row: 4
inline constexpr int kWarpsDown = kTileRows / kWarpTile;    ///< warps along a column: 2
inline constexpr int kMmaM = 16;  ///< rows of C (and A) per instruction, mma.sync.m16n8k8
inline constexpr int kMmaN = 8;   ///< columns of C (and B) per instruction
inline constexpr int kMmaK = 8;   ///< k-steps per instruction
inline constexpr int kMmaTilesDown = kWarpTile / kMmaM;    ///< instruction tiles down a warp tile
inline constexpr int kMmaTilesAcross = kWarpTile / kMmaN;  ///< instruction tiles across it
inline constexpr int kBatch = 32;  ///< k-steps per batch: the floats of a stage's row
inline constexpr int kStages = 3;  ///< the stages of steps 3 and 4 (steps 1 and 2: two)
inline constexpr int kProductThreads = kWarpsDown * kWarpsAcross * kWarpSize;  ///< threads
inline constexpr int kQuad = 4;  ///< floats in one float4
/// Floats between rows of a stage in steps 1-3: 4 more than kBatch, so that the 8 rows a fragment
/// or ldmatrix reads together fall on different banks. Any multiple of kQuad gives the right
/// product (kBatch too), but not every one keeps those rows on different banks.
inline constexpr int kPitch = kBatch + kQuad;
inline constexpr int kQuadsPerRow = kBatch / kQuad;  ///< 16-byte chunks (float4s) of k in a row

/// Bytes of dynamic shared memory with @p stages stages laid out as @p Layout says (PaddedRows:
/// two 110592, three 165888; SwizzledRows: three 147456).
template <class Layout>
constexpr std::size_t product_shared_bytes(int stages) {
  return static_cast<std::size_t>(stages) * Layout::kStageFloats * sizeof(float);
}

static_assert(kTileRows * kQuadsPerRow % kProductThreads == 0 &&
                  kTileCols * kQuadsPerRow % kProductThreads == 0,
              "every thread copies the same number of float4s per stage");
static_assert(kMmaTilesAcross % 2 == 0, "one ldmatrix.x4 loads the B fragments of two tiles");
static_assert(kPitch % kQuad == 0, "rows start 16-byte aligned, as cp.async and ldmatrix need");
static_assert(kTileRows % 8 == 0 && kWarpTile % 8 == 0 && kMmaN % 8 == 0,
              "the swizzle repeats every 8 rows; every tile a loader reads starts on such a row");

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

/// A position in an instruction tile of C or A (16 x 8) or of B^T (8 x 8).
struct Position {
  int row;  ///< 0..15 (C, A) or 0..7 (B^T)
  int col;  ///< 0..7
};

/// Exercise 6.1: where accumulator element @p e of lane @p lane lies in its tile of C.
__host__ __device__ constexpr Position accumulator_position(int lane, int e) {
  // EXERCISE 6.1 begin: which row and column of the 16 x 8 tile does element e of this lane
  // hold? Read it off the table above, with (g, t) from the lane.
  return {lane / 4 + (e / 2) * 8, (lane % 4) * 2 + e % 2};
  // EXERCISE 6.1 end
}

/// Exercise 6.2: where register @p reg of lane @p lane's fragment of A (@p for_a) or B lies.
__host__ __device__ constexpr Position operand_position(int lane, int reg, bool for_a) {
  // EXERCISE 6.2 begin: which element of A (reg 0..3) or of B (reg 0..1) does this lane hold,
  // by the table above? Mind that B^T's row is B's column.
  const int g = lane / 4;
  const int t = lane % 4;
  return for_a ? Position{g + (reg % 2) * 8, t + (reg / 2) * 4} : Position{g, t + reg * 4};
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

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`: lanes 8j..8j + 7 give the addresses of the 8 rows of
/// 16 bytes of matrix j; register j of lane (g, t) receives float t of row g of matrix j.
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

/// Exercise 6.5: the row (as an offset from the tile's corner) lane @p lane points ldmatrix at,
/// for an A tile (@p for_a) or for two B^T tiles side by side.
__host__ __device__ constexpr int ldmatrix_offset(int lane, bool for_a) {
  // EXERCISE 6.5 begin: lane l points at row l % 8 of matrix l / 8, and register j receives
  // matrix j. Which 8 x 4 block of the tile must matrix j be, so that its (g, t) element is the
  // fragment register j of the table? Then: which row, which k?
  const int j = lane / 8;
  const int r = lane % 8;
  return for_a ? ((j % 2) * 8 + r) * kPitch + (j / 2) * kQuad
               : ((j / 2) * 8 + r) * kPitch + (j % 2) * kQuad;
  // EXERCISE 6.5 end
}

/// Steps 1-3's stages: rows padded to kPitch floats, the 16-byte chunks of a row in order.
struct PaddedRows {
  static constexpr int kRowFloats = kPitch;  ///< floats from one row of a stage to the next
  static constexpr int kStageFloats = (kTileRows + kTileCols) * kRowFloats;  ///< A, then B^T
  /// The float offset of chunk @p chunk (k 4 chunk .. 4 chunk + 3) of row @p row of a tile.
  __host__ __device__ static constexpr int chunk_offset(int row, int chunk) {
    return row * kPitch + chunk * kQuad;
  }
  /// Where lane @p lane points ldmatrix for k-steps @p k8 .. @p k8 + 7 of an instruction tile of
  /// A (@p for_a) or of two of B^T, from the tile's first row.
  __host__ __device__ static constexpr int lane_offset(int lane, bool for_a, int k8) {
    return ldmatrix_offset(lane, for_a) + k8;
  }
};

/// Step 4's stages: rows of kBatch floats (128 bytes, no padding), the 16-byte chunks of each row
/// in an order of its own (a swizzle), so that the 8 rows ldmatrix reads together still fall on
/// different banks. Chapter 7's TMA copies write this layout.
struct SwizzledRows {
  static constexpr int kRowFloats = kBatch;  ///< floats from one row of a stage to the next
  static constexpr int kStageFloats = (kTileRows + kTileCols) * kRowFloats;  ///< A, then B^T
  /// Exercise 6.7: the float offset of chunk @p chunk (k 4 chunk .. 4 chunk + 3) of row @p row of a
  /// tile (a tile starts on a multiple of 8 rows).
  __host__ __device__ static constexpr int chunk_offset(int row, int chunk) {
    // EXERCISE 6.7 begin: a row is 128 bytes, 8 chunks, and nothing pads it. ldmatrix reads
    // the same chunk of 8 rows together (rows 8i .. 8i + 7 of a tile). Where in its own row
    // must each chunk go, so that for every chunk those 8 rows keep it in 8 different places?
    return row * kBatch + (chunk ^ (row % kQuadsPerRow)) * kQuad;
    // EXERCISE 6.7 end
  }
  /// As PaddedRows::lane_offset(): the row and k of ldmatrix_offset() (its row * kPitch + k),
  /// where chunk_offset() stores them, @p k8 further along the row.
  __host__ __device__ static constexpr int lane_offset(int lane, bool for_a, int k8) {
    const int padded = ldmatrix_offset(lane, for_a);
    return chunk_offset(padded / kPitch, (padded % kPitch + k8) / kQuad);
  }
};

/// Step 1: every fragment register with its own 32-bit shared load, at operand_position().
struct PlainLoader {
  using Layout = PaddedRows;  ///< how the stages hold the tiles this loader reads
  /// Loads the warp's fragments for k-steps @p k8 .. @p k8 + 7 from @p a_tile (A), @p b_tile (B^T).
  __device__ static void load(const float* a_tile, const float* b_tile, int k8, int lane,
                              FragmentA (&a)[kMmaTilesDown], FragmentB (&b)[kMmaTilesAcross]) {
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const Position p = operand_position(lane, r, true);
        a[i].reg[r] = __float_as_uint(a_tile[(i * kMmaM + p.row) * kPitch + k8 + p.col]);
      }
    }
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const Position p = operand_position(lane, r, false);
        b[j].reg[r] = __float_as_uint(b_tile[(j * kMmaN + p.row) * kPitch + k8 + p.col]);
      }
    }
  }
};

/// Steps 2-4: whole fragments with ldmatrix.x4, from stages laid out as @p StageLayout says.
template <class StageLayout>
struct LdmatrixLoader {
  using Layout = StageLayout;  ///< PaddedRows (steps 2 and 3) or SwizzledRows (step 4)
  /// As PlainLoader::load().
  __device__ static void load(const float* a_tile, const float* b_tile, int k8, int lane,
                              FragmentA (&a)[kMmaTilesDown], FragmentB (&b)[kMmaTilesAcross]) {
    constexpr int kRow = Layout::kRowFloats;
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i)
      ldmatrix_x4(a[i].reg, a_tile + i * kMmaM * kRow + Layout::lane_offset(lane, true, k8));
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; j += 2) {
      unsigned reg[4];
      ldmatrix_x4(reg, b_tile + j * kMmaN * kRow + Layout::lane_offset(lane, false, k8));
      b[j] = {{reg[0], reg[1]}};
      b[j + 1] = {{reg[2], reg[3]}};
    }
  }
};

/// Multiplies a batch: per 8 k-steps, @p Loader reads the fragments, the warp's mma add them up.
template <class Loader>
__device__ __forceinline__ void multiply_batch(const float* a_tile, const float* b_tile, int lane,
                                               float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
#pragma unroll
  for (int k8 = 0; k8 < kBatch; k8 += kMmaK) {
    FragmentA a[kMmaTilesDown];
    FragmentB b[kMmaTilesAcross];
    Loader::load(a_tile, b_tile, k8, lane, a, b);
    // EXERCISE 6.3 begin: the warp holds 4 fragments of A and 8 of B. Which products make its
    // 4 x 8 accumulator tiles? Unroll every loop, so that acc stays in registers.
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
      for (int j = 0; j < kMmaTilesAcross; ++j)
        mma_tf32(acc[i][j], a[i], b[j]);
    }
    // EXERCISE 6.3 end
  }
}

/// Exercise 6.4: stores the warp's accumulators into C (m x n, not padded), none outside C.
__device__ __forceinline__ void store_block(float* __restrict__ c, int m, int n, int row0, int col0,
                                            int lane,
                                            const float (&acc)[kMmaTilesDown][kMmaTilesAcross][4]) {
  // EXERCISE 6.4 begin: where in C does each accumulator element go (exercise 6.1 knows its
  // place in its tile)? C is not padded: which of those places exist? Compute row * n in
  // std::size_t.
  const bool pairs = n % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % sizeof(float2) == 0;
#pragma unroll
  for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; ++j) {
#pragma unroll
      for (int e = 0; e < 4; e += 2) {
        const Position p = accumulator_position(lane, e);
        const int row = row0 + i * kMmaM + p.row;
        const int col = col0 + j * kMmaN + p.col;
        if (row >= m)
          continue;
        float* dst = c + static_cast<std::size_t>(row) * n + col;
        if (pairs && col < n - 1) {  // not col + 1 < n, which overflows near INT_MAX
          *reinterpret_cast<float2*>(dst) = make_float2(acc[i][j][e], acc[i][j][e + 1]);
        } else {
          if (col < n)
            dst[0] = acc[i][j][e];
          if (col < n - 1)
            dst[1] = acc[i][j][e + 1];
        }
      }
    }
  }
  // EXERCISE 6.4 end
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

/// Waits until at most @p Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// Starts the copies of a stage from @p a (`ap[row0][k0]`) and @p bt (`btp[col0][k0]`), each
/// chunk of 16 bytes to where @p Layout keeps it.
template <class Layout>
__device__ __forceinline__ void copy_stage(float* stage, const float* a, const float* bt,
                                           std::size_t pitch, int thread) {
  float* a_tile = stage;
  float* b_tile = stage + kTileRows * Layout::kRowFloats;
#pragma unroll
  for (int i = 0; i < kTileRows * kQuadsPerRow / kProductThreads; ++i) {
    const int q = thread + i * kProductThreads;
    const int row = q / kQuadsPerRow;
    const int chunk = q % kQuadsPerRow;
    cp_async_16(a_tile + Layout::chunk_offset(row, chunk), a + row * pitch + chunk * kQuad);
  }
#pragma unroll
  for (int i = 0; i < kTileCols * kQuadsPerRow / kProductThreads; ++i) {
    const int q = thread + i * kProductThreads;
    const int row = q / kQuadsPerRow;
    const int chunk = q % kQuadsPerRow;
    cp_async_16(b_tile + Layout::chunk_offset(row, chunk), bt + row * pitch + chunk * kQuad);
  }
}

/// The main loop of product_kernel is written with five operations, so that the same loop runs
/// in the kernel (KernelPipeline, below) and in the CPU tests, which check its schedule:
///   ops.copy(stage, batch)   start this thread's copies of batch @p batch into stage @p stage
///   ops.commit()             cp.async.commit_group: close the group of copies started since the
///                            last commit (a group may be empty)
///   ops.wait(pending)        cp.async.wait_group: wait until at most @p pending of this thread's
///                            newest groups are still in flight (every older one has landed)
///   ops.sync()               __syncthreads()
///   ops.multiply(stage)      the warp's mma.sync over the batch held in stage @p stage
/// Stages are numbered 0 .. Stages - 1, batches 0 .. batches - 1 along k.

/// Steps 1 and 2: chapter 5's pipeline (exercise 5.4) in these operations, with two stages.
#pragma nv_exec_check_disable  // on the CPU the operations are a test's model, host code only
template <class Ops>
__host__ __device__ __forceinline__ void two_stage_pipeline(Ops& ops, int batches) {
  if (batches > 0)
    ops.copy(0, 0);
  ops.commit();
  for (int batch = 0; batch < batches; ++batch) {
    ops.wait(0);
    ops.sync();  // batch is in its stage, and no warp still reads the other one
    if (batch + 1 < batches) {
      ops.copy((batch + 1) % 2, batch + 1);
      ops.commit();
    }
    ops.multiply(batch % 2);
  }
}

/// Exercise 6.6: steps 3 and 4's pipeline over @p Stages stages (3 or more): every batch of
/// @p batches multiplied once, in order, while the next Stages - 1 batches are being copied.
#pragma nv_exec_check_disable  // as above
template <int Stages, class Ops>
__host__ __device__ __forceinline__ void deep_pipeline(Ops& ops, int batches) {
  static_assert(Stages >= 3, "two stages are two_stage_pipeline()");
  // EXERCISE 6.6 begin
  // Batches b + 1 .. b + Stages - 1 in flight while b is multiplied; every trip commits one
  // group (empty near the end), so "all but the newest Stages - 2 groups have landed" means
  // "b has".
#ifdef __CUDA_ARCH__  // the host compiler, which reads this function too, knows no such pragma
#pragma unroll
#endif
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < batches)
      ops.copy(s, s);
    ops.commit();
  }
  for (int batch = 0; batch < batches; ++batch) {
    ops.wait(Stages - 2);
    ops.sync();  // batch is in its stage; the stage of batch - 1 is free
    const int next = batch + Stages - 1;
    if (next < batches)
      ops.copy(next % Stages, next);
    ops.commit();
    ops.multiply(batch % Stages);
  }
  // EXERCISE 6.6 end
}

/// The five operations of the pipeline in product_kernel<Loader, Stages>, for one thread.
template <class Loader, int Stages>
struct KernelPipeline {
  using Layout = typename Loader::Layout;  ///< how copy_stage() stores the tiles Loader reads
  float* stages;                           ///< the Stages stages, in dynamic shared memory
  const float* a;                          ///< the block's rows of A (padded), at k = 0
  const float* bt;                         ///< the block's rows of B^T (padded), at k = 0
  std::size_t pitch;                       ///< floats from one row of A or B^T to the next
  int thread;                              ///< this thread's number in the block
  int lane;                                ///< this thread's lane in its warp
  int a_offset;                            ///< where the warp's rows of A start in a stage
  int b_offset;                            ///< where the warp's rows of B^T start in a stage
  float (&acc)[kMmaTilesDown][kMmaTilesAcross][4];  ///< the warp's accumulators

  /// Starts this thread's copies of batch @p batch (k 32 batch .. 32 batch + 31) into @p stage.
  __device__ void copy(int stage, int batch) const {
    copy_stage<Layout>(stages + stage * Layout::kStageFloats, a + batch * kBatch,
                       bt + batch * kBatch, pitch, thread);
  }
  /// cp.async.commit_group.
  __device__ void commit() const { cp_async_commit(); }
  /// cp.async.wait_group @p pending (the instruction takes a constant: one case per count).
  __device__ void wait(int pending) const {
    static_assert(Stages <= 4, "a case below for every count a pipeline of Stages can leave");
    if (pending <= 0)
      cp_async_wait<0>();
    else if (pending == 1)
      cp_async_wait<1>();
    else if (pending == 2)
      cp_async_wait<2>();
    else
      cp_async_wait<3>();
  }
  /// __syncthreads().
  __device__ void sync() const { __syncthreads(); }
  /// The warp's products of the batch in @p stage, added into acc.
  __device__ void multiply(int stage) const {
    const float* tiles = stages + stage * Layout::kStageFloats;
    multiply_batch<Loader>(tiles + a_offset, tiles + b_offset, lane, acc);
  }
};

/// The product from @p ap (A) and @p btp (B^T), TF32 and padded, @p Loader, @p Stages stages.
template <class Loader, int Stages>
__global__ void __launch_bounds__(kProductThreads)
    product_kernel(const float* __restrict__ ap, const float* __restrict__ btp,
                   float* __restrict__ c, int m, int n, int padded_k) {
  static_assert(Stages >= 2, "one stage is multiplied while the next is copied");
  using Layout = typename Loader::Layout;   // how copy_stage() stores the tiles Loader reads
  extern __shared__ float4 shared_quads[];  // float4: 16-byte alignment for cp.async and ldmatrix
  const int thread = threadIdx.x;
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  const int warp_row = (warp / kWarpsAcross) * kWarpTile;  // the warp's tile inside the block's
  const int warp_col = (warp % kWarpsAcross) * kWarpTile;
  const int row0 = blockIdx.y * kTileRows;
  const int col0 = blockIdx.x * kTileCols;
  float acc[kMmaTilesDown][kMmaTilesAcross][4] = {};
  const std::size_t pitch = static_cast<std::size_t>(padded_k);
  KernelPipeline<Loader, Stages> ops{reinterpret_cast<float*>(shared_quads),
                                     ap + static_cast<std::size_t>(row0) * pitch,
                                     btp + static_cast<std::size_t>(col0) * pitch,
                                     pitch,
                                     thread,
                                     lane,
                                     warp_row * Layout::kRowFloats,  // the warp's rows of A
                                     (kTileRows + warp_col) * Layout::kRowFloats,  // of B^T
                                     acc};
  if constexpr (Stages == 2)
    two_stage_pipeline(ops, padded_k / kBatch);
  else
    deep_pipeline<Stages>(ops, padded_k / kBatch);
  cp_async_wait<0>();  // no copy may still be writing shared memory when the block exits
  store_block(c, m, n, row0 + warp_row, col0 + warp_col, lane, acc);
}

/// The pre-pass's element hook (course/prepass.cuh): rounds to TF32 (10 mantissa bits, ties away).
struct RoundToTf32 {
  /// @p x rounded to TF32.
  __device__ float operator()(float x) const {
#if __CUDA_ARCH__ >= 800
    unsigned bits;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(bits) : "f"(x));
    return __uint_as_float(bits);
#else
    __trap();  // unreachable: matmul() refuses GPUs before compute capability 8.0
    return x;
#endif
  }
};
}  // namespace ch06
