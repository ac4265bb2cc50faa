// Chapter 4 driver. The build compiles this file twice: once against your
// chapters/04_register_blocking/kernels.cuh and once against
// solutions/04_register_blocking/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path); launch.cuh, the host side, serves both. Chapter 3's
// solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/03_dynamic_shared_buffer/kernels.cuh"
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(4, "register blocking");
  // The product's kernel is the step that --variant names (the solution by default); conv2d has
  // one kernel.
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    ch04::Step step = ch04::kSteps[0].step;
    for (const ch04::StepName& named : ch04::kSteps) {
      if (chosen.variant == named.name)
        step = named.step;
    }
    return course::ProblemSet{course::with_choice(ch04::matmul, step),
                              course::with_choice(ch04::minplus, step),
                              ch04::conv2d,
                              {}};
  };
  for (const ch04::StepName& step : ch04::kSteps)
    chapter.flags.variants.push_back(step.name);
  // Chapter 3's best: its solution through the compiled kernels (--variant dispatch), with its
  // default launch choices (the first tile and block offered).
  chapter.previous = {course::with_choice(ch03::dispatch::matmul, ch03::kTiles[0]),
                      course::with_choice(ch03::dispatch::minplus, ch03::kTiles[0]),
                      course::with_choice(ch03::dispatch::conv2d, ch03::kBlocks[0]),
                      {}};
  chapter.exercises.assign(std::begin(ch04::kExercises), std::end(ch04::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
