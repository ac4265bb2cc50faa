// Chapter 1 driver. The build compiles this file twice: once against your
// chapters/01_global_memory/kernels.cuh and once against solutions/01_global_memory/kernels.cuh,
// which is why kernels.cuh is included with angle brackets (found on the include path).
#include <kernels.cuh>
#include "launch.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(1, "global memory");
  chapter.launchers = [](const course::LaunchOptions& chosen) {
    return course::ProblemSet{course::with_choice(ch01::matmul, chosen.mapping),
                              course::with_choice(ch01::minplus, chosen.mapping), ch01::conv2d,
                              ch01::conv1d};
  };
  chapter.flags.mapping = true;
  chapter.exercises.assign(std::begin(ch01::kExercises), std::end(ch01::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
