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
  chapter.missing_reasons[static_cast<int>(course::Problem::conv1d)] =
      "a block loads its segment once and has no loop to pipeline (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch05::kExercises), std::end(ch05::kExercises));
  // The bug hunt: step 2 with a defect, through the same pre-pass and launch.
  chapter.bugs = {{"stage-reuse",
                   "racecheck",
                   "the pipeline's copies may land in a stage that some warp still reads",
                   {[](auto... arguments) {
                      ch05::launch_product<course::PlusTimes>(
                          ch05::bug::stage_reuse_kernel<course::PlusTimes>, arguments...);
                    },
                    [](auto... arguments) {
                      ch05::launch_product<course::MinPlus>(
                          ch05::bug::stage_reuse_kernel<course::MinPlus>, arguments...);
                    },
                    {},
                    {}}}};
  return course::run_chapter(chapter, argc, argv);
}
