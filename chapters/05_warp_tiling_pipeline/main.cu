// Chapter 5 driver. The build compiles this file twice: once against your
// chapters/05_warp_tiling_pipeline/kernels.cuh and once against
// solutions/05_warp_tiling_pipeline/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path). Chapter 4's solution runs on the same inputs, so the report
// shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/04_register_blocking/kernels.cuh"
#include "chapters/04_register_blocking/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(5, "warp tiles and a cp.async pipeline");
  chapter.launchers = course::fixed_launchers({ch05::matmul, ch05::minplus, {}, {}});
  // Chapter 4's solution: its default step.
  chapter.previous = {course::with_choice(ch04::matmul, ch04::kSteps[0].step),
                      course::with_choice(ch04::minplus, ch04::kSteps[0].step),
                      {},
                      {}};
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "a block loads its tile once and has no loop along k to pipeline (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch05::kExercises), std::end(ch05::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
