// Chapter 1 driver. The build compiles this file twice: once against your
// chapters/01_global_memory/kernels.cuh and once against solutions/01_global_memory/kernels.cuh,
// which is why kernels.cuh is included with angle brackets (found on the include path).
#include <kernels.cuh>
#include "launch.cuh"
#include "bug_hunt.cuh"

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
  // The bug hunt: a defective product kernel behind the chapter's own launcher (bug_hunt.cuh).
  const course::ProductLauncher edge = [](const float* A, const float* B, float* C, int m, int n,
                                          int k, cudaStream_t stream) {
    ch01::launch_product(ch01::matmul_edge_kernel, A, B, C, m, n, k, stream,
                         course::ThreadMapping::coalesced);
  };
  chapter.bugs = {{"edge",
                   "memcheck",
                   "a matmul kernel with one defect, which the check does not always see",
                   {edge, {}, {}, {}}}};
  chapter.exercises.assign(std::begin(ch01::kExercises), std::end(ch01::kExercises));
  return course::run_chapter(chapter, argc, argv);
}
