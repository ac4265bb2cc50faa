/// @file launch.cuh
/// @brief Chapter 7, host side: the exercise table, the tensor maps, the launch checks, the
/// product's launcher, and the chapter's description (describe()), which its executable and the
/// ladder run.
///
/// Included after a chapter-7 kernels.cuh (yours or the solution's), which defines the kernels
/// these launchers start; it includes no kernels file itself.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <iterator>
#include <vector>
#include <stdexcept>
#include <string>

#include "bug_hunt.cuh"
#include "course/cuda_check.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/hopper.hpp"
#include "course/launch.cuh"
#include "course/prepass.cuh"
#include "course/problems.hpp"
#include "course/semiring.cuh"

namespace ch07 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"7.1", "matmul", "the shared-memory descriptor of a swizzled K-major tile"},
    {"7.2", "matmul", "the write-back of a warpgroup's accumulators into C"},
    {"7.3", "matmul", "the full barriers: announce and copy a batch, wait until it has landed"},
    {"7.4", "matmul", "the barrier phase a consumer or the producer waits for"},
    {"7.5", "matmul", "the empty barriers: the producer waits for a free stage, consumers release"},
};

/// The steps in which the lesson builds the product kernel. matmul() takes one as its trailing
/// parameter; `--variant` chooses it.
enum class Step {
  tma,          ///< step 1: TMA + wgmma, one stage, thread 0 copies
  pipeline,     ///< step 2: four stages, thread 0 copies three batches ahead
  specialized,  ///< step 3: a producer warpgroup and two consumer warpgroups
  grouped,      ///< step 4: step 3 with the tiles handed out in groups of rows (the solution)
};

/// A step and its `--variant` name.
using StepName = course::NamedStep<Step>;

/// The steps that `--variant` offers, the default first: the chapter's solution, then the lesson's
/// steps back to the first.
inline constexpr StepName kSteps[] = {{Step::grouped, "grouped"},
                                      {Step::specialized, "specialized"},
                                      {Step::pipeline, "pipeline"},
                                      {Step::tma, "tma"}};

/// How this chapter's matmul multiplies: TF32 inputs, FP32 sums. Its checks use the TF32
/// tolerance of course/check.hpp.
constexpr course::Arithmetic matmul_arithmetic() {
  return course::Arithmetic::tf32;
}

/// The tensor map of a row-major @p rows x @p cols matrix at @p data whose rows are @p pitch
/// floats apart, copied in boxes of @p box_rows rows of kBatch floats (128 bytes) with the
/// 128-byte swizzle that the wgmma descriptors name (course/hopper.hpp rounds to TF32 as it
/// copies).
inline CUtensorMap tile_map(const float* data, int rows, int cols, int pitch, int box_rows) {
  return course::tf32_tile_map(data, rows, cols, pitch, box_rows, kBatch,
                               CU_TENSOR_MAP_SWIZZLE_128B);
}

/// Refuses a GPU other than a Hopper, or a build without sm_90a code for @p kernel, in one line.
inline void require_hopper(const void* kernel) {
  course::require_hopper(kernel, "TMA and wgmma");
}

/// The product with product_kernel<Stages, Specialized, Grouped, Batch>: the pre-pass writes B^T
/// (n x k), its rows padded to a multiple of 4 floats (a tensor map's row pitch is a multiple of
/// 16 bytes); A is read as it is where its rows already are (else padded the same way). All
/// launches go to @p s; the scratch is freed on it after the product.
template <int Stages, bool Specialized, bool Grouped, class Batch = Multiply>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  const auto kernel = product_kernel<Stages, Specialized, Grouped, Batch>;
  const std::size_t shared_bytes = product_shared_bytes(Stages);
  require_hopper(reinterpret_cast<const void*>(kernel));
  course::prepare_dynamic_shared(kernel, shared_bytes, "matmul: the kernel");
  const int padded_k = course::round_up_checked(k, 4, "k");
  // The last tile's rows and columns, counted in int, must not pass INT_MAX.
  course::round_up_checked(m, kTileRows, "m");
  course::round_up_checked(n, kTileCols, "n");
  const long long tiles = course::ceil_div(m, kTileRows) * course::ceil_div(n, kTileCols);
  course::require(tiles <= 0x7fffffffLL, "matmul: too many 128 x 256 tiles for one grid");
  const course::PadPlan a_plan = course::plan_pad(m, k, m, padded_k);
  const course::PadPlan b_plan = course::plan_pad(k, n, padded_k, n, course::PadLayout::transposed);
  const course::PaddedOperand ap = course::pad_operand<course::PlusTimes>(A, a_plan, s);
  const course::PaddedOperand btp = course::pad_operand<course::PlusTimes>(B, b_plan, s);
  const CUtensorMap a_map = tile_map(ap.data(), m, padded_k, ap.pitch(), kTileRows);
  const CUtensorMap bt_map = tile_map(btp.data(), n, padded_k, btp.pitch(), kTileCols);
  const dim3 grid(static_cast<unsigned>(tiles));
  const dim3 block(product_threads(Specialized));
  const int batches = (padded_k - 1) / kBatch + 1;
  kernel<<<grid, block, shared_bytes, s>>>(a_map, bt_map, C, m, n, batches);
  try {
    COURSE_CHECK_LAUNCH(kernel, grid, block, shared_bytes, s);
  } catch (const course::CudaError& error) {
    if (error.code() != cudaErrorLaunchFailure)
      throw;
    throw course::CudaError(std::string(error.what()) +
                                " (a barrier wait that never completed ends in a trap: does each "
                                "copy announce its bytes (exercise 7.3), each wait name the right "
                                "parity (7.4), each consumer release its stages (7.5)?)",
                            error.code());
  }
}  // the scratch is freed here, in stream order: after the product

/// C = A * B on Hopper's tensor cores: TF32 products, FP32 sums. Row-major: A is m x k, B is
/// k x n, C is m x n. Any m, n, k >= 1.
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches. @param step the lesson's step (default: the solution).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                   Step step = kSteps[0].step) {
  switch (step) {
    case Step::tma:
      launch_product<1, false, false>(A, B, C, m, n, k, s);
      break;
    case Step::pipeline:
      launch_product<kStages, false, false>(A, B, C, m, n, k, s);
      break;
    case Step::specialized:
      launch_product<kStages, true, false>(A, B, C, m, n, k, s);
      break;
    case Step::grouped:
      launch_product<kStages, true, true>(A, B, C, m, n, k, s);
      break;
  }
}

/// Chapter 7 as its executable and the ladder run it: matmul through the step that `--variant`
/// names (the solution by default), checked with the TF32 tolerance; why the other problems stay
/// in earlier chapters; and the planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(7, "TMA and wgmma");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    course::ProblemSet set;
    set.matmul = course::with_choice(matmul, course::chosen_step(kSteps, chosen.variant()));
    set.arithmetic = matmul_arithmetic();
    return set;
  };
  chapter.flags.options = {course::step_option(kSteps, {course::Problem::matmul},
                                               "the lesson's step, the solution first")};
  chapter.gpu = {"TF32 wgmma and TMA, compute capability 9.0 (Hopper) and a build for sm_90a",
                 "9.0", true};
  chapter.gpu_refusal = [] {
    try {
      require_hopper(reinterpret_cast<const void*>(product_kernel<kStages, true, true>));
      course::require_shared_fits(product_shared_bytes(kStages), course::optin_shared_limit(),
                                  "matmul: the kernel");
    } catch (const std::exception& refusal) {
      return std::string(refusal.what());
    }
    return std::string();
  };
  course::leave_to_earlier_chapters(chapter, 5, 4);  // min-plus in chapter 5, convolutions in 4
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The bug hunt: the solution with the batch of wgmmas of bug_hunt.cuh.
  course::ProblemSet stepped;
  stepped.matmul = launch_product<kStages, true, true, SteppedMultiply>;
  stepped.arithmetic = matmul_arithmetic();
  // The chapter's instruments on the student's kernels: bounds, barriers, no spills, rate.
  const std::vector<std::string> products = {"matmul"};
  const std::string awkward = "--problem matmul -m 200 -n 300 -k 100";
  const std::string barriers =
      "a stage read before its copy landed or overwritten while still read: the barrier phases "
      "of exercise 7.4 (scripts/hint.sh 7.4)";
  chapter.checks = {
      course::sanitizer_check("memcheck", products, awkward,
                              "a read or write outside an array: the write-back of exercise 7.3 "
                              "(scripts/hint.sh 7.3)"),
      course::sanitizer_check("racecheck", products, awkward, barriers),
      course::sanitizer_check("synccheck", products, awkward, barriers),
      course::spills_check(products, awkward, "^ch07::",
                           "a kernel uses local memory: the accumulators of exercise 7.2 must "
                           "stay in registers (scripts/hint.sh 7.2)"),
      course::rate_check(products, "--problem matmul",
                         "slower than the solution: the producer's ring of stages and the "
                         "consumers' waits (exercise 7.4)"),
  };
  chapter.predictions = {
      {"7.1", {course::words("--variant tma")}, {"rate", "speedup"}, {}, ""},
      {"7.2",
       {course::words("--variant pipeline -m 8192 -n 8192 -k 8192 --no-compare"),
        course::words("--variant specialized -m 8192 -n 8192 -k 8192 --no-compare")},
       {"time", "rate"},
       {},
       ""},
  };
  chapter.bugs = {{"k-step", "check", "the solution with a batch of wgmmas of its own", stepped}};
  return chapter;
}

}  // namespace ch07
