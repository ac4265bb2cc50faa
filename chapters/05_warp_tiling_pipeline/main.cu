// Chapter 5 driver. The build compiles this file twice: once against your
// chapters/05_warp_tiling_pipeline/kernels.cuh and once against
// solutions/05_warp_tiling_pipeline/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path). Chapter 4's solution runs on the same inputs, so the report
// shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"
#include "bug_hunt.cuh"

#include "solutions/04_register_blocking/kernels.cuh"
#include "chapters/04_register_blocking/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

namespace {

// The launchers of a product kernel (one per semiring): the chapter's pre-pass and launch with
// that kernel.
template <template <class> class Kernel>
course::ProblemSet products_of() {
  course::ProblemSet set;
  set.matmul = [](const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
    ch05::launch_product<course::PlusTimes>(Kernel<course::PlusTimes>::get(), A, B, C, m, n, k, s);
  };
  set.minplus = [](const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
    ch05::launch_product<course::MinPlus>(Kernel<course::MinPlus>::get(), A, B, C, m, n, k, s);
  };
  return set;
}

template <ch05::bug::Defect D>
struct Pipeline {
  template <class Semiring>
  struct Of {
    static ch05::ProductKernel get() { return ch05::bug::pipeline_kernel<Semiring, D>; }
  };
};

template <class Semiring>
struct OneBarrier {
  static ch05::ProductKernel get() { return ch05::bug::one_barrier_kernel<Semiring>; }
};

}  // namespace

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(5, "warp tiles and a cp.async pipeline");
  // The product's kernel is the step that --variant names (the solution by default).
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    ch05::Step step = ch05::kSteps[0].step;
    for (const ch05::StepName& named : ch05::kSteps) {
      if (chosen.variant == named.name)
        step = named.step;
    }
    return course::ProblemSet{
        course::with_choice(ch05::matmul, step), course::with_choice(ch05::minplus, step), {}, {}};
  };
  for (const ch05::StepName& step : ch05::kSteps)
    chapter.flags.variants.push_back(step.name);
  // Chapter 4's solution: its default step.
  chapter.previous = {course::with_choice(ch04::matmul, ch04::kSteps[0].step),
                      course::with_choice(ch04::minplus, ch04::kSteps[0].step),
                      {},
                      {}};
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "a block loads its tile once and has no loop along k to pipeline (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch05::kExercises), std::end(ch05::kExercises));
  using ch05::bug::Defect;
  chapter.bugs = {
      {"copy-before-barrier", "racecheck", "the pipeline's copies may overwrite a stage in use",
       products_of<Pipeline<Defect::copy_before_barrier>::Of>()},
      {"no-wait", "check", "the pipeline may read a stage before its copies land",
       products_of<Pipeline<Defect::no_wait>::Of>()},
      {"one-barrier", "racecheck", "step 1 may overwrite its stage while it is read",
       products_of<OneBarrier>()},
  };
  return course::run_chapter(chapter, argc, argv);
}
