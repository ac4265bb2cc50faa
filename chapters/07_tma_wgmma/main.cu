// Chapter 7 driver. The build compiles this file twice: once against your
// chapters/07_tma_wgmma/kernels.cuh and once against solutions/07_tma_wgmma/kernels.cuh, which is
// why kernels.cuh is included with angle brackets (found on the include path). Chapter 6's
// solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "bug_hunt.cuh"
#include "launch.cuh"

#include "solutions/06_tensor_cores/kernels.cuh"
#include "chapters/06_tensor_cores/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(7, "TMA and wgmma");
  // The product's kernel is the step that --variant names (the solution by default).
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    ch07::Step step = ch07::kSteps[0].step;
    for (const ch07::StepName& named : ch07::kSteps) {
      if (chosen.variant == named.name)
        step = named.step;
    }
    course::ProblemSet set;
    set.matmul = course::with_choice(ch07::matmul, step);
    set.arithmetic = ch07::matmul_arithmetic();  // checked with the TF32 tolerance
    return set;
  };
  for (const ch07::StepName& step : ch07::kSteps)
    chapter.flags.variants.push_back(step.name);
  chapter.flags.gpu_requirement =
      "TF32 wgmma and TMA, compute capability 9.0 (Hopper) and a build for sm_90a";
  course::ProblemSet stepped;  // the bug hunt: the solution with a batch of wgmmas of its own
  stepped.matmul = ch07::launch_product<ch07::kStages, true, true, ch07::SteppedMultiply>;
  stepped.arithmetic = ch07::matmul_arithmetic();
  chapter.bugs = {{"k-step", "check", "the solution with a batch of wgmmas of its own", stepped}};
  // Chapter 6's solution: its default step.
  chapter.previous.matmul = course::with_choice(ch06::matmul, ch06::kSteps[0].step);
  chapter.missing_reasons[static_cast<int>(course::Problem::minplus)] =
      "tensor cores only multiply and add; min-plus has no tensor-core instruction (chapter 5 "
      "runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "these tiles do not help a convolution (chapter 4 runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv1d)] =
      "these tiles do not help a convolution (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch07::kExercises), std::end(ch07::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
