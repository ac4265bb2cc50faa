// Chapter 4 driver. The build compiles this file twice: once against your
// chapters/04_register_blocking/kernels.cuh and once against
// solutions/04_register_blocking/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path); launch.cuh, the host side, serves both. Chapter 3's
// solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"
#include "bug_hunt.cuh"

#include "solutions/03_dynamic_shared_buffer/kernels.cuh"
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(4, "register blocking");
  // The product's kernel is the step that --variant names (the solution by default).
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    ch04::Step step = ch04::kSteps[0].step;
    for (const ch04::StepName& named : ch04::kSteps) {
      if (chosen.variant == named.name)
        step = named.step;
    }
    return course::ProblemSet{course::with_choice(ch04::matmul, step),
                              course::with_choice(ch04::minplus, step), ch04::conv2d, ch04::conv1d};
  };
  for (const ch04::StepName& step : ch04::kSteps)
    chapter.flags.variants.push_back(step.name);
  chapter.flags.max_taps = ch04::kMaxTaps;
  // Chapter 3's best: the products and conv2d through its compiled kernels (--variant dispatch),
  // with its default launch choices; conv1d through its one kernel.
  chapter.previous = {course::with_choice(ch03::dispatch::matmul, ch03::kTiles[0]),
                      course::with_choice(ch03::dispatch::minplus, ch03::kTiles[0]),
                      course::with_choice(ch03::dispatch::conv2d, ch03::kBlocks[0]), ch03::conv1d};
  chapter.exercises.assign(std::begin(ch04::kExercises), std::end(ch04::kExercises));
  // The bug hunt: step 2 with each thread's float4s side by side (bug_hunt.cuh).
  course::ProblemSet side_by_side;
  side_by_side.matmul = [](const float* A, const float* B, float* C, int m, int n, int k,
                           cudaStream_t s) {
    using Semiring = course::PlusTimes;
    ch04::launch_padded<Semiring>(ch04::float4_product_kernel<Semiring, ch04::bug::SideBySide>, A,
                                  B, C, m, n, k, s);
  };
  side_by_side.minplus = [](const float* A, const float* B, float* C, int m, int n, int k,
                            cudaStream_t s) {
    using Semiring = course::MinPlus;
    ch04::launch_padded<Semiring>(ch04::float4_product_kernel<Semiring, ch04::bug::SideBySide>, A,
                                  B, C, m, n, k, s);
  };
  chapter.bugs = {{"side-by-side", "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                   "step 2 with another layout of each thread's results: right, but slower",
                   side_by_side}};
  return course::run_chapter(chapter, argc, argv);
}
