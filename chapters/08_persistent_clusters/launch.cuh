/// @file launch.cuh
/// @brief Chapter 8, host side: the exercise table, the tensor maps, the work's shape (tiles,
/// split-K), the product's launcher, and the chapter's description (describe()), which its
/// executable and the ladder run.
///
/// Included after a chapter-8 kernels.cuh (yours or the solution's), which defines the kernels
/// these launchers start; it includes no kernels file itself.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "bug_hunt.cuh"
#include "course/cuda_check.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/hopper.hpp"
#include "course/launch.cuh"
#include "course/prepass.cuh"
#include "course/problems.hpp"
#include "course/semiring.cuh"

namespace ch08 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"8.1", "matmul", "B^T's registers read from B's slab: which float is which row and k-step"},
    {"8.2", "matmul", "the persistent block's walk over the units, and the ring across them"},
    {"8.3", "matmul", "the multicast: which share of A a block copies, and to whom"},
    {"8.4", "matmul", "the empty barriers of a cluster: who releases a stage, and where"},
};

/// The steps in which the lesson builds the product kernel. matmul() takes one as its trailing
/// parameter; `--variant` chooses it.
enum class Step {
  registers,   ///< step 1: chapter 7's kernel without the pre-pass: C^T, B^T from registers
  persistent,  ///< step 2: one block per SM walking the tiles; split-K for few tiles
  cluster,     ///< step 3: clusters of two blocks sharing A's tile by multicast (the solution)
};

/// A step and its `--variant` name.
using StepName = course::NamedStep<Step>;

/// The steps that `--variant` offers, the default first.
inline constexpr StepName kSteps[] = {
    {Step::cluster, "cluster"}, {Step::persistent, "persistent"}, {Step::registers, "registers"}};

/// How this chapter's matmul multiplies: TF32 inputs, FP32 sums.
constexpr course::Arithmetic matmul_arithmetic() {
  return course::Arithmetic::tf32;
}

/// Refuses a GPU other than a Hopper, or a build without sm_90a code for @p kernel, in one line.
inline void require_hopper(const void* kernel) {
  course::require_hopper(kernel, "TMA multicast and wgmma");
}

/// Batches per k slice below which split-K does not cut: 8 batches, 256 k-steps.
inline constexpr int kMinSplitBatches = 8;
/// The most floats the slices of split-K may take (1 GiB).
inline constexpr long long kMaxPartialFloats = 1LL << 28;

/// The work of an m x n x k product (@p batches batches of k) for blocks of @p cluster tiles of
/// @p rows rows side by side, on @p blocks blocks that run at once. With @p split, a product
/// whose tiles leave more than half of those blocks idle cuts k into slices (split-K) to fill
/// them.
inline Work plan_work(int m, int n, int batches, int cluster, int blocks, bool split, int rows) {
  Work work;
  work.tile_rows = static_cast<int>(course::ceil_div(m, rows));
  const long long cols = course::ceil_div(n, kTileCols);
  work.tile_cols = static_cast<int>((cols + cluster - 1) / cluster * cluster);
  work.batches = batches;
  const long long tiles = static_cast<long long>(work.tile_rows) * work.tile_cols;
  int splits = 1;
  if (split && 2 * tiles <= blocks) {
    splits = static_cast<int>(std::min<long long>(blocks / tiles, batches / kMinSplitBatches));
    while (splits > 1 && static_cast<long long>(splits) * m * n > kMaxPartialFloats)
      --splits;
    splits = std::max(splits, 1);
  }
  work.batches_per_split = static_cast<int>(course::ceil_div(batches, splits));
  work.splits = static_cast<int>(course::ceil_div(batches, work.batches_per_split));
  return work;
}

/// The product with product_kernel<Persistent, Cluster>: A and B read where they are (padded
/// first only where a row's pitch is not a multiple of 16 bytes, as a tensor map needs), the
/// work planned, the persistent grid sized to the blocks (or clusters) that run at once, and
/// split-K's slices summed by a second kernel. All launches go to @p s. A persistent product of
/// at most 64 rows runs in tiles of 64 rows (@p Rows), without clusters (a tile of A that small
/// is not worth sharing), and so does one of at most 128 columns (one tile across).
template <bool Persistent, int Cluster, class Fragments = SlabFragments, int Rows = kTileRows>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  if constexpr (Persistent && Rows == kTileRows) {
    if (m <= kShortTileRows)
      return launch_product<true, 1, Fragments, kShortTileRows>(A, B, C, m, n, k, s);
  }
  if constexpr (Persistent && Cluster > 1) {
    if (n <= kTileCols)  // one tile across: the cluster's second block would only idle
      return launch_product<true, 1, Fragments, Rows>(A, B, C, m, n, k, s);
  }
  const auto kernel = product_kernel<Persistent, Cluster, Fragments, Rows>;
  const std::size_t shared_bytes = product_shared_bytes<Rows>();
  require_hopper(reinterpret_cast<const void*>(kernel));
  course::prepare_dynamic_shared(kernel, shared_bytes, "matmul: the kernel");
  const int padded_k = course::round_up_checked(k, 4, "k");
  const int padded_n = course::round_up_checked(n, 4, "n");
  // The last tile's rows and columns, counted in int, must not pass INT_MAX.
  course::round_up_checked(m, Rows, "m");
  course::round_up_checked(n, kTileCols * Cluster, "n");
  const int batches = (padded_k - 1) / kBatch + 1;

  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attributes[1]{};
  config.blockDim = dim3(product_threads());
  config.dynamicSmemBytes = shared_bytes;
  config.stream = s;
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = Cluster;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = 1;
  config.attrs = attributes;
  config.numAttrs = 1;
  int blocks = 0;  // blocks that run at once: one per SM, or the clusters that fit, times two
  if (Persistent) {
    int device = 0;
    COURSE_CUDA_CHECK(cudaGetDevice(&device));
    COURSE_CUDA_CHECK(cudaDeviceGetAttribute(&blocks, cudaDevAttrMultiProcessorCount, device));
    if (Cluster > 1) {
      config.gridDim = dim3(static_cast<unsigned>(blocks / Cluster * Cluster));
      int clusters = 0;
      COURSE_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
      course::require(clusters >= 1, "matmul: no cluster of the kernel fits on this GPU");
      blocks = clusters * Cluster;
    }
  }
  const Work work = plan_work(m, n, batches, Cluster, blocks, Persistent, Rows);
  const long long units =
      static_cast<long long>(work.tile_rows) * (work.tile_cols / Cluster) * work.splits;
  course::require(units * Cluster <= 0x7fffffffLL, "matmul: too many tiles for one grid");
  const long long grid_blocks =
      Persistent ? std::min<long long>(units * Cluster, blocks) : units * Cluster;
  config.gridDim = dim3(static_cast<unsigned>(grid_blocks));

  const course::PadPlan a_plan = course::plan_pad(m, k, m, padded_k);
  const course::PadPlan b_plan = course::plan_pad(k, n, k, padded_n);
  const course::PaddedOperand ap = course::pad_operand<course::PlusTimes>(A, a_plan, s);
  const course::PaddedOperand bp = course::pad_operand<course::PlusTimes>(B, b_plan, s);
  const CUtensorMap a_map = course::tf32_tile_map(
      ap.data(), m, padded_k, ap.pitch(), Rows / Cluster, kBatch, CU_TENSOR_MAP_SWIZZLE_128B);
  const CUtensorMap b_map = course::tf32_tile_map(bp.data(), k, padded_n, bp.pitch(), kBatch,
                                                  kSlabCols, CU_TENSOR_MAP_SWIZZLE_128B);
  float* partial = nullptr;
  if (work.splits > 1) {
    const std::size_t bytes =
        static_cast<std::size_t>(work.splits) * m * static_cast<std::size_t>(n) * sizeof(float);
    COURSE_CUDA_CHECK(cudaMallocAsync(&partial, bytes, s));
  }
  const cudaError_t launched =
      cudaLaunchKernelEx(&config, kernel, a_map, b_map, C, partial, m, n, work);
  try {
    COURSE_CUDA_CHECK(launched);
    COURSE_CHECK_LAUNCH(kernel, config.gridDim, config.blockDim, shared_bytes, s);
    if (work.splits > 1) {
      const std::size_t count = static_cast<std::size_t>(m) * n;
      const dim3 sum_block(256);
      const dim3 sum_grid(static_cast<unsigned>(
          std::min<std::size_t>((count + sum_block.x - 1) / sum_block.x, 4096)));
      sum_slices_kernel<<<sum_grid, sum_block, 0, s>>>(partial, C, count, work.splits);
      COURSE_CHECK_LAUNCH(sum_slices_kernel, sum_grid, sum_block, 0, s);
    }
  } catch (const course::CudaError& error) {
    if (partial != nullptr)
      static_cast<void>(cudaFreeAsync(partial, s));
    if (error.code() != cudaErrorLaunchFailure)
      throw;
    throw course::CudaError(std::string(error.what()) +
                                " (a barrier wait that never completed ends in a trap: does each "
                                "unit's batches go through the ring in the same order for the "
                                "producer and the consumers (exercise 8.2), each stage get every "
                                "release it waits for (8.4)?)",
                            error.code());
  }
  if (partial != nullptr)
    COURSE_CUDA_CHECK(cudaFreeAsync(partial, s));
}

/// C = A * B on Hopper's tensor cores: TF32 products, FP32 sums. Row-major: A is m x k, B is
/// k x n, C is m x n. Any m, n, k >= 1.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches. @param step the lesson's step (default: the solution).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                   Step step = kSteps[0].step) {
  switch (step) {
    case Step::registers:
      launch_product<false, 1>(A, B, C, m, n, k, s);
      break;
    case Step::persistent:
      launch_product<true, 1>(A, B, C, m, n, k, s);
      break;
    case Step::cluster:
      launch_product<true, 2>(A, B, C, m, n, k, s);
      break;
  }
}

/// Chapter 8 as its executable and the ladder run it: matmul through the step that `--variant`
/// names (the solution by default), checked with the TF32 tolerance; why the other problems stay
/// in earlier chapters; and the planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(8, "persistent tiles and clusters");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    course::ProblemSet set;
    set.matmul = course::with_choice(matmul, course::chosen_step(kSteps, chosen.variant()));
    set.arithmetic = matmul_arithmetic();
    return set;
  };
  chapter.flags.options = {course::step_option(kSteps, {course::Problem::matmul},
                                               "the lesson's step, the solution first")};
  chapter.gpu = {
      "TF32 wgmma, TMA multicast and clusters, compute capability 9.0 (Hopper) and a "
      "build for sm_90a",
      "9.0", true};
  chapter.gpu_refusal = [] {
    try {
      require_hopper(reinterpret_cast<const void*>(product_kernel<true, 2>));
      course::require_shared_fits(product_shared_bytes(), course::optin_shared_limit(),
                                  "matmul: the kernel");
    } catch (const std::exception& refusal) {
      return std::string(refusal.what());
    }
    return std::string();
  };
  course::leave_to_earlier_chapters(chapter, 5, 4);  // min-plus in chapter 5, convolutions in 4
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: the solution with the slab reading of bug_hunt.cuh.
  course::ProblemSet tabled;
  tabled.matmul = launch_product<true, 2, RowMajorFragments>;
  tabled.arithmetic = matmul_arithmetic();
  const std::vector<std::string> products = {"matmul"};
  const std::string awkward = "--problem matmul -m 300 -n 520 -k 100";
  const std::string barriers =
      "a stage read before its copy landed or overwritten while still read: the releases of "
      "exercise 8.4 (scripts/hint.sh 8.4)";
  chapter.checks = {
      course::sanitizer_check("memcheck", products, awkward,
                              "a read or write outside an array: the write-back's columns of "
                              "exercise 8.1 (scripts/hint.sh 8.1)"),
      course::sanitizer_check("racecheck", products, awkward, barriers),
      course::sanitizer_check("synccheck", products, awkward, barriers),
      course::spills_check(products, awkward, "^ch08::",
                           "a kernel uses local memory: the registers of exercise 8.1 must stay "
                           "in registers (scripts/hint.sh 8.1)"),
      course::rate_check(products, "--problem matmul",
                         "slower than the solution: the walk of exercise 8.2 and the multicast "
                         "of exercise 8.3"),
  };
  chapter.predictions = {
      {"8.1",
       {course::words("--variant registers -m 4096 -n 4096 -k 4096")},
       {"rate", "speedup"},
       {},
       ""},
      {"8.2",
       {course::words("--variant registers -m 128 -n 128 -k 16384 --no-compare"),
        course::words("--variant persistent -m 128 -n 128 -k 16384 --no-compare")},
       {"time", "rate"},
       {},
       ""},
  };
  chapter.bugs = {{"slab-reading", "check", "the solution with a slab reading of its own", tabled}};
  return chapter;
}

}  // namespace ch08
