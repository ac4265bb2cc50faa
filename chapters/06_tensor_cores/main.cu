// Chapter 6 driver. The build compiles this file twice: once against your
// chapters/06_tensor_cores/kernels.cuh and once against solutions/06_tensor_cores/kernels.cuh,
// which is why kernels.cuh is included with angle brackets (found on the include path). Chapter
// 5's solution runs on the same inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/05_warp_tiling_pipeline/kernels.cuh"
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(6, "tensor cores");
  course::ProblemSet launchers;
  launchers.matmul = ch06::matmul;
  launchers.arithmetic = ch06::matmul_arithmetic();  // checked with the TF32 tolerance
  chapter.launchers = course::fixed_launchers(launchers);
  chapter.previous.matmul = ch05::matmul;
  chapter.missing_reasons[static_cast<int>(course::Problem::minplus)] =
      "tensor cores only multiply and add; min-plus has no tensor-core instruction (chapter 5 "
      "runs it)";
  chapter.missing_reasons[static_cast<int>(course::Problem::conv2d)] =
      "these tiles do not help a convolution (chapter 4 runs it)";
  chapter.exercises.assign(std::begin(ch06::kExercises), std::end(ch06::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
