/// @file kernels.cuh
/// @brief Chapter 7: Hopper. The product (matmul only) in TF32 on `wgmma.mma_async`, its tiles
/// copied into shared memory by the tensor memory accelerator (TMA) and read from there by the
/// tensor cores: no thread loads an operand.
#pragma once

#include <cuda.h>  // CUtensorMap: the tensor map the host describes each operand with
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

/// Chapter 7: TMA and WGMMA.
namespace ch07 {

// The instructions of this file exist only in the sm_90a target (Hopper's own). Elsewhere the
// kernels compile to a trap, and matmul() refuses the GPU before launching them.
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define COURSE_CH07_HOPPER 1  ///< device code for sm_90a: TMA, mbarrier waits and wgmma exist
#else
#define COURSE_CH07_HOPPER 0  ///< host code, or device code for a GPU without them
#endif

inline constexpr int kWarpSize = 32;           ///< threads in a warp
inline constexpr int kWarpgroupThreads = 128;  ///< 4 warps: the threads of one wgmma
inline constexpr int kTileRows = 128;          ///< rows of C per block tile
inline constexpr int kTileCols = 256;          ///< columns of C per block tile
inline constexpr int kMmaM = 64;         ///< rows of C per wgmma: one warpgroup's share of a tile
inline constexpr int kMmaN = kTileCols;  ///< columns of C per wgmma: the whole tile's width
inline constexpr int kMmaK = 8;          ///< k-steps per TF32 wgmma
inline constexpr int kBatch = 32;        ///< k-steps per stage: 32 floats, one 128-byte row
inline constexpr int kConsumers = kTileRows / kMmaM;  ///< warpgroups that multiply: 2
inline constexpr int kAccumulators = kMmaM * kMmaN / kWarpgroupThreads;  ///< per thread: 128
inline constexpr int kStages = 4;          ///< the pipeline's stages (step 1: one)
inline constexpr int kSwizzleBytes = 128;  ///< the swizzle span: one row of a stage
/// Bytes of a stage: the A tile (128 rows of 32 floats), then the B^T tile (256 rows).
inline constexpr int kStageBytes = (kTileRows + kTileCols) * kBatch * sizeof(float);
inline constexpr int kATileFloats = kTileRows * kBatch;  ///< floats of a stage's A tile
/// A 128-byte swizzle repeats every 8 rows (1024 bytes); tiles start on such a boundary.
inline constexpr int kSwizzleAtomBytes = 8 * kSwizzleBytes;

static_assert(kBatch * sizeof(float) == kSwizzleBytes, "a stage's row is one swizzle span");
static_assert(kStageBytes % kSwizzleAtomBytes == 0, "every stage starts on a swizzle atom");

/// Threads of a block: the consumer warpgroups, and the producer's when it has its own.
constexpr int product_threads(bool specialized) {
  return (kConsumers + (specialized ? 1 : 0)) * kWarpgroupThreads;
}

/// Dynamic shared memory of a product kernel with @p stages stages: the stages, the full and
/// empty barriers (8 bytes each), and room to align the first stage to a swizzle atom.
constexpr std::size_t product_shared_bytes(int stages) {
  return static_cast<std::size_t>(stages) * (kStageBytes + 2 * sizeof(std::uint64_t)) +
         kSwizzleAtomBytes;
}

// ---------------------------------------------------------------------------------------------
// mbarrier: a shared-memory counter that completes a phase when its expected arrivals (and, for
// TMA, its expected bytes) have all come in. Waiters name the parity of the phase they wait for.
// ---------------------------------------------------------------------------------------------

/// The shared-memory address of @p p, as PTX's `.shared` instructions take it.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

/// Sets up @p barrier to complete a phase after @p arrivals arrivals.
__device__ __forceinline__ void barrier_init(std::uint64_t* barrier, unsigned arrivals) {
#if COURSE_CH07_HOPPER
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
               "r"(arrivals));
#endif
}

/// Makes the barriers just initialised visible to the copy engine (the "async proxy").
__device__ __forceinline__ void barrier_init_fence() {
#if COURSE_CH07_HOPPER
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// Arrives on @p barrier and tells it to expect @p bytes more from the copy engine.
__device__ __forceinline__ void barrier_arrive_expect(std::uint64_t* barrier, unsigned bytes) {
#if COURSE_CH07_HOPPER
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)),
      "r"(bytes)
      : "memory");
#endif
}

/// Arrives on @p barrier.
__device__ __forceinline__ void barrier_arrive(std::uint64_t* barrier) {
#if COURSE_CH07_HOPPER
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier))
               : "memory");
#endif
}

/// Cycles after which a wait gives up (about 9 s at 2 GHz): a wait for a phase that never
/// completes (a wrong parity, a copy of fewer bytes than expected) stops the kernel with a trap,
/// reported as a CUDA error, instead of hanging the GPU.
inline constexpr long long kWaitLimitCycles = 1LL << 34;

/// Waits until the phase of @p barrier with parity @p parity has completed. Only the parity is
/// compared: a wait returns at once when the barrier's current phase has the other parity (the
/// one before it, of this parity, counts as completed), and waits while it has this one.
__device__ __forceinline__ void barrier_wait(std::uint64_t* barrier, unsigned parity) {
#if COURSE_CH07_HOPPER
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

/// Starts a TMA copy of the box at column @p x, row @p y of the tensor @p map describes into
/// @p destination; it counts its bytes on @p barrier as they land.
__device__ __forceinline__ void tma_load(void* destination, const CUtensorMap* map,
                                         std::uint64_t* barrier, int x, int y) {
#if COURSE_CH07_HOPPER
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(barrier)), "r"(x), "r"(y)
      : "memory");
#endif
}

// ---------------------------------------------------------------------------------------------
// wgmma: a warpgroup multiplies a 64 x 8 tile of A by an 8 x 256 tile of B, both read from shared
// memory through descriptors, into 64 x 256 FP32 accumulators spread over its 128 threads.
// ---------------------------------------------------------------------------------------------

/// Exercise 7.1: the shared-memory matrix descriptor of a K-major tile that starts at @p address
/// (in the shared window, as shared_address() gives it) and whose rows are 128 bytes, swizzled
/// with the 128-byte pattern (PTX ISA, "Matrix Descriptor Format"). Host code can call it too:
/// the CPU tests check it against the layout TMA writes.
__host__ __device__ constexpr std::uint64_t tile_descriptor(unsigned address) {
  // EXERCISE 7.1 begin: what must the tensor cores know to find row r of this tile? Which
  // fields of the 64 bits carry it, in which units, and what does each hold for this layout?
  (void)address;
  return 0;  // replace: the descriptor of the tile
  // EXERCISE 7.1 end
}

/// Keeps the compiler from moving reads or writes of @p acc across an asynchronous wgmma.
__device__ __forceinline__ void fence_accumulators(float (&acc)[kAccumulators]) {
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i)
    asm volatile("" : "+f"(acc[i])::"memory");
}

/// The asm operands of accumulators d[i] .. d[i + 3], read and written ("+f").
#define COURSE_CH07_F4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
/// The asm operands of accumulators d[i] .. d[i + 15].
#define COURSE_CH07_F16(i) \
  COURSE_CH07_F4(i), COURSE_CH07_F4(i + 4), COURSE_CH07_F4(i + 8), COURSE_CH07_F4(i + 12)

/// `wgmma.mma_async.m64n256k8.f32.tf32.tf32`: d += A * B for the tiles @p a and @p b describe.
/// Asynchronous: the result is there after wgmma_commit() and wgmma_wait().
__device__ __forceinline__ void wgmma_tf32(float (&d)[kAccumulators], std::uint64_t a,
                                           std::uint64_t b) {
#if COURSE_CH07_HOPPER
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
      " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
      " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
      " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
      " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110,"
      " %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124,"
      " %125, %126, %127}, %128, %129, p, 1, 1;\n}\n"
      : COURSE_CH07_F16(0), COURSE_CH07_F16(16), COURSE_CH07_F16(32), COURSE_CH07_F16(48),
        COURSE_CH07_F16(64), COURSE_CH07_F16(80), COURSE_CH07_F16(96), COURSE_CH07_F16(112)
      : "l"(a), "l"(b), "r"(1)  // 1: add to d (0 would overwrite it)
      : "memory");
#else
  (void)d;
  (void)a;
  (void)b;
  __trap();  // unreachable: matmul() refuses a GPU or build without sm_90a
#endif
}
#undef COURSE_CH07_F16
#undef COURSE_CH07_F4

/// Orders this warpgroup's earlier accesses to the registers that the wgmmas which follow use (the
/// accumulators) before those wgmmas. It orders no shared-memory access: operands written by
/// threads (the generic proxy) would need `fence.proxy.async` first; here TMA writes them, and
/// the full barrier's wait orders that.
__device__ __forceinline__ void wgmma_fence() {
#if COURSE_CH07_HOPPER
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Closes the group of wgmmas this warpgroup started since the last call.
__device__ __forceinline__ void wgmma_commit() {
#if COURSE_CH07_HOPPER
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most @p Pending of this warpgroup's committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
#if COURSE_CH07_HOPPER
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// Starts the warpgroup's wgmmas over one stage, as one group: @p a_tile holds its 64 rows of A,
/// @p b_tile the 256 rows of B^T, each 32 k-steps long. Each wgmma takes the next 8 k-steps: the
/// same descriptors, their start 32 bytes further along every row (before the swizzle).
__device__ __forceinline__ void multiply_batch(const float* a_tile, const float* b_tile,
                                               float (&acc)[kAccumulators]) {
  fence_accumulators(acc);
  wgmma_fence();
  const std::uint64_t a = tile_descriptor(shared_address(a_tile));
  const std::uint64_t b = tile_descriptor(shared_address(b_tile));
#pragma unroll
  for (int k8 = 0; k8 < kBatch / kMmaK; ++k8) {
    const std::uint64_t step = k8 * kMmaK * sizeof(float) >> 4;  // 32 bytes, in 16-byte units
    wgmma_tf32(acc, a + step, b + step);
  }
  wgmma_commit();
}

/// The solution's batch, as the product kernel takes it: multiply_batch().
struct Multiply {
  /// multiply_batch(@p a_tile, @p b_tile, @p acc).
  __device__ void operator()(const float* a_tile, const float* b_tile,
                             float (&acc)[kAccumulators]) const {
    multiply_batch(a_tile, b_tile, acc);
  }
};

/// Exercise 7.2: stores the warpgroup's accumulators (its @p acc) into C (m x n, not padded), none
/// outside C. @p row0 and @p col0 are the corner of its 64 x 256 tile.
__device__ __forceinline__ void store_tile(float* __restrict__ c, int m, int n, int row0, int col0,
                                           const float (&acc)[kAccumulators]) {
  const int thread = threadIdx.x % kWarpgroupThreads;
  const int warp = thread / kWarpSize;
  const int lane = thread % kWarpSize;
  // EXERCISE 7.2 begin: warp w of the warpgroup holds rows 16w .. 16w + 15; across the columns
  // its registers repeat chapter 6's C fragment every 8 columns, 4 registers per 8. Which row and
  // column does acc[i] belong to, and which of those exist in C?
  (void)c;
  (void)m;
  (void)n;
  (void)row0;
  (void)col0;
  (void)acc;
  (void)warp;
  (void)lane;  // replace: the stores
  // EXERCISE 7.2 end
}

/// Exercise 7.4: the parity that a wait for batch @p batch of a ring of @p stages stages names: a
/// consumer's on the stage's full barrier, the producer's (@p producer) on its empty barrier.
/// Host code can call it too: the CPU tests run a model of the ring with it.
__host__ __device__ constexpr unsigned wait_parity(int batch, int stages, bool producer) {
  // EXERCISE 7.4 begin: which phase of the barrier must have completed before this wait may
  // end, counted from the barrier's first, and what does that make its parity? What does the
  // producer need before the very first use of a stage, when nothing has completed yet?
  (void)batch;
  (void)stages;
  (void)producer;
  return 0;  // replace: the parity (a wrong one can make a wait never end: see the lesson)
  // EXERCISE 7.4 end
}

/// The tile of C (its top-left corner) that block @p block computes, of @p rows x @p cols tiles.
/// With @p grouped, consecutive blocks walk down a group of 8 tile rows before moving right, so
/// the blocks running together share the B^T tiles they read in L2.
__device__ __forceinline__ int2 tile_of_block(int block, int rows, int cols, bool grouped) {
  if (!grouped)
    return make_int2(block / cols * kTileRows, block % cols * kTileCols);
  constexpr int kGroupRows = 8;
  const int group = block / (kGroupRows * cols);
  const int first = group * kGroupRows;
  const int height = min(rows - first, kGroupRows);
  const int within = block % (kGroupRows * cols);
  return make_int2((first + within % height) * kTileRows, within / height * kTileCols);
}

/// Asks the hardware to give this warp's warpgroup @p Registers registers per thread (sm_90a).
template <int Registers>
__device__ __forceinline__ void set_registers() {
#if COURSE_CH07_HOPPER
  if constexpr (Registers > 128)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
  else
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
#endif
}

/// The product C = A * B from the tensor maps @p a_map (A, m x k) and @p bt_map (B^T, n x k),
/// @p batches stages of 32 k-steps. The lesson's steps differ only in the template parameters:
/// @p Stages stages in the ring; @p Specialized: a producer warpgroup of its own (else thread 0
/// also copies); @p Grouped: tiles handed out in groups of rows that share B^T in L2. One block
/// per 128 x 256 tile of C. @p Batch starts a stage's wgmmas (the bug hunt plants its own).
template <int Stages, bool Specialized, bool Grouped, class Batch = Multiply>
__global__ void __launch_bounds__(product_threads(Specialized), 1)
    product_kernel(const __grid_constant__ CUtensorMap a_map,
                   const __grid_constant__ CUtensorMap bt_map, float* __restrict__ c, int m, int n,
                   int batches) {
  extern __shared__ unsigned char shared_bytes[];
  // The swizzle is computed from the address: each stage starts on a 1024-byte boundary.
  float* stages = reinterpret_cast<float*>(
      (reinterpret_cast<std::uintptr_t>(shared_bytes) + kSwizzleAtomBytes - 1) / kSwizzleAtomBytes *
      kSwizzleAtomBytes);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(stages + Stages * kStageBytes / 4);
  std::uint64_t* empty = full + Stages;  // only with a producer of its own
  const int2 corner =
      tile_of_block(blockIdx.x, (m - 1) / kTileRows + 1, (n - 1) / kTileCols + 1, Grouped);
  const int warpgroup = threadIdx.x / kWarpgroupThreads;
  const int consumer = Specialized ? warpgroup - 1 : warpgroup;  // -1: the producer
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], kConsumers * kWarpgroupThreads);
    }
    barrier_init_fence();
  }
  __syncthreads();

  // One stage: its tiles, and the copy of batch @p batch into it (stage batch % Stages).
  auto a_tile = [&](int s) { return stages + s * (kStageBytes / 4); };
  auto b_tile = [&](int s) { return a_tile(s) + kATileFloats; };
  auto copy = [&](int batch) {
    const int s = batch % Stages;
    // EXERCISE 7.3 begin: the producer's side of full[s]. A wait on it must not end before both
    // tiles of the batch are in the stage. What must the barrier be told, and when, so that its
    // phase cannot complete early? Which box of each matrix goes where (the tile's corner)?
    (void)s;  // replace: the copy of the batch into stage s, counted on full[s]
    // EXERCISE 7.3 end
  };

  if (Specialized && consumer < 0) {  // the producer warpgroup: one thread issues every copy
    set_registers<40>();
    if (threadIdx.x == 0) {
      for (int batch = 0; batch < batches; ++batch) {
        // EXERCISE 7.5 begin: the producer's side of empty[s]. It may refill a stage only once
        // both consumers are done with what the stage held. Which phase says so, and what of
        // the first use of each stage, before anything has been given back?
        // replace: wait until the stage is free, then copy the batch into it
        // EXERCISE 7.5 end
      }
    }
    return;
  }
  if constexpr (Specialized)
    set_registers<232>();
  float acc[kAccumulators];
#pragma unroll
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = 0.0f;
  if (!Specialized && threadIdx.x == 0) {
    for (int batch = 0; batch < Stages - 1 && batch < batches; ++batch)
      copy(batch);
  }
  for (int batch = 0; batch < batches; ++batch) {
    const int s = batch % Stages;
    if (!Specialized && threadIdx.x == 0 && batch + Stages - 1 < batches)
      copy(batch + Stages - 1);  // into the stage that batch - 1 used: free since the barrier
    // EXERCISE 7.3 begin: the consumers' side of full[s]: no wgmma may read the stage before
    // this batch has landed in it.
    // replace: wait until the batch is in its stage
    // EXERCISE 7.3 end
    Batch{}(a_tile(s) + consumer * kMmaM * kBatch, b_tile(s), acc);
    if constexpr (Specialized) {
      // EXERCISE 7.5 begin: the consumers' side of empty[s]: tell the producer which stage this
      // thread no longer needs. The wgmmas run on after they are issued: when is a stage no
      // longer read, and which stage is that here? Keep the tensor cores busy meanwhile.
      // replace: release a stage
      // EXERCISE 7.5 end
    } else {
      wgmma_wait<0>();
      __syncthreads();  // every warpgroup is done with the stage before it is refilled
    }
    fence_accumulators(acc);
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  store_tile(c, m, n, corner.x + consumer * kMmaM, corner.y, acc);
}

}  // namespace ch07
