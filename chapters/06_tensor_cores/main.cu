// Chapter 6 driver. The build compiles this file twice: once against your
// chapters/06_tensor_cores/kernels.cuh and once against solutions/06_tensor_cores/kernels.cuh,
// which is why kernels.cuh is included with angle brackets (found on the include path). Chapter
// 5's solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "bug_hunt.cuh"
#include "launch.cuh"

#include "solutions/05_warp_tiling_pipeline/kernels.cuh"
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(6, "tensor cores");
  // The product's kernel is the step that --variant names (the solution by default).
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    ch06::Step step = ch06::kSteps[0].step;
    for (const ch06::StepName& named : ch06::kSteps) {
      if (chosen.variant == named.name)
        step = named.step;
    }
    course::ProblemSet set;
    set.matmul = course::with_choice(ch06::matmul, step);
    set.arithmetic = ch06::matmul_arithmetic();  // checked with the TF32 tolerance
    return set;
  };
  for (const ch06::StepName& step : ch06::kSteps)
    chapter.flags.variants.push_back(step.name);
  course::ProblemSet misread;  // the bug hunt: step 1 with the loader of bug_hunt.cuh
  misread.matmul = ch06::launch_product<ch06::MisreadLoader, 2>;
  misread.arithmetic = ch06::matmul_arithmetic();
  chapter.bugs = {{"fragment", "check", "step 1 with a fragment loader of its own", misread}};
  // Chapter 5's solution: its default step.
  chapter.previous.matmul = course::with_choice(ch05::matmul, ch05::kSteps[0].step);
  chapter.missing_reasons[static_cast<int>(course::Problem::minplus)] =
      "tensor cores only multiply and add; min-plus has no tensor-core instruction (chapter 5 "
      "runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "these tiles do not help a convolution (chapter 4 runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv1d)] =
      "these tiles do not help a convolution (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch06::kExercises), std::end(ch06::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
