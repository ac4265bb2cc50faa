/// @file launch.cuh
/// @brief Chapter 4, host side: the launchers of the register-blocked kernels, their validation,
/// the product's steps (`--variant`), the exercise table, and the chapter's description
/// (describe()), which its executable and the ladder run. Include it after a chapter-4 kernels.cuh
/// (yours or the solution's): it uses that file's kernels and constants.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <iterator>
#include <vector>
#include <string>

#include "bug_hunt.cuh"
#include "course/cuda_check.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/prepass.cuh"
#include "course/problems.hpp"
#include "course/semiring.cuh"

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
    {"4.10", "conv1d", "a strip of 4 outputs per thread, one float4 of inputs per 4 taps"},
};

/// The steps in which the lesson builds the product kernel. The launchers take one as their
/// trailing parameter; `--variant` chooses it.
enum class Step {
  plain,     ///< step 1: scalar loads, A and B read where they are (plain_product_kernel)
  float4,    ///< step 2: padded operands, float4 loads everywhere (float4_product_kernel)
  prefetch,  ///< step 3: step 2 with the next batch prefetched into registers (product_kernel)
};

/// A step and its `--variant` name.
using StepName = course::NamedStep<Step>;

/// The steps that `--variant` offers, the default first: the chapter's solution, then the lesson's
/// steps back to the first.
inline constexpr StepName kSteps[] = {
    {Step::prefetch, "prefetch"}, {Step::float4, "float4"}, {Step::plain, "plain"}};

// ---------------------------------------------------------------------------------------------
// Matrix product: launchers
// ---------------------------------------------------------------------------------------------

/// The signature of the product kernels that read padded operands (steps 2 and 3, the bug hunt):
/// (at, bp, C, m, n, padded_m, pitch of bp, padded_k).
using PaddedProductKernel = void (*)(const float*, const float*, float*, int, int, int, int, int);

/// The register-blocked product's grid: one thread per 8 x 8 register block, ceil(n/8) x
/// ceil(m/8) threads in blocks of 8 x 8.
inline dim3 product_grid(int m, int n) {
  return course::grid_2d(course::ceil_div(n, kRegisterBlock), course::ceil_div(m, kRegisterBlock),
                         dim3(kThreadsPerSide, kThreadsPerSide));
}

/// Checks a product's arguments: sizes from 1, no null pointer.
inline void require_product_arguments(const float* A, const float* B, const float* C, int m, int n,
                                      int k) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
}

/// Runs @p kernel, a product over @p Semiring that reads padded operands, on @p s: first copies A,
/// transposed and padded, into scratch memory, and B padded unless it already has the padded
/// shape (course/prepass.cuh). The scratch is allocated on @p s and freed on it after the product,
/// so concurrent calls on different streams each have their own.
template <class Semiring>
void launch_padded(PaddedProductKernel kernel, const float* A, const float* B, float* C, int m,
                   int n, int k, cudaStream_t s) {
  require_product_arguments(A, B, C, m, n, k);
  const dim3 block(kThreadsPerSide, kThreadsPerSide);
  const dim3 grid = product_grid(m, n);
  // Every copy planned before anything is allocated: a refused size leaks nothing. A transposed:
  // the 64 rows a block needs at one k-step become 64 contiguous floats.
  const course::PaddedSizes padded = course::padded_sizes<kTile, kTile, kBatch>(m, n, k);
  const course::PadPlan a_plan =
      course::plan_pad(m, k, padded.m, padded.k, course::PadLayout::transposed);
  const course::PadPlan b_plan = course::plan_pad(k, n, padded.k, padded.n);
  const course::PaddedOperand at = course::pad_operand<Semiring>(A, a_plan, s);
  const course::PaddedOperand bp = course::pad_operand<Semiring>(B, b_plan, s);
  kernel<<<grid, block, 0, s>>>(at.data(), bp.data(), C, m, n, at.pitch(), bp.pitch(), padded.k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
}  // the scratch is freed here, in stream order: after the product

/// The product C = A (x) B over @p Semiring with the kernel of @p step; all launches go to @p s.
/// Step 1 reads A and B as they are; steps 2 and 3 read padded copies (launch_padded()).
template <class Semiring>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                    Step step) {
  if (step == Step::float4)
    return launch_padded<Semiring>(float4_product_kernel<Semiring>, A, B, C, m, n, k, s);
  if (step == Step::prefetch)
    return launch_padded<Semiring>(product_kernel<Semiring>, A, B, C, m, n, k, s);
  require_product_arguments(A, B, C, m, n, k);
  const dim3 block(kThreadsPerSide, kThreadsPerSide);
  const dim3 grid = product_grid(m, n);
  const auto kernel = plain_product_kernel<Semiring>;
  kernel<<<grid, block, 0, s>>>(A, B, C, m, n, k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
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
// conv2d: launchers
// ---------------------------------------------------------------------------------------------

/// Launches conv2d_kernel<K, L> on @p s (K = L = 0: the generic path), opting in to more than
/// 48 KB of dynamic shared memory when the tile needs it.
template <int K, int L>
void launch_conv2d(const float* img, int h, int w, const float* mask, int mk, int ml, float* out,
                   cudaStream_t s) {
  const auto kernel = conv2d_kernel<K, L>;
  const std::size_t bytes = conv_tile(mk, ml).shared_bytes(mk);
  course::prepare_dynamic_shared(
      kernel, bytes, "conv2d with a " + std::to_string(mk) + " x " + std::to_string(ml) + " mask");
  const dim3 block(kStripThreadsX, kStripThreadsY);
  // The index space is one thread per strip: ceil(w / kStrip) x h threads.
  const dim3 grid = course::grid_2d(course::ceil_div(w, kStrip), h, block);
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
  course::require(mk <= course::kMaxMaskSide && ml <= course::kMaxMaskSide,
                  "conv2d: mask sides must be at most " + std::to_string(course::kMaxMaskSide) +
                      ", got " + std::to_string(mk) + " x " + std::to_string(ml));
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

// ---------------------------------------------------------------------------------------------
// conv1d: launcher
// ---------------------------------------------------------------------------------------------

/// Full convolution of the n-sample signal @p a with the m-tap mask @p b into the n + m - 1
/// samples of @p y: each thread computes kConv1dStrip neighbouring outputs from registers, each
/// block kConv1dRun, with the taps and the block's segment of the signal in the dynamic buffer.
/// Any m from 1 to kMaxTaps (more taps than samples included); n + m - 1 at most INT_MAX.
/// @param a device pointer, n samples. @param n samples of a. @param b device pointer, m taps.
/// @param m taps of b. @param y device pointer, n + m - 1 samples. @param s stream.
inline void conv1d(const float* a, int n, const float* b, int m, float* y, cudaStream_t s) {
  course::require_positive(n, "n");
  course::require_positive(m, "m");
  course::require(m <= kMaxTaps, "a mask of " + std::to_string(m) +
                                     " taps is not possible: chapter 4 keeps every tap in shared "
                                     "memory and takes 1 to " +
                                     std::to_string(kMaxTaps));
  const long long length = static_cast<long long>(n) + m - 1;
  course::require(length <= INT_MAX, "n + m - 1 = " + std::to_string(length) +
                                         " outputs is too many: at most " +
                                         std::to_string(INT_MAX));
  course::require(a != nullptr && b != nullptr && y != nullptr,
                  "conv1d: pointers must not be null");
  const std::size_t bytes = conv1d_shared_bytes(m);  // at most 36,864: no opt-in needed
  static_assert(conv1d_shared_bytes(kMaxTaps) <= course::kDefaultSharedLimit,
                "conv1d fits in 48 KB");
  const dim3 block(kConv1dThreads);
  const dim3 grid = course::grid_1d(length, kConv1dRun);
  conv1d_kernel<<<grid, block, bytes, s>>>(a, n, b, m, y);
  COURSE_CHECK_LAUNCH(conv1d_kernel, grid, block, bytes, s);
}

/// Chapter 4 as its executable and the ladder run it: every problem, the products through the
/// step that `--variant` names (the solution by default), and the planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(4, "register blocking");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    const Step step = course::chosen_step(kSteps, chosen.variant());
    return course::ProblemSet{course::with_choice(matmul, step), course::with_choice(minplus, step),
                              conv2d, conv1d};
  };
  chapter.flags.options = {
      course::step_option(kSteps, {course::Problem::matmul, course::Problem::minplus},
                          "the lesson's step of the product, the solution first")};
  chapter.flags.max_taps = kMaxTaps;
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: step 2 with each thread's float4s side by side.
  course::ProblemSet side_by_side;
  side_by_side.matmul = [](const float* A, const float* B, float* C, int m, int n, int k,
                           cudaStream_t s) {
    using Semiring = course::PlusTimes;
    launch_padded<Semiring>(float4_product_kernel<Semiring, bug::SideBySide>, A, B, C, m, n, k, s);
  };
  side_by_side.minplus = [](const float* A, const float* B, float* C, int m, int n, int k,
                            cudaStream_t s) {
    using Semiring = course::MinPlus;
    launch_padded<Semiring>(float4_product_kernel<Semiring, bug::SideBySide>, A, B, C, m, n, k, s);
  };
  // The chapter's instruments on the student's kernels: bounds, registers that stay registers,
  // 128-bit shared loads, loads issued a trip early, bank conflicts, rate.
  const std::vector<std::string> all = {"matmul", "minplus", "conv2d", "conv1d"};
  const std::vector<std::string> products = {"matmul", "minplus"};
  const std::string every = "--problem matmul,minplus,conv2d,conv1d";
  const std::string awkward = " -m 67 -n 45 -k 33 --height 37 --width 29 --mask 5x3 --taps 37";
  const std::string bounds =
      "a read or write outside an array: the edges of the panels (4.1, 4.5), of C (4.3), of the "
      "image (4.7) and of the signal (4.10) (scripts/hint.sh 4.3)";
  chapter.checks = {
      course::sanitizer_check("memcheck", all, every + awkward, bounds),
      course::sanitizer_check("memcheck", products,
                              "--problem matmul,minplus --variant float4" + awkward, bounds,
                              "memcheck-float4"),
      course::sanitizer_check("memcheck", products,
                              "--problem matmul,minplus --variant plain" + awkward, bounds,
                              "memcheck-plain"),
      course::sanitizer_check("memcheck", {"conv2d"},
                              "--problem conv2d --height 37 --width 29 --mask 5", bounds,
                              "memcheck-compiled-mask"),
      course::spills_check(all, every + awkward, "^ch04::",
                           "a kernel uses local memory: an array indexed by a value the "
                           "compiler cannot unroll, or too many registers (the lesson's section "
                           "on register blocking; scripts/hint.sh 4.2)"),
      course::sass_check("LDS.128", "ch04::(float4_)?product_kernel", products,
                         "no 128-bit shared loads in the float4 and prefetch steps: exercise 4.4 "
                         "reads x and y as float4 (scripts/hint.sh 4.4)"),
      course::sass_order_check("prefetch", "ch04::product_kernel<", products,
                               "the prefetch step: each batch is loaded from global memory a "
                               "trip before it is stored to shared memory (exercise 4.6; "
                               "scripts/hint.sh 4.6)"),
      course::ncu_check("bank-conflicts", course::kBankConflictMetric, 1.5, products,
                        "--problem matmul -m 1024 -n 1024 -k 1024",
                        "more bank conflicts than the solution: where each thread's float4s lie "
                        "(exercise 4.5) and how it stores its results (4.3)"),
      course::rate_check(all, every,
                         "slower than the solution: the float4 loads (4.4), the prefetch (4.6) "
                         "and the register strips of the convolutions (4.8 to 4.10)"),
  };
  chapter.predictions = {
      {"4.1",
       {course::words("--problem matmul -m 1024 -n 1024 -k 1024 --variant float4 --warmup 0 "
                      "--reps 1 --no-compare")},
       {"ncu"},
       {"smsp__inst_executed_op_shared_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", course::kBankConflictMetric},
       "float4_product"},
  };
  chapter.bugs = {{"side-by-side", "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                   "step 2 with another layout of each thread's results: right, but slower",
                   side_by_side}};
  return chapter;
}

}  // namespace ch04
