/// @file
/// @brief Chapter 3, host side: the launchers, what they refuse, the 48 KB opt-in, the launch
/// choices, the exercise table, and the chapter's description (describe()), which its executable
/// and the ladder run.
///
/// One file for both editions: include a chapter-3 kernels.cuh (yours or the solution's) first,
/// then this file. Each launcher checks the sizes, computes the bytes of the kernel's buffer with
/// the kernels' own `..._shared_bytes()` functions, opts in above 48 KB, launches with the bytes as
/// the third launch parameter, and checks the launch. Namespace ch03::dispatch at the end sends the
/// sizes that have compiled kernels to them (`--variant dispatch`).
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "bug_hunt.cuh"
#include "course/cuda_check.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/problems.hpp"
#include "course/semiring.cuh"

namespace ch03 {

/// The exercises of this chapter, for the hint printed when a check fails.
inline constexpr course::Exercise kExercises[] = {
    {"3.1", "matmul", "carve the next array, at an offset its type allows"},
    {"3.1", "minplus", "carve the next array, at an offset its type allows"},
    {"3.1", "conv2d", "carve the next array, at an offset its type allows"},
    {"3.1", "conv1d", "carve the next array, at an offset its type allows"},
    {"3.2", "conv2d", "stage the input tile with its run-time halo, and the mask"},
    {"3.3", "conv1d", "the segment, then the taps as float4"},
    {"3.4", "conv1d", "stage the segment with its run-time halo, and the taps"},
};

/// Tile widths of the matrix product offered by `--tile`, the default first. The kernel takes any
/// width up to kMaxTile; these are the ones worth comparing.
inline constexpr int kTiles[] = {32, 16, 8};
/// Block widths of conv2d offered by `--block`, the default first. The kernel takes any width up
/// to kMaxBlock.
inline constexpr int kBlocks[] = {32, 16, 8};

static_assert(kTiles[0] <= kMaxTile && kBlocks[0] <= kMaxBlock, "defaults within the limits");
static_assert(conv1d_shared_bytes(kMaxTaps) <= course::kDefaultSharedLimit,
              "conv1d needs no opt-in");

/// The signature of every product kernel of this chapter.
using ProductKernel = void (*)(const float* A, const float* B, float* C, int m, int n, int k);

/// Launches @p kernel, a product kernel for @p Semiring (product_kernel unless another is given),
/// with the tile width @p tile: 1 to kMaxTile (one thread per tile element, at most 1024 per
/// block).
template <typename Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile,
                    ProductKernel kernel = product_kernel<Semiring>) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(tile >= 1 && tile <= kMaxTile, "tile width " + std::to_string(tile) +
                                                     " is not possible: chapter 3 takes 1 to " +
                                                     std::to_string(kMaxTile));
  // The loop over k steps past k by up to a step's depth: keep that in an int.
  const int most = INT_MAX - product_depth(tile);
  course::require(k <= most,
                  "k = " + std::to_string(k) + " is too large: at most " + std::to_string(most));
  const dim3 block(tile, tile);
  const dim3 grid = course::grid_2d(n, m, block);  // x walks columns
  const std::size_t bytes = product_shared_bytes(tile);
  course::prepare_dynamic_shared(kernel, bytes,
                                 "the product with tile width " + std::to_string(tile));
  kernel<<<grid, block, bytes, stream>>>(A, B, C, m, n, k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, stream);
}

/// C = A * B (A is m x k, B is k x n, row-major device pointers), one T x T tile of C per block
/// through the dynamic buffer. @p tile chooses T at run time (the default: kTiles[0], 32).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile);
}

/// C[i][j] = min over p of A[i][p] + B[p][j], one T x T tile of C per block through the dynamic
/// buffer. @p tile chooses T at run time (the default: kTiles[0], 32).
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile);
}

/// The signature of every conv2d kernel of this chapter.
using Conv2dKernel = void (*)(const float* img, int h, int w, const float* mask, int mk, int ml,
                              float* out);

/// Launches @p kernel, a conv2d kernel, with @p block_width squared threads per block: odd mask
/// sides from 1 to course::kMaxMaskSide, block widths from 1 to kMaxBlock.
inline void launch_conv2d(Conv2dKernel kernel, const float* img, int h, int w, const float* mask,
                          int mk, int ml, float* out, cudaStream_t stream, int block_width) {
  course::require_positive(h, "h");
  course::require_positive(w, "w");
  const auto valid = [](int side) {
    return side >= 1 && side <= course::kMaxMaskSide && side % 2 == 1;
  };
  course::require(valid(mk) && valid(ml),
                  "a " + std::to_string(mk) + "x" + std::to_string(ml) +
                      " mask is not possible: the sides must be odd, from 1 to " +
                      std::to_string(course::kMaxMaskSide));
  course::require(block_width >= 1 && block_width <= kMaxBlock,
                  "block width " + std::to_string(block_width) +
                      " is not possible: chapter 3 takes 1 to " + std::to_string(kMaxBlock));
  const std::size_t bytes = conv2d_shared_bytes(block_width, mk, ml);
  course::prepare_dynamic_shared(kernel, bytes,
                                 "conv2d with a " + std::to_string(mk) + "x" + std::to_string(ml) +
                                     " mask and " + std::to_string(block_width) + "x" +
                                     std::to_string(block_width) + " blocks");
  const dim3 block(block_width, block_width);
  const dim3 grid = course::grid_2d(w, h, block);
  kernel<<<grid, block, bytes, stream>>>(img, h, w, mask, mk, ml, out);
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, stream);
}

/// Convolves the h x w image @p img with the odd mk x ml @p mask (zero padding) into @p out, one
/// B x B tile of outputs per block through the dynamic buffer. Any odd mask up to
/// course::kMaxMaskSide per side; @p block_width chooses B at run time (the default: kBlocks[0],
/// 32).
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, int block_width = kBlocks[0]) {
  launch_conv2d(conv2d_kernel, img, h, w, mask, mk, ml, out, stream, block_width);
}

/// The signature of every conv1d kernel of this chapter (the bug hunt's too).
using Conv1dKernel = void (*)(const float* a, int n, const float* b, int m, float* y);

/// Launches @p kernel, a conv1d kernel, with one thread per output: n from 1, m from 1 to
/// kMaxTaps, n + m - 1 at most INT_MAX.
inline void launch_conv1d(Conv1dKernel kernel, const float* a, int n, const float* b, int m,
                          float* y, cudaStream_t stream) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  course::require(m <= kMaxTaps, "a mask of " + std::to_string(m) +
                                     " taps is not possible: chapter 3 keeps every tap in shared "
                                     "memory and takes 1 to " +
                                     std::to_string(kMaxTaps));
  const long long length = static_cast<long long>(n) + m - 1;
  course::require(length <= INT_MAX, "n + m - 1 = " + std::to_string(length) +
                                         " outputs is too many: at most " +
                                         std::to_string(INT_MAX));
  const std::size_t bytes = conv1d_shared_bytes(m);
  course::prepare_dynamic_shared(kernel, bytes, "conv1d with a " + std::to_string(m) + "-tap mask");
  const dim3 block(kConv1dThreads);
  const dim3 grid = course::grid_1d(length, kConv1dThreads);
  kernel<<<grid, block, bytes, stream>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(kernel, grid, block, bytes, stream);
}

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y, one output per thread, the taps and the block's segment of the signal in the
/// dynamic buffer, whose size follows m. Any m from 1 to kMaxTaps, more taps than samples
/// included.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t stream) {
  launch_conv1d(conv1d_kernel, a, n, b, m, y, stream);
}

/// Going further (`--variant dispatch`): the sizes that have kernels compiled for them
/// (kernels.cuh, namespace ch03::dispatch) go to those, every other size to the kernels of the
/// main part, so these launchers take exactly what those take.
namespace dispatch {

/// Square mask sides that conv2d has compiled instances for, with kBlock x kBlock blocks: those
/// of chapter 2, the default first.
inline constexpr int kMaskSides[] = {13, 1, 3, 5, 7, 9, 11};
/// The conv2d block width of the compiled instances: the default.
inline constexpr int kBlock = kBlocks[0];

/// The product kernel compiled for the tile width @p tile (every width of ch03::kTiles has one),
/// or ch03::product_kernel for any other width.
template <typename Semiring>
ProductKernel compiled_product_kernel(int tile) {
  switch (tile) {
    case 32:
      return product_kernel<Semiring, 32>;
    case 16:
      return product_kernel<Semiring, 16>;
    case 8:
      return product_kernel<Semiring, 8>;
    default:
      return ch03::product_kernel<Semiring>;
  }
}

/// ch03::matmul through the compiled instances: the same results, and for the widths of
/// ch03::kTiles the speed of kernels compiled for them. @p tile as for ch03::matmul.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k,
                   cudaStream_t stream, int tile = kTiles[0]) {
  ch03::launch_product<course::PlusTimes>(A, B, C, m, n, k, stream, tile,
                                          compiled_product_kernel<course::PlusTimes>(tile));
}

/// ch03::minplus through the compiled instances. @p tile as for ch03::minplus.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k,
                    cudaStream_t stream, int tile = kTiles[0]) {
  ch03::launch_product<course::MinPlus>(A, B, C, m, n, k, stream, tile,
                                        compiled_product_kernel<course::MinPlus>(tile));
}

/// The conv2d kernel compiled for kBlock x kBlock blocks and a @p side x @p side mask, or nullptr
/// when there is none: kMaskSides[Index] or a later entry of kMaskSides.
template <std::size_t Index = 0>
Conv2dKernel compiled_conv2d_kernel(int side) {
  if constexpr (Index < sizeof(kMaskSides) / sizeof(kMaskSides[0])) {
    return side == kMaskSides[Index] ? conv2d_kernel<kBlock, kMaskSides[Index]>
                                     : compiled_conv2d_kernel<Index + 1>(side);
  } else {
    (void)side;
    return nullptr;
  }
}

/// ch03::conv2d through the compiled instances: a square mask of kMaskSides with kBlock x kBlock
/// blocks runs the instance compiled for it, every other mask and block width ch03::conv2d_kernel.
/// @p block_width as for ch03::conv2d.
inline void conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t stream, int block_width = kBlocks[0]) {
  Conv2dKernel kernel = block_width == kBlock && mk == ml ? compiled_conv2d_kernel(mk) : nullptr;
  if (kernel == nullptr)
    kernel = ch03::conv2d_kernel;
  launch_conv2d(kernel, img, h, w, mask, mk, ml, out, stream, block_width);
}

}  // namespace dispatch

/// Chapter 3 as its executable and the ladder run it: every problem at the tile and block widths
/// that `--tile` and `--block` choose, through the kernels of the lesson's main part or, with
/// `--variant dispatch`, through namespace dispatch (the chapter at its best); and the planted bug
/// of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(3, "the dynamic shared buffer");
  using course::Problem;
  // conv1d has one kernel for both variants.
  chapter.flags.options = {
      course::number_option("--tile", "tile width", {std::begin(kTiles), std::end(kTiles)},
                            {Problem::matmul, Problem::minplus}, "product tile width"),
      course::number_option("--block", "block width", {std::begin(kBlocks), std::end(kBlocks)},
                            {Problem::conv2d}, "conv2d block width"),
      course::variant_option({"plain", "dispatch"},
                             {Problem::matmul, Problem::minplus, Problem::conv2d},
                             "run-time sizes (plain) or compiled kernels where there are some")};
  chapter.best_variant = "dispatch";
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    const int tile = chosen.number("--tile");
    const int block = chosen.number("--block");
    if (chosen.variant() == "dispatch") {
      return course::ProblemSet{course::with_choice(dispatch::matmul, tile),
                                course::with_choice(dispatch::minplus, tile),
                                course::with_choice(dispatch::conv2d, block), conv1d};
    }
    return course::ProblemSet{course::with_choice(matmul, tile), course::with_choice(minplus, tile),
                              course::with_choice(conv2d, block), conv1d};
  };
  chapter.flags.max_taps = kMaxTaps;
  chapter.flags.signal_demo = true;
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: a conv1d kernel with a defect, through the chapter's launcher.
  const course::Conv1dLauncher defective_conv1d = [](const float* a, int n, const float* b, int m,
                                                     float* y, cudaStream_t stream) {
    launch_conv1d(bug::conv1d_kernel, a, n, b, m, y, stream);
  };
  // The chapter's instruments on the student's kernels: bounds, barriers and carving, rate.
  const std::vector<std::string> all = {"matmul", "minplus", "conv2d", "conv1d"};
  const std::string every = "--problem matmul,minplus,conv2d,conv1d";
  // k = 133: several trips of the product's tiles along k, so a missing barrier between trips
  // shows.
  const std::string awkward = " -m 67 -n 45 -k 133 --height 37 --width 29 --mask 5x3 --taps 37";
  const std::string carving =
      "two arrays of the buffer overlap, or a barrier is missing: the carving of exercises 3.1, "
      "3.3 and 3.4 and the size of 3.2 (scripts/hint.sh 3.1)";
  chapter.checks = {
      course::sanitizer_check("memcheck", all, every + awkward,
                              "a read or write outside an array or past the buffer: the sizes "
                              "and offsets of exercises 3.1 to 3.4 (scripts/hint.sh 3.2)"),
      course::sanitizer_check("memcheck", {"matmul", "minplus", "conv2d"},
                              "--problem matmul,minplus,conv2d --tile 8 --block 8" + awkward,
                              "8-wide tiles or blocks go past the buffer: the offsets must follow "
                              "the run-time width (scripts/hint.sh 3.1)",
                              "memcheck-width8"),
      course::sanitizer_check("memcheck", {"conv2d"},
                              "--problem conv2d --height 70 --width 70 --mask 63",
                              "the largest mask goes past the buffer: the halo of exercise 3.3 "
                              "(scripts/hint.sh 3.3)",
                              "memcheck-mask63"),
      course::sanitizer_check("racecheck", all, every + awkward, carving),
      course::sanitizer_check("synccheck", all, every + awkward, carving),
      course::rate_check(all, every + " --variant dispatch",
                         "slower than the solution: the lesson's section on what the run-time "
                         "sizes cost"),
  };
  chapter.predictions = {
      {"3.1",
       {course::words("--problem matmul --tile 32"), course::words("--problem matmul --tile 8"),
        course::words("--problem conv1d --taps 4096")},
       {"kernel"},
       {},
       ""},
  };
  chapter.bugs = {{"conv1d-buffer",
                   "racecheck",
                   "conv1d computes wrong outputs",
                   {{}, {}, {}, defective_conv1d}}};
  return chapter;
}

}  // namespace ch03
