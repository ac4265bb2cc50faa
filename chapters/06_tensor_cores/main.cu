// Chapter 6's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/06_tensor_cores/kernels.cuh and, where it has
// solutions/, once more against solutions/06_tensor_cores/kernels.cuh, which is why kernels.cuh is
// included with angle brackets (found on the include path); launch.cuh, the host side, serves both.
// Chapter 5 runs on the same inputs, so the report shows the speedup over it: over its solution
// where the build has solutions/ (it then defines COURSE_PREVIOUS_FROM_SOLUTIONS), over your own
// chapter 5 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/05_warp_tiling_pipeline/kernels.cuh"
#else
#include "chapters/05_warp_tiling_pipeline/kernels.cuh"
#endif
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch06::describe(), ch05::describe(), argc, argv);
}
