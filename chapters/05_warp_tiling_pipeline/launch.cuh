/// @file launch.cuh
/// @brief Chapter 5, host side: the exercise table, the steps, the product's launchers, and the
/// chapter's description (describe()), which its executable and the ladder run.
///
/// Included after a chapter-5 kernels.cuh (yours or the solution's), which defines the kernels
/// these launchers start; it includes no kernels file itself, so a later chapter can run chapter
/// 5's solution through it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <iterator>
#include <vector>
#include <string>

#include "bug_hunt.cuh"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/launch.cuh"
#include "course/prepass.cuh"
#include "course/semiring.cuh"

namespace ch05 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"5.1", "matmul", "both steps: where this thread's 8 x 8 block lies in its warp's tile"},
    {"5.1", "minplus", "both steps: where this thread's 8 x 8 block lies in its warp's tile"},
    {"5.2", "matmul", "both steps: one k-step's float4 reads of a stage and the outer product"},
    {"5.2", "minplus", "both steps: one k-step's float4 reads of a stage and the outer product"},
    {"5.3", "matmul", "pipeline step: this thread's cp.async copies of one batch"},
    {"5.3", "minplus", "pipeline step: this thread's cp.async copies of one batch"},
    {"5.4", "matmul", "pipeline step: two stages, the next batch copied while this one is used"},
    {"5.4", "minplus", "pipeline step: two stages, the next batch copied while this one is used"},
};

/// The steps in which the lesson builds the product kernel. The launchers take one as their
/// trailing parameter; `--variant` chooses it.
enum class Step {
  warptile,  ///< step 1: warp tiles, one stage filled through registers (warptile_product_kernel)
  pipeline,  ///< step 2: two stages filled by cp.async while the other is multiplied
             ///< (product_kernel)
};

/// A step and its `--variant` name.
using StepName = course::NamedStep<Step>;

/// The steps that `--variant` offers, the default first: the chapter's solution, then step 1.
inline constexpr StepName kSteps[] = {{Step::pipeline, "pipeline"}, {Step::warptile, "warptile"}};

/// The signature that every product kernel of this chapter shares (the bug hunt's too).
using ProductKernel = void (*)(const float*, const float*, float*, int, int, int, int, int);

/// The product kernel of @p step over @p Semiring.
template <class Semiring>
ProductKernel step_kernel(Step step) {
  return step == Step::warptile ? warptile_product_kernel<Semiring> : product_kernel<Semiring>;
}

/// The product C = A (x) B over @p Semiring with @p kernel; all launches go to @p s. The pre-pass
/// (course/prepass.cuh) first copies A, transposed and padded to whole tiles, into scratch memory,
/// and B too unless it already has the padded shape (n a multiple of 128, k of 16, B 16-byte
/// aligned); the scratch is allocated on @p s and freed on it after the product.
template <class Semiring>
void launch_product(ProductKernel kernel, const float* A, const float* B, float* C, int m, int n,
                    int k, cudaStream_t s) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  // Every grid first: a size the grids cannot cover is refused before anything is allocated.
  const course::PaddedSizes padded = course::padded_sizes<kTile, kTile, kBatch>(m, n, k);
  const course::PadPlan a_plan =
      course::plan_pad(m, k, padded.m, padded.k, course::PadLayout::transposed);
  const course::PadPlan b_plan = course::plan_pad(k, n, padded.k, padded.n);
  const dim3 block(kProductThreads);
  // One block per 128 x 128 tile of C: ceil(n/128) x ceil(m/128) blocks.
  const dim3 grid =
      course::grid_2d(course::ceil_div(n, kTile), course::ceil_div(m, kTile), dim3(1, 1));

  // A transposed: the 128 rows a block needs at one k-step become 128 contiguous floats.
  const course::PaddedOperand at = course::pad_operand<Semiring>(A, a_plan, s);
  const course::PaddedOperand bp = course::pad_operand<Semiring>(B, b_plan, s);
  kernel<<<grid, block, 0, s>>>(at.data(), bp.data(), C, m, n, padded.m, bp.pitch(), padded.k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, 0, s);
}

/// C = A * B (plus-times), row-major FP32: A is m x k, B is k x n, C is m x n. Any m, n, k >= 1.
/// Each block of 8 warps computes a 128 x 128 tile of C, each warp a 32 x 64 part of it, each
/// thread an 8 x 8 block of results in registers; by default (step 2) fed by a double-buffered
/// cp.async pipeline.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
/// @param step the lesson's step whose kernel runs; the default is the solution.
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                   Step step = kSteps[0].step) {
  launch_product<course::PlusTimes>(step_kernel<course::PlusTimes>(step), A, B, C, m, n, k, s);
}

/// C[i][j] = min over kk of (A[i][kk] + B[kk][j]) (min-plus), row-major FP32; +inf means "no
/// edge" and propagates. Same kernel and data movement as matmul(); exact in any order of k.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches.
/// @param step the lesson's step whose kernel runs; the default is the solution.
inline void minplus(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                    Step step = kSteps[0].step) {
  launch_product<course::MinPlus>(step_kernel<course::MinPlus>(step), A, B, C, m, n, k, s);
}

/// Chapter 5 as its executable and the ladder run it: the products through the step that
/// `--variant` names (the solution by default), why the convolutions stay in chapter 4, and the
/// planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(5, "warp tiles and a cp.async pipeline");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    const Step step = course::chosen_step(kSteps, chosen.variant());
    return course::ProblemSet{
        course::with_choice(matmul, step), course::with_choice(minplus, step), {}, {}};
  };
  chapter.flags.options = {
      course::step_option(kSteps, {course::Problem::matmul, course::Problem::minplus},
                          "the lesson's step of the product, the solution first")};
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "a block loads its tile once and has no loop along k to pipeline (chapter 4 runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv1d)] =
      "a block loads its segment once and has no loop to pipeline (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The chapter's instruments on the student's kernels: bounds, barriers, no spills, cp.async in
  // the machine code, rate.
  const std::vector<std::string> products = {"matmul", "minplus"};
  const std::string both = "--problem matmul,minplus -m 200 -n 136 -k 72";
  const std::string bounds =
      "a read or write outside an array: where the thread's block lies (5.1) and which float4s "
      "it copies (5.3) (scripts/hint.sh 5.1)";
  const std::string stages =
      "a warp reads a stage that is still being written, or writes one still being read: the "
      "waits and barriers of exercise 5.4 (scripts/hint.sh 5.4)";
  chapter.checks = {
      course::sanitizer_check("memcheck", products, both, bounds),
      course::sanitizer_check("memcheck", products, both + " --variant warptile", bounds,
                              "memcheck-warptile"),
      course::sanitizer_check("racecheck", products, both, stages),
      course::sanitizer_check("racecheck", products, both + " --variant warptile", stages,
                              "racecheck-warptile"),
      course::sanitizer_check("synccheck", products, both, stages),
      course::spills_check(products, both, "^ch05::",
                           "a kernel uses local memory: the 8 x 8 results must stay in registers "
                           "(exercise 5.2; scripts/hint.sh 5.2)"),
      course::sass_check("LDGSTS", "ch05::product_kernel", products,
                         "no cp.async (LDGSTS) in the pipeline step: exercise 5.3 copies global "
                         "to shared memory without registers (scripts/hint.sh 5.3)"),
      course::rate_check(products, "--problem matmul,minplus",
                         "slower than the solution: the two stages of exercise 5.4 must overlap "
                         "the copies with the arithmetic"),
  };
  chapter.predictions = {
      {"5.1",
       {course::words("--problem matmul --variant warptile --warmup 0 --reps 1 --no-compare")},
       {"ncu"},
       {course::kBankConflictMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"},
       "product_kernel"},
      {"5.2",
       {course::words("--problem matmul --variant warptile --no-compare"),
        course::words("--problem matmul --variant pipeline --no-compare")},
       {"time", "rate"},
       {},
       ""},
  };
  // The bug hunt: step 1 fed by cp.async, with a defect, through the same pre-pass and launch.
  chapter.bugs = {{"stage-reuse",
                   "racecheck",
                   "step 1 fed by cp.async: its result can depend on how the warps are timed",
                   {[](auto... arguments) {
                      launch_product<course::PlusTimes>(bug::stage_reuse_kernel<course::PlusTimes>,
                                                        arguments...);
                    },
                    [](auto... arguments) {
                      launch_product<course::MinPlus>(bug::stage_reuse_kernel<course::MinPlus>,
                                                      arguments...);
                    },
                    {},
                    {}}}};
  return chapter;
}

}  // namespace ch05
