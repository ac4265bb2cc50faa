/// @file kernels.cuh
/// @brief Chapter 8: the whole product at the vendor library's speed. The product kernel of
/// chapter 7 without its B^T pre-pass (the tensor cores read B from registers, and the block
/// computes a tile of C^T), made persistent (one block per SM walking the tiles, with split-K for
/// products of few tiles), then run in clusters of two blocks that share A's tile through TMA
/// multicast.
#pragma once

#include <cuda.h>  // CUtensorMap: the tensor map the host describes each operand with
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/// Chapter 8: persistent tiles and clusters.
namespace ch08 {

// As in chapter 7: the instructions of this file exist only in the sm_90a target.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define COURSE_CH08_HOPPER 1  ///< device code for sm_90a: TMA, clusters and wgmma exist
#else
#define COURSE_CH08_HOPPER 0  ///< host code, or device code for a GPU without them
#endif

inline constexpr int kWarpSize = 32;           ///< threads in a warp
inline constexpr int kWarpgroupThreads = 128;  ///< 4 warps: the threads of one wgmma
inline constexpr int kTileRows = 256;          ///< rows of C per block tile (the wgmma's N)
inline constexpr int kTileCols = 128;          ///< columns of C per block tile
inline constexpr int kMmaM = 64;               ///< columns of C per wgmma: a warpgroup's share
inline constexpr int kMmaK = 8;                ///< k-steps per TF32 wgmma
inline constexpr int kBatch = 32;              ///< k-steps per stage: 32 floats, one 128-byte row
inline constexpr int kConsumers = kTileCols / kMmaM;  ///< warpgroups that multiply: 2
inline constexpr int kStages = 4;          ///< the ring's stages for a full tile (ring_stages())
inline constexpr int kSwizzleBytes = 128;  ///< A's swizzle span: one row of a stage
inline constexpr int kSlabCols = 32;       ///< columns of B per slab: two warps' rows of C^T
inline constexpr int kSlabs = kTileCols / kSlabCols;     ///< slabs of B per stage: 4
inline constexpr int kATileFloats = kTileRows * kBatch;  ///< floats of a stage's A tile
inline constexpr int kSlabFloats = kBatch * kSlabCols;   ///< floats of one slab of B
/// Bytes of a stage: the A tile (256 rows of 32 floats), then B's 4 slabs (32 rows of 32 floats
/// each), all with the 128-byte swizzle.
inline constexpr int kStageBytes = (kATileFloats + kSlabs * kSlabFloats) * sizeof(float);
/// A 128-byte swizzle repeats every 8 rows (1024 bytes); tiles start on such a boundary.
inline constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;
inline constexpr int kMmasPerStage = kBatch / kMmaK;  ///< wgmmas per stage: 4, a group each

static_assert(kBatch * sizeof(float) == kSwizzleBytes, "a row of A's tile is one swizzle span");
static_assert(kStageBytes % kSwizzleAtomBytes == 0, "every stage starts on a swizzle atom");

/// Threads of a block: a producer warpgroup and the consumer warpgroups.
constexpr int product_threads() {
  return (kConsumers + 1) * kWarpgroupThreads;
}

/// Rows of C per block tile when C has no more rows than that (a model's decode step): the
/// wgmma's N shrinks to 64, so the tensor cores do no work for rows past m, and a stage shrinks
/// to 24 KiB, so the same shared memory holds a ring of 8 stages.
inline constexpr int kShortTileRows = 64;

/// Bytes of a stage of a tile of @p Rows rows: A's Rows x 32 floats, then B's 4 slabs.
template <int Rows>
__host__ __device__ constexpr int stage_bytes() {
  return (Rows * kBatch + kSlabs * kSlabFloats) * static_cast<int>(sizeof(float));
}

/// Stages of the ring for a tile of @p Rows rows: as many as fit where 4 of the full tile do.
template <int Rows>
__host__ __device__ constexpr int ring_stages() {
  return kStages * kStageBytes / stage_bytes<Rows>();
}

/// Accumulators per consumer thread for a tile of @p Rows rows: a 64 x Rows tile of C^T.
template <int Rows>
__host__ __device__ constexpr int tile_accumulators() {
  return kMmaM * Rows / kWarpgroupThreads;
}

static_assert(stage_bytes<kShortTileRows>() % kSwizzleAtomBytes == 0, "short stages stay aligned");

/// Dynamic shared memory of the product kernel for tiles of @p Rows rows: the stages, the full
/// and empty barriers (8 bytes each), and room to align the first stage to a swizzle atom.
template <int Rows = kTileRows>
constexpr std::size_t product_shared_bytes() {
  return static_cast<std::size_t>(ring_stages<Rows>()) *
             (stage_bytes<Rows>() + 2 * sizeof(std::uint64_t)) +
         kSwizzleAtomBytes;
}

// ---------------------------------------------------------------------------------------------
// mbarrier and TMA, as in chapter 7; new: arrivals on a barrier of another block of the cluster,
// and copies that land in every block of the cluster (multicast).
// ---------------------------------------------------------------------------------------------

/// The shared-memory address of @p p, as PTX's `.shared` instructions take it.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Sets up @p barrier to complete a phase after @p arrivals arrivals.
__device__ __forceinline__ void barrier_init(std::uint64_t* barrier, unsigned arrivals) {
#if COURSE_CH08_HOPPER
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
               "r"(arrivals));
#endif
}

/// Makes the barriers just initialised visible to the copy engine and to the cluster.
__device__ __forceinline__ void barrier_init_fence() {
#if COURSE_CH08_HOPPER
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// Arrives on @p barrier and tells it to expect @p bytes more from the copy engine.
__device__ __forceinline__ void barrier_arrive_expect(std::uint64_t* barrier, unsigned bytes) {
#if COURSE_CH08_HOPPER
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#endif
}

/// Arrives on the barrier at the place of @p barrier in the shared memory of block @p block of
/// this cluster (this block's own rank included). Its ordering is the block's (`.cta`, the
/// default): a cluster-wide release would make every arrival wait for a memory fence.
__device__ __forceinline__ void barrier_arrive_cluster(std::uint64_t* barrier, unsigned block) {
#if COURSE_CH08_HOPPER
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(shared_address(barrier)),
      "r"(block)
      : "memory");
#endif
}

/// Arrives on @p barrier, in this block's shared memory.
__device__ __forceinline__ void barrier_arrive(std::uint64_t* barrier) {
#if COURSE_CH08_HOPPER
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
               : "memory");
#endif
}

/// Cycles after which a wait gives up (about 9 s at 2 GHz) with a trap instead of a hang.
inline constexpr long long kWaitLimitCycles = 1LL << 34;

/// Waits until the phase of @p barrier with parity @p parity has completed (chapter 7).
__device__ __forceinline__ void barrier_wait(std::uint64_t* barrier, unsigned parity) {
#if COURSE_CH08_HOPPER
  unsigned done = 0;
  const long long start = clock64();
  while (!done) {
    if (clock64() - start > kWaitLimitCycles)
      __trap();
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  }
#endif
}

/// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank = 0;
#if COURSE_CH08_HOPPER
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
#endif
  return rank;
}

/// Every thread of every block of the cluster waits here until all have arrived: what each did
/// before (barriers initialised, arrivals) is visible to all after.
__device__ __forceinline__ void cluster_sync() {
#if COURSE_CH08_HOPPER
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
#endif
}

/// Starts a TMA copy of the box at column @p x, row @p y of the tensor @p map describes into
/// @p destination; it counts its bytes on @p barrier as they land.
__device__ __forceinline__ void tma_load(void* destination, const CUtensorMap* map,
                                         std::uint64_t* barrier, int x, int y) {
#if COURSE_CH08_HOPPER
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(barrier)), "r"(x), "r"(y)
      : "memory");
#endif
}

/// As tma_load(), but the box lands at the same place in the shared memory of every block of the
/// cluster whose bit is set in @p blocks, and counts its bytes on each one's barrier there.
__device__ __forceinline__ void tma_load_multicast(void* destination, const CUtensorMap* map,
                                                   std::uint64_t* barrier, int x, int y,
                                                   std::uint16_t blocks) {
#if COURSE_CH08_HOPPER
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(barrier)), "r"(x), "r"(y),
      "h"(blocks)
      : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// wgmma with the first operand in registers. The block computes a tile of C^T = B^T A^T: the
// wgmma's first operand (64 x 8, registers) holds B^T, which each thread reads from B's slab as
// B is; its second (8 x 256, shared memory, K-major) is A's tile as TMA copies it. No transpose.
// ---------------------------------------------------------------------------------------------

/// The shared-memory descriptor of A's tile: K-major, 128-byte rows, 128-byte swizzle
/// (chapter 7's exercise 7.1).
__host__ __device__ constexpr std::uint64_t tile_descriptor(unsigned address) {
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) |
         (std::uint64_t{kSwizzleAtomBytes >> 4} << 32) | (std::uint64_t{1} << 62);
}

/// Keeps the compiler from moving reads or writes of @p acc across an asynchronous wgmma.
template <int N>
__device__ __forceinline__ void fence_accumulators(float (&acc)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("" : "+f"(acc[i])::"memory");
}

/// The asm operands of accumulators d[i] .. d[i + 3], read and written ("+f").
#define COURSE_CH08_F4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
/// The asm operands of accumulators d[i] .. d[i + 15].
#define COURSE_CH08_F16(i) \
  COURSE_CH08_F4(i), COURSE_CH08_F4(i + 4), COURSE_CH08_F4(i + 8), COURSE_CH08_F4(i + 12)

/// `wgmma.mma_async.m64nNk8.f32.tf32.tf32` with the first operand in registers: d += A * B for
/// the 64 x 8 operand in @p a0 .. @p a3 and the 8 x N operand that @p b describes; N is 256 for
/// 128 accumulators per thread (a full tile), 64 for 32 (a short one).
template <int Accumulators>
__device__ __forceinline__ void wgmma_tf32(float (&d)[Accumulators], std::uint32_t a0,
                                           std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                                           std::uint64_t b) {
#if COURSE_CH08_HOPPER
  static_assert(Accumulators == 128 || Accumulators == 32, "a tile of 256 or 64 rows");
  if constexpr (Accumulators == 128) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %133, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110,"
        " %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
        " %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
        : COURSE_CH08_F16(0), COURSE_CH08_F16(16), COURSE_CH08_F16(32), COURSE_CH08_F16(48),
          COURSE_CH08_F16(64), COURSE_CH08_F16(80), COURSE_CH08_F16(96), COURSE_CH08_F16(112)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(1)  // 1: add to d
        : "memory");
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
        " {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
        : COURSE_CH08_F16(0), COURSE_CH08_F16(16)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(b), "r"(1)  // 1: add to d
        : "memory");
  }
#else
  (void)d;
  (void)a0;
  (void)a1;
  (void)a2;
  (void)a3;
  (void)b;
  __trap();  // unreachable: matmul() refuses a GPU or build without sm_90a
#endif
}
#undef COURSE_CH08_F16
#undef COURSE_CH08_F4

/// Orders this warpgroup's register accesses (accumulators, first operands) before the wgmmas
/// that follow.
__device__ __forceinline__ void wgmma_fence() {
#if COURSE_CH08_HOPPER
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Closes the group of wgmmas this warpgroup started since the last call.
__device__ __forceinline__ void wgmma_commit() {
#if COURSE_CH08_HOPPER
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most @p Pending of this warpgroup's committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if COURSE_CH08_HOPPER
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// The column of a 32-column slab of B that row @p g (0..7) of warp half @p odd of C^T holds;
/// row g + 8 holds the next column. Chosen so that the 16 threads of each half-warp, reading a
/// pair of columns at 4 consecutive k-steps, hit 32 different banks through the swizzle.
__host__ __device__ constexpr int slab_column(int g, int odd) {
  // EXERCISE 8.1 begin: which two columns of the slab does row g of this warp half read, so that
  // the 16 rows of each half are 32 different columns and a half-warp's loads of a column pair
  // at 4 consecutive k-steps land on 32 different banks once the swizzle has moved them?
  return (g % 2) * 2 + (g / 2 % 2) * 16 + (g / 4) * 4 + odd * 8;
  // EXERCISE 8.1 end
}

/// The float of a slab (32 rows of 32 floats, 128-byte swizzle) at row @p k, column @p col: the
/// 16-byte chunk's index is XORed with the row's index modulo 8.
__host__ __device__ constexpr int slab_offset(int k, int col) {
  // EXERCISE 8.1 begin: where did TMA's 128-byte swizzle put the float of row k, column col?
  return k * kSlabCols + ((col / 4) ^ (k % 8)) * 4 + col % 4;
  // EXERCISE 8.1 end
}

/// Reads this thread's share of k-step @p q (8 k-steps) of a stage's B^T operand from @p slab
/// into @p fragment: the four registers of a 64 x 8 first operand. @p odd: the warp's half of the
/// slab.
__device__ __forceinline__ void load_fragment(const float* slab, int odd, int q,
                                              std::uint32_t (&fragment)[4]) {
  const int lane = threadIdx.x % kWarpSize;
  const int g = lane / 4;
  const int t = lane % 4;
  const int col = slab_column(g, odd);
  const float2 low = *reinterpret_cast<const float2*>(slab + slab_offset(q * kMmaK + t, col));
  const float2 high = *reinterpret_cast<const float2*>(slab + slab_offset(q * kMmaK + t + 4, col));
  fragment[0] = __float_as_uint(low.x);   // row g, k-step t
  fragment[1] = __float_as_uint(low.y);   // row g + 8, k-step t
  fragment[2] = __float_as_uint(high.x);  // row g, k-step t + 4
  fragment[3] = __float_as_uint(high.y);  // row g + 8, k-step t + 4
}

/// The solution's reading of a slab, as the product kernel takes it: load_fragment().
struct SlabFragments {
  /// load_fragment(@p slab, @p odd, @p q, @p fragment).
  __device__ void operator()(const float* slab, int odd, int q,
                             std::uint32_t (&fragment)[4]) const {
    load_fragment(slab, odd, q, fragment);
  }
};

/// Starts one wgmma of the warpgroup, as a group of its own: k-step @p q (8 k-steps) of a stage,
/// the first operand in @p fragment, the second in @p a_tile (the tile's rows of A, 32 k-steps
/// long; N / 2 of them for @p acc's N accumulators).
template <int N>
__device__ __forceinline__ void multiply_step(const std::uint32_t (&fragment)[4],
                                              const float* a_tile, int q, float (&acc)[N]) {
  fence_accumulators(acc);
  wgmma_fence();
  const std::uint64_t step = q * kMmaK * sizeof(float) >> 4;  // 32 bytes, in 16-byte units
  wgmma_tf32(acc, fragment[0], fragment[1], fragment[2], fragment[3],
             tile_descriptor(shared_address(a_tile)) + step);
  wgmma_commit();
}

/// Stores the warpgroup's accumulators (a 64 x 2N tile of C^T for N of them) into @p c (rows of @p
/// pitch floats; m x n are written, none outside). @p row0 is the tile's first row of C, @p col0
/// the warpgroup's first column.
template <int N>
__device__ __forceinline__ void store_tile(float* __restrict__ c, std::size_t pitch, int m, int n,
                                           int row0, int col0, const float (&acc)[N]) {
  const int thread = threadIdx.x % kWarpgroupThreads;
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  const int col = col0 + warp / 2 * kSlabCols + slab_column(lane / 4, warp % 2);  // rows g, g + 8
  const bool pairs = pitch % 2 == 0 && reinterpret_cast<std::uintptr_t>(c) % sizeof(float2) == 0;
#pragma unroll
  for (int i = 0; i < N; i += 4) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {  // C^T columns 8j + 2t and 8j + 2t + 1
      const int row = row0 + (i / 4) * 8 + (lane % 4) * 2 + half;
      if (row >= m || col >= n)
        continue;
      float* dst = c + static_cast<std::size_t>(row) * pitch + col;
      if (pairs && col < n - 1) {
        *reinterpret_cast<float2*>(dst) = make_float2(acc[i + half], acc[i + 2 + half]);
      } else {
        dst[0] = acc[i + half];
        if (col < n - 1)
          dst[1] = acc[i + 2 + half];
      }
    }
  }
}

/// The parity that a wait for batch @p batch of a ring of @p stages stages names (chapter 7's
/// exercise 7.4): a consumer's on the stage's full barrier, the producer's on its empty one.
__host__ __device__ constexpr unsigned wait_parity(int batch, int stages, bool producer) {
  return static_cast<unsigned>(batch / stages + (producer ? 1 : 0)) % 2;
}

/// Asks the hardware to give this warp's warpgroup @p Registers registers per thread (sm_90a).
template <int Registers>
__device__ __forceinline__ void set_registers() {
#if COURSE_CH08_HOPPER
  if constexpr (Registers > 128)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
#endif
}

/// The shape of the work: tiles of C (@p tile_rows x @p tile_cols), each cut into @p splits
/// slices of @p batches_per_split batches of k (the last may be shorter; @p batches in all).
/// A unit is one slice of one tile for one block; a cluster takes @p Cluster tiles side by side
/// (the same rows of C, so the same tile of A), which make one unit of the cluster.
struct Work {
  int tile_rows = 0;          ///< tiles down C
  int tile_cols = 0;          ///< tiles across C, rounded up to a multiple of the cluster
  int splits = 1;             ///< slices of the k range per tile (split-K)
  int batches = 0;            ///< batches of 32 k-steps in all
  int batches_per_split = 0;  ///< batches of one slice
};

/// Where a unit of the cluster lies: its first row of C, its cluster's first column, its slice.
struct Unit {
  int row0;   ///< first row of C
  int col0;   ///< first column of C of the cluster's tiles
  int split;  ///< slice of k
};

/// Unit @p unit of @p work with @p cluster tiles per unit, in the tile order that shares L2:
/// consecutive units walk down a group of 8 tile rows before moving right (chapter 7), and the
/// slices of a tile are consecutive.
template <int Rows = kTileRows>
__device__ __forceinline__ Unit unit_at(int unit, const Work& work, int cluster) {
  const int split = unit % work.splits;
  const int tile = unit / work.splits;
  const int cols = work.tile_cols / cluster;  // units across C
  constexpr int kGroupRows = 8;
  const int group = tile / (kGroupRows * cols);
  const int first = group * kGroupRows;
  const int height = min(work.tile_rows - first, kGroupRows);
  const int within = tile % (kGroupRows * cols);
  return {(first + within % height) * Rows, within / height * kTileCols * cluster, split};
}

/// The units one block walks: @p first, then every @p step-th one after it.
struct Walk {
  int first;  ///< the block's first unit
  int step;   ///< units from one of the block's units to its next
};

/// The walk of block @p block of @p blocks, in clusters of @p cluster blocks, over @p units units
/// of the cluster: a persistent block (@p persistent) takes a unit in turn with the others until
/// none is left; otherwise the grid has a cluster per unit and each block takes one.
__host__ __device__ constexpr Walk unit_walk(int block, int blocks, int cluster, int units,
                                             bool persistent) {
  // EXERCISE 8.2 begin: which unit does this block take first, and how far on is its next one?
  // The blocks of a cluster share A's tile: they must walk the same units, in the same order.
  return {block / cluster, persistent ? blocks / cluster : units};
  // EXERCISE 8.2 end
}

/// What one block of a cluster copies of A's tile (a box of kTileRows / cluster rows), and where
/// the copy lands.
struct Share {
  int row;               ///< the box's first row within the tile
  std::uint16_t blocks;  ///< the blocks of the cluster it lands in, a bit each (bit r: rank r)
};

/// The share of A's tile that block @p rank of a cluster of @p cluster blocks copies with TMA
/// multicast.
__host__ __device__ constexpr Share multicast_share(unsigned rank, int cluster) {
  // EXERCISE 8.3 begin: the blocks of a cluster need the same tile of A. Which rows of it does
  // block rank copy, and which blocks' shared memory must its copy reach so that every block's
  // full barrier counts the whole tile?
  return {static_cast<int>(rank) * (kTileRows / cluster),
          static_cast<std::uint16_t>((1u << cluster) - 1)};
  // EXERCISE 8.3 end
}

/// The arrivals that complete a phase of a stage's empty barrier in a cluster of @p cluster
/// blocks (1: a block alone).
__host__ __device__ constexpr unsigned empty_arrivals(int cluster) {
  // EXERCISE 8.4 begin: a stage of this block may be refilled once nobody still reads what the
  // producer copies into it. Who reads it, and how many arrivals is that?
  return kConsumers * (kWarpgroupThreads / kWarpSize) * cluster;
  // EXERCISE 8.4 end
}

/// The blocks of the cluster (a bit each) on whose empty barrier of a stage a consumer warp of
/// block @p rank arrives once it is done with that stage.
__host__ __device__ constexpr unsigned release_blocks(unsigned rank, int cluster) {
  // EXERCISE 8.4 begin: whose producers wrote into this block's stage, and so must hear that it
  // is free?
  (void)rank;  // every block's warps release the same blocks
  return (1u << cluster) - 1;
  // EXERCISE 8.4 end
}

/// The product C = A * B from the tensor maps @p a_map (A, m x k, boxes of 256 / Cluster rows)
/// and @p b_map (B, k x n, boxes of 32 rows of 32 floats: one slab). Each block walks the units
/// unit_walk() gives it (Persistent), or takes one. A unit with work.splits > 1 writes its sum
/// into @p partial (work.splits slices of m x n) instead of @p c.
/// @p Fragments reads a slab into registers (the bug hunt plants its own).
template <bool Persistent, int Cluster, class Fragments = SlabFragments, int Rows = kTileRows>
__global__ void __launch_bounds__(product_threads(), 1)
    product_kernel(const __grid_constant__ CUtensorMap a_map,
                   const __grid_constant__ CUtensorMap b_map, float* __restrict__ c,
                   float* __restrict__ partial, int m, int n, Work work) {
  extern __shared__ unsigned char shared_bytes[];
  float* stages = reinterpret_cast<float*>(
      (reinterpret_cast<std::uintptr_t>(shared_bytes) + kSwizzleAtomBytes - 1) / kSwizzleAtomBytes *
      kSwizzleAtomBytes);
  static_assert(Cluster == 1 || Rows == kTileRows, "clusters share full tiles of A");
  constexpr int kRing = ring_stages<Rows>();   // the ring's stages
  constexpr int kBytes = stage_bytes<Rows>();  // bytes of one stage
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(stages + kRing * kBytes / 4);
  std::uint64_t* empty = full + kRing;
  const unsigned rank = Cluster > 1 ? cluster_rank() : 0;
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int consumer = warpgroup - 1;  // -1: the producer
  if (threadIdx.x == 0) {
    for (int s = 0; s < kRing; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], empty_arrivals(Cluster));
    }
    barrier_init_fence();
  }
  if constexpr (Cluster > 1)
    cluster_sync();  // the peers' barriers exist before a copy or an arrival reaches them
  else
    __syncthreads();

  const int units = work.tile_rows * (work.tile_cols / Cluster) * work.splits;
  const Walk walk = unit_walk(blockIdx.x, gridDim.x, Cluster, units, Persistent);
  auto a_tile = [&](int s) { return stages + s * (kBytes / 4); };
  auto slab = [&](int s, int i) { return a_tile(s) + Rows * kBatch + i * kSlabFloats; };
  auto batch_range = [&](int split) {
    const int begin = split * work.batches_per_split;
    return make_int2(begin, min(work.batches, begin + work.batches_per_split));
  };

  if (consumer < 0) {  // the producer warpgroup: one thread issues every copy
    set_registers<40>();
    if (threadIdx.x == 0) {
      // EXERCISE 8.2 begin: where does the ring stand when the block starts its next unit? The
      // stages' barriers have gone on counting phases through its units before.
      int it = 0;  // batches copied so far, over all units: the ring's position
      for (int u = walk.first; u < units; u += walk.step) {
        // EXERCISE 8.2 end
        const Unit unit = unit_at<Rows>(u, work, Cluster);
        const int col0 = unit.col0 + static_cast<int>(rank) * kTileCols;
        const int2 range = batch_range(unit.split);
        for (int batch = range.x; batch < range.y; ++batch, ++it) {
          const int s = it % kRing;
          barrier_wait(&empty[s], wait_parity(it, kRing, true));
          barrier_arrive_expect(&full[s], kBytes);
          if constexpr (Cluster > 1) {  // this block's share of A's tile, multicast
            const Share share = multicast_share(rank, Cluster);
            tma_load_multicast(a_tile(s) + share.row * kBatch, &a_map, &full[s], batch * kBatch,
                               unit.row0 + share.row, share.blocks);
          } else {
            tma_load(a_tile(s), &a_map, &full[s], batch * kBatch, unit.row0);
          }
          for (int i = 0; i < kSlabs; ++i)
            tma_load(slab(s, i), &b_map, &full[s], col0 + i * kSlabCols, batch * kBatch);
        }
      }
    }
  } else {
    set_registers<232>();
    const int warp = threadIdx.x % kWarpgroupThreads / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    const int odd = warp % 2;                 // the warp's half of its slab
    const int own = consumer * 2 + warp / 2;  // the warp's slab of the stage
    float acc[tile_accumulators<Rows>()];
    // One k-step's first operand each, loaded a step ahead.
    std::uint32_t fragments[kMmasPerStage][4];
    auto release = [&](int stage) {  // the warp is done with @p stage: it gives it back
      if (lane != 0)
        return;
      if constexpr (Cluster > 1) {
        const unsigned blocks = release_blocks(rank, Cluster);
        for (int b = 0; b < Cluster; ++b) {
          if (blocks >> b & 1u)
            barrier_arrive_cluster(&empty[stage], b);
        }
      } else {
        barrier_arrive(&empty[stage]);
      }
    };
    // EXERCISE 8.2 begin: where does the ring stand when the block starts its next unit?
    int it = 0;  // batches consumed so far, over all units: the ring's position
    for (int u = walk.first; u < units; u += walk.step) {
      // EXERCISE 8.2 end
      const Unit unit = unit_at<Rows>(u, work, Cluster);
      const int col0 = unit.col0 + static_cast<int>(rank) * kTileCols + consumer * kMmaM;
      const int2 range = batch_range(unit.split);
#pragma unroll
      for (float& value : acc)
        value = 0.0f;
      barrier_wait(&full[it % kRing], wait_parity(it, kRing, false));
      Fragments{}(slab(it % kRing, own), odd, 0, fragments[0]);
      for (int batch = range.x; batch < range.y; ++batch, ++it) {
        const int s = it % kRing;
        // Each k-step's wgmma is a group of its own; before it is issued, the next k-step's
        // registers are loaded (those of the wgmma three groups back, which wait_group 2 has
        // seen finish). Two wgmma stay in flight: the tensor cores never wait for a load.
#pragma unroll
        for (int q = 0; q < kMmasPerStage; ++q) {
          if (q + 1 < kMmasPerStage) {
            Fragments{}(slab(s, own), odd, q + 1, fragments[q + 1]);
          } else if (batch + 1 < range.y) {
            const int next = (it + 1) % kRing;
            barrier_wait(&full[next], wait_parity(it + 1, kRing, false));
            Fragments{}(slab(next, own), odd, 0, fragments[0]);
          }
          multiply_step(fragments[q], a_tile(s), q, acc);
          wgmma_wait<2>();
          if (q == 1 && batch > range.x)
            release((it - 1) % kRing);  // the last stage's final wgmma is done
        }
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      release((it - 1) % kRing);
      if (work.splits > 1)
        store_tile(partial + static_cast<std::size_t>(unit.split) * m * n, n, m, n, unit.row0, col0,
                   acc);
      else
        store_tile(c, n, m, n, unit.row0, col0, acc);
    }
  }
  if constexpr (Cluster > 1)
    cluster_sync();  // no block leaves while a peer may still arrive on its barriers
}

/// Split-K's second pass: C = the sum of the @p splits slices of @p partial (each @p count
/// floats), added in the order of the slices.
__global__ void sum_slices_kernel(const float* __restrict__ partial, float* __restrict__ c,
                                  std::size_t count, int splits) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float sum = partial[i];
    for (int s = 1; s < splits; ++s)
      sum += partial[i + static_cast<std::size_t>(s) * count];
    c[i] = sum;
  }
}

}  // namespace ch08
