/// @file launch.cuh
/// @brief Chapter 6, host side: the exercise table, the launch checks, the product's launcher, and
/// the chapter's description (describe()), which its executable and the ladder run.
///
/// Included after a chapter-6 kernels.cuh (yours or the solution's), which defines the kernels
/// these launchers start; it includes no kernels file itself, so a later chapter can run chapter
/// 6's solution through it.
#pragma once

#include <cuda_runtime.h>

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

namespace ch06 {

/// The exercises of this chapter and the problems whose results depend on them.
inline constexpr course::Exercise kExercises[] = {
    {"6.1", "matmul", "fragment layout of C: the row and column of a lane's accumulator element"},
    {"6.2", "matmul", "step 1: the element of A or B that a lane's fragment register holds"},
    {"6.3", "matmul", "every step: the warp's mma.sync over its 4 x 8 instruction tiles"},
    {"6.4", "matmul", "every step: the write-back of the accumulators into C"},
    {"6.5", "matmul", "steps 2, 3 and 4: the shared row each lane points ldmatrix at"},
    {"6.6", "matmul",
     "steps 3 and 4: the pipeline of three stages (copies in flight, waits, stages)"},
    {"6.7", "matmul", "step 4: where the swizzled layout keeps a 16-byte chunk of a stage's row"},
};

/// The steps in which the lesson builds the product kernel. matmul() takes one as its trailing
/// parameter; `--variant` chooses it.
enum class Step {
  mma,       ///< step 1: mma.sync fed by one 32-bit shared load per fragment element
  ldmatrix,  ///< step 2: the fragments read with ldmatrix
  pipeline,  ///< step 3: step 2 with three stages, two batches in flight
  swizzle,   ///< step 4: step 3 with rows of 32 floats, their chunks swizzled (the solution)
};

/// A step and its `--variant` name.
using StepName = course::NamedStep<Step>;

/// The steps that `--variant` offers, the default first: the chapter's solution, then the lesson's
/// steps back to the first.
inline constexpr StepName kSteps[] = {{Step::swizzle, "swizzle"},
                                      {Step::pipeline, "pipeline"},
                                      {Step::ldmatrix, "ldmatrix"},
                                      {Step::mma, "mma"}};

/// How this chapter's matmul multiplies: TF32 inputs, FP32 sums. Its checks use the TF32
/// tolerance of course/check.hpp.
constexpr course::Arithmetic matmul_arithmetic() {
  return course::Arithmetic::tf32;
}

/// The oldest GPUs with TF32 tensor cores, cp.async and this ldmatrix: compute capability 8.0.
inline constexpr int kMinComputeCapabilityMajor = 8;

/// Refuses a GPU without TF32 tensor cores with one line that says why.
inline void require_tensor_cores() {
  const course::ComputeCapability capability = course::current_compute_capability();
  course::require(capability.major >= kMinComputeCapabilityMajor,
                  "matmul: TF32 tensor-core instructions (mma.sync.m16n8k8.tf32) need compute "
                  "capability " +
                      std::to_string(kMinComputeCapabilityMajor) + ".0 or newer; this GPU has " +
                      capability.text());
}

/// The product on tensor cores with fragments read by @p Loader through @p Stages shared stages
/// (laid out as Loader::Layout says): the pre-pass (course/prepass.cuh) rounds A and B to TF32
/// and pads them with zeros into scratch memory, B transposed, then product_kernel<Loader, Stages>
/// runs. All launches go to @p s; the scratch is freed on it after the product.
template <class Loader, int Stages>
void launch_product(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  course::require(A != nullptr && B != nullptr && C != nullptr, "matrix pointers must not be null");
  const course::PaddedSizes padded = course::padded_sizes<kTileRows, kTileCols, kBatch>(m, n, k);
  const auto kernel = product_kernel<Loader, Stages>;
  const std::size_t shared_bytes = product_shared_bytes<typename Loader::Layout>(Stages);
  require_tensor_cores();
  course::prepare_dynamic_shared(kernel, shared_bytes, "matmul: the tensor-core kernel");
  // Every grid first: a size the grids cannot cover is refused before anything is allocated.
  // A stays m x k; B becomes B^T (n x k), so that both tiles of a stage hold rows of k.
  const course::PadPlan a_plan = course::plan_pad(m, k, padded.m, padded.k);
  const course::PadPlan b_plan =
      course::plan_pad(k, n, padded.k, padded.n, course::PadLayout::transposed);
  const dim3 block(kProductThreads);
  // One block per 128 x 256 tile of C.
  const dim3 grid =
      course::grid_2d(course::ceil_div(n, kTileCols), course::ceil_div(m, kTileRows), dim3(1, 1));

  const course::PaddedOperand ap =
      course::pad_operand<course::PlusTimes, RoundToTf32>(A, a_plan, s);
  const course::PaddedOperand btp =
      course::pad_operand<course::PlusTimes, RoundToTf32>(B, b_plan, s);
  kernel<<<grid, block, shared_bytes, s>>>(ap.data(), btp.data(), C, m, n, padded.k);
  COURSE_CHECK_LAUNCH(kernel, grid, block, shared_bytes, s);
}  // the scratch is freed here, in stream order: after the product

/// C = A * B on tensor cores: TF32 products (inputs rounded to 10 mantissa bits), FP32 sums.
/// Row-major: A is m x k, B is k x n, C is m x n. Any m, n, k >= 1. The error is that of TF32
/// inputs, about 2^-11 relative per product (course/check.hpp).
/// @param A device pointer, m x k. @param B device pointer, k x n. @param C device pointer, m x n.
/// @param m rows of A and C. @param n columns of B and C. @param k columns of A, rows of B.
/// @param s stream for all launches. @param step the lesson's step (default: the solution).
inline void matmul(const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s,
                   Step step = kSteps[0].step) {
  switch (step) {
    case Step::mma:
      launch_product<PlainLoader, 2>(A, B, C, m, n, k, s);
      break;
    case Step::ldmatrix:
      launch_product<LdmatrixLoader<PaddedRows>, 2>(A, B, C, m, n, k, s);
      break;
    case Step::pipeline:
      launch_product<LdmatrixLoader<PaddedRows>, kStages>(A, B, C, m, n, k, s);
      break;
    case Step::swizzle:
      launch_product<LdmatrixLoader<SwizzledRows>, kStages>(A, B, C, m, n, k, s);
      break;
  }
}

/// Chapter 6 as its executable and the ladder run it: matmul through the step that `--variant`
/// names (the solution by default), checked with the TF32 tolerance; why the other problems stay
/// in earlier chapters; and the planted bug of bug_hunt.cuh.
inline course::Chapter describe() {
  course::Chapter chapter = course::make_chapter(6, "tensor cores");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    course::ProblemSet set;
    set.matmul = course::with_choice(matmul, course::chosen_step(kSteps, chosen.variant()));
    set.arithmetic = matmul_arithmetic();
    return set;
  };
  chapter.flags.options = {course::step_option(kSteps, {course::Problem::matmul},
                                               "the lesson's step, the solution first")};
  chapter.gpu = {"TF32 tensor cores, compute capability 8.0 or newer", "8.0", false};
  course::leave_to_earlier_chapters(chapter, 5, 4);  // min-plus in chapter 5, convolutions in 4
  chapter.exercises.assign(std::begin(kExercises), std::end(kExercises));
  // The chapter's instruments on the student's kernels: bounds, no spills, ldmatrix in the
  // machine code, bank conflicts, rate.
  const std::vector<std::string> products = {"matmul"};
  const std::string awkward = "--problem matmul -m 200 -n 136 -k 72";
  const std::string bounds =
      "a read or write outside an array: the fragment's rows and columns (6.1, 6.2) and the "
      "write-back (6.4) (scripts/hint.sh 6.4)";
  chapter.checks = {
      course::sanitizer_check("memcheck", products, awkward, bounds),
      course::sanitizer_check("memcheck", products, awkward + " --variant mma", bounds,
                              "memcheck-mma"),
      course::sanitizer_check("memcheck", products, awkward + " --variant ldmatrix", bounds,
                              "memcheck-ldmatrix"),
      course::spills_check(products, awkward, "^ch06::",
                           "a kernel uses local memory: the accumulators must stay in registers "
                           "(exercise 6.3; scripts/hint.sh 6.3)"),
      course::sass_check("LDSM", "ch06::product_kernel", products,
                         "no ldmatrix (LDSM) in steps 2 to 4: exercise 6.5 points each lane at "
                         "its row (scripts/hint.sh 6.5)"),
      course::ncu_check("bank-conflicts", course::kBankConflictMetric, 1.5, products,
                        "--problem matmul -m 1024 -n 1024 -k 1024",
                        "more bank conflicts than the solution: the swizzled layout of exercise "
                        "6.7 (scripts/hint.sh 6.7)"),
      course::rate_check(products, "--problem matmul",
                         "slower than the solution: the stages in flight (exercise 6.6) and the "
                         "swizzle (exercise 6.7)"),
  };
  chapter.predictions = {
      {"6.1",
       {course::words("--variant mma --warmup 0 --reps 1 --no-check --no-compare")},
       {"ncu"},
       {course::kBankConflictMetric, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "smsp__inst_executed_op_shared_ld.sum"},
       "product_kernel"},
      {"6.2",
       {course::words("--variant mma --no-compare"),
        course::words("--variant ldmatrix --no-compare")},
       {"time", "rate"},
       {},
       ""},
      {"6.3",
       {course::words("--variant ldmatrix -m 8192 -n 8192 -k 8192 --no-compare"),
        course::words("--variant pipeline -m 8192 -n 8192 -k 8192 --no-compare")},
       {"time", "rate"},
       {},
       ""},
      {"6.4",
       {course::words("--variant pipeline -m 8192 -n 8192 -k 8192 --no-compare"),
        course::words("--variant swizzle -m 8192 -n 8192 -k 8192 --no-compare")},
       {"time", "rate"},
       {},
       ""},
  };
  // The bug hunt: step 2 with the stage layout of bug_hunt.cuh.
  course::ProblemSet wide;
  wide.matmul = launch_product<LdmatrixLoader<WidePaddedRows>, 2>;
  wide.arithmetic = matmul_arithmetic();
  chapter.bugs = {{"wide-padding", "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                   "step 2 with its stages laid out another way: right, but slower", wide}};
  return chapter;
}

}  // namespace ch06
