/// @file
/// @brief Chapter 2, host side: the launchers, what they refuse, the compiled tile widths, mask
/// sides and tap counts, the exercise table, and the chapter's description (describe()), which its
/// executable and the ladder run. One file for both editions: include it after a kernels.cuh of
/// chapter 2 (yours or the solution's).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "bug_hunt.cuh"
#include "course/cli.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/semiring.cuh"

namespace ch02 {

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"2.1", "matmul", "one tile entry, the identity outside the matrix"},
    {"2.1", "minplus", "one tile entry, the identity outside the matrix"},
    {"2.2", "matmul", "this thread's share of the step's tiles, then a barrier"},
    {"2.2", "minplus", "this thread's share of the step's tiles, then a barrier"},
    {"2.3", "matmul", "the reduction over the tiles in shared memory, then a barrier"},
    {"2.3", "minplus", "the reduction over the tiles in shared memory, then a barrier"},
    {"2.4", "conv2d", "stage the input tile with its halo, and the mask, in shared memory"},
    {"2.5", "conv2d", "barrier, then the sum over the mask from shared memory"},
    {"2.6", "conv1d", "stage the segment with its halo, and the taps, in shared memory"},
    {"2.7", "conv1d", "barrier, then the sum over the taps from shared memory"},
};

/// Tile widths of the matrix product compiled into this chapter (`--tile`), the default first.
/// A block of T x T threads computes a T x T tile of C.
inline constexpr int kTiles[] = {32, 16};
/// Square mask sides compiled into conv2d (`--mask`), the default first.
inline constexpr int kMaskSides[] = {13, 1, 3, 5, 7, 9, 11};
/// Tap counts compiled into conv1d (`--taps`), the default first: 2^j - 1 up to the course's
/// default of 127, so the halo (taps - 1) grows from nothing to half a block.
inline constexpr int kTapCounts[] = {127, 1, 3, 7, 15, 31, 63};

/// The values of @p list separated by ", ", for error messages.
template <std::size_t Count>
std::string list_text(const int (&list)[Count]) {
  return course::join(std::vector<int>(std::begin(list), std::end(list)), ", ");
}

/// Calls @p launch with std::integral_constant<int, V> for the entry V of @p List (from @p Index
/// on) that equals @p value, so that the launch can instantiate the kernel compiled for V.
/// Returns false, launching nothing, when no entry equals @p value.
template <const auto& List, std::size_t Index = 0, typename Launch>
bool launch_compiled(int value, Launch launch) {
  if constexpr (Index < std::size(List)) {
    if (value == List[Index]) {
      launch(std::integral_constant<int, List[Index]>{});
      return true;
    }
    return launch_compiled<List, Index + 1>(value, launch);
  } else {
    return false;
  }
}

/// The signature of product_kernel (and of the bug hunt's product) for one semiring and tile.
using ProductKernel = void (*)(const float* A, const float* B, float* C, int m, int n, int k);

/// Launches @p kernel, compiled for tiles of @p tile x @p tile, with one block per tile of C.
inline void launch_tiles(ProductKernel kernel, int tile, const float* A, const float* B, float* C,
                         int m, int n, int k, cudaStream_t stream) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  // The loop over k steps past k by up to a step's depth: keep that in an int.
  const int most = INT_MAX - product_depth(tile);
  course::require(k <= most,
                  "k = " + std::to_string(k) + " is too large: at most " + std::to_string(most));
  const dim3 block(tile, tile);
  const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
  kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
}

/// Launches product_kernel for @p Semiring with the tile width @p tile, one of kTiles.
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile) {
  const bool launched = launch_compiled<kTiles>(tile, [&](auto compiled) {
    constexpr int kTile = decltype(compiled)::value;
    launch_tiles(product_kernel<Semiring, kTile>, kTile, A, B, C, m, n, k, stream);
  });
  course::require(launched, "tile width " + std::to_string(tile) +
                                " is not compiled in chapter 2 (it has " + list_text(kTiles) +
                                "); chapter 3 chooses the tile width at run time");
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one T x T tile of C per block
/// through shared memory. @p tile selects T from kTiles (the default: the first, 32).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one T x T tile of C per block through shared
/// memory. @p tile selects T from kTiles (the default: the first, 32).
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out, one
/// 32 x 32 tile of outputs per block through shared memory. The mask must be square with a side
/// in kMaskSides.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  course::require(mk >= 1 && ml >= 1 && mk % 2 == 1 && ml % 2 == 1, "the mask sides must be odd");
  const std::string refusal = "a " + std::to_string(mk) + "x" + std::to_string(ml) +
                              " mask is not compiled in chapter 2 (it has square sides " +
                              list_text(kMaskSides) +
                              "); chapter 3 takes any odd mask size at run time";
  course::require(mk == ml, refusal);
  const bool launched = launch_compiled<kMaskSides>(mk, [&](auto compiled) {
    const auto kernel = conv2d_kernel<decltype(compiled)::value>;
    const dim3 block(kConvBlock, kConvBlock);
    const dim3 grid = course::grid_2d(w, h, block);
    kernel<<<grid, block, 0, stream>>>(img, h, w, mask, out);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  });
  course::require(launched, refusal);
}

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y, kConv1dThreads outputs per block through shared memory. m must be one of
/// kTapCounts; any n from 1 with n + m - 1 at most INT_MAX.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  const long long outputs = static_cast<long long>(n) + m - 1;
  course::require(outputs <= INT_MAX, "n + m - 1 = " + std::to_string(outputs) +
                                          " outputs: at most " + std::to_string(INT_MAX));
  const bool launched = launch_compiled<kTapCounts>(m, [&](auto compiled) {
    const auto kernel = conv1d_kernel<decltype(compiled)::value>;
    const dim3 block(kConv1dThreads);
    const dim3 grid = course::grid_1d(outputs, kConv1dThreads);
    kernel<<<grid, block, 0, stream>>>(a, n, b, y);
    COURSE_CHECK_LAUNCH(kernel, grid, block, 0, stream);
  });
  course::require(launched, "a " + std::to_string(m) + "-tap mask is not compiled in chapter 2 " +
                                "(it has " + list_text(kTapCounts) +
                                "); chapter 3 takes any tap count at run time");
}

/// Chapter 2 as its executable and the ladder run it: every problem, the products at the tile
/// width that `--tile` chooses, the masks and tap counts compiled in, and the planted bug of
/// bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(2, "the static shared tile");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    const int tile = chosen.number("--tile");
    return course::ProblemSet{course::with_choice(matmul, tile), course::with_choice(minplus, tile),
                              conv2d, conv1d};
  };
  chapter.flags.options = {course::number_option(
      "--tile", "tile width", {std::begin(kTiles), std::end(kTiles)},
      {course::Problem::matmul, course::Problem::minplus}, "product tile width")};
  chapter.flags.mask_sides.assign(std::begin(kMaskSides), std::end(kMaskSides));
  chapter.flags.tap_counts.assign(std::begin(kTapCounts), std::end(kTapCounts));
  chapter.flags.other_sizes = "chapter 3 takes any odd mask and any tap count at run time";
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: a tiled product with a defect, at the default tile width.
  const auto bug_product = [](auto kernel) {
    return [kernel](const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream) {
      launch_tiles(kernel, kTiles[0], A, B, C, m, n, k, stream);
    };
  };
  // The chapter's instruments on the student's kernels: bounds, barriers, bank conflicts, rate.
  const std::vector<std::string> all = {"matmul", "minplus", "conv2d", "conv1d"};
  const std::vector<std::string> products = {"matmul", "minplus"};
  const std::string every = "--problem matmul,minplus,conv2d,conv1d";
  // k = 133: three trips of the product's tiles along k, so a missing barrier between trips shows.
  const std::string awkward = " -m 67 -n 45 -k 133 --height 37 --width 29 --mask 5 --taps 63";
  const std::string barriers =
      "a thread reads shared memory that another may still write, or a barrier not every thread "
      "reaches: the barriers of exercises 2.2, 2.3, 2.5 and 2.7 (scripts/hint.sh 2.2)";
  chapter.checks = {
      course::sanitizer_check("memcheck", all, every + awkward,
                              "a read or write outside an array: the identity outside the matrix "
                              "(2.1) and the halo (2.4, 2.6) (scripts/hint.sh 2.1)"),
      course::sanitizer_check("memcheck", products, "--problem matmul,minplus --tile 16" + awkward,
                              "the 16 x 16 tiles read outside an array: exercise 2.1 must "
                              "follow the tile width (scripts/hint.sh 2.1)",
                              "memcheck-tile16"),
      course::sanitizer_check("racecheck", all, every + awkward, barriers),
      course::sanitizer_check("synccheck", all, every + awkward, barriers),
      course::ncu_check("bank-conflicts", course::kBankConflictMetric, 1.5, products,
                        "--problem matmul -m 1024 -n 1024 -k 1024",
                        "more bank conflicts than the solution: the lesson's section on banks, "
                        "and how exercise 2.3 reads the B tile (scripts/hint.sh 2.3)"),
      course::rate_check(all, every,
                         "slower than the solution: how many times each tile entry is loaded "
                         "from global memory (exercise 2.2) and the bank conflicts"),
  };
  const std::string product_1024 =
      "--problem matmul -m 1024 -n 1024 -k 1024 --warmup 0 --reps 1 --no-compare";
  chapter.predictions = {
      {"2.1",
       {course::words(product_1024), course::words("--problem matmul")},
       {"ncu", "speedup"},
       {"smsp__inst_executed_op_global_ld.sum"},
       "product_kernel"},
      {"2.2",
       {course::words(product_1024)},
       {"ncu"},
       {course::kBankConflictMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
       "product_kernel"},
  };
  chapter.bugs = {{"barrier",
                   "racecheck",
                   "the tiled product's result can depend on how the warps are scheduled",
                   {bug_product(bug::product_kernel<course::PlusTimes, kTiles[0]>),
                    bug_product(bug::product_kernel<course::MinPlus, kTiles[0]>),
                    {},
                    {}}}};
  return chapter;
}

}  // namespace ch02
