// Chapter 4 driver. The build compiles this file twice: once against your
// chapters/04_register_blocking/kernels.cuh and once against
// solutions/04_register_blocking/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path). Chapter 3's solution runs on the same inputs, so the report
// shows the speedup over it.
#include <kernels.cuh>

#include "solutions/03_dynamic_shared_buffer/kernels.cuh"

#include "course/driver.hpp"

#include <iterator>

int main(int argc, char** argv) {
  course::Chapter chapter = course::make_chapter(4, "register blocking");
  chapter.problems = {ch04::matmul, ch04::minplus, ch04::conv2d, nullptr};
  chapter.previous = {ch03::matmul, ch03::minplus, ch03::conv2d, nullptr};
  chapter.exercises.assign(std::begin(ch04::kExercises), std::end(ch04::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
