// Chapter 7's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/07_tma_wgmma/kernels.cuh and, where it has
// solutions/, once more against solutions/07_tma_wgmma/kernels.cuh, which is why kernels.cuh is
// included with angle brackets (found on the include path); launch.cuh, the host side, serves both.
// Chapter 6 runs on the same inputs, so the report shows the speedup over it: over its solution
// where the build has solutions/ (it then defines COURSE_PREVIOUS_FROM_SOLUTIONS), over your own
// chapter 6 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/06_tensor_cores/kernels.cuh"
#else
#include "chapters/06_tensor_cores/kernels.cuh"
#endif
#include "chapters/06_tensor_cores/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch07::describe(), ch06::describe(), argc, argv);
}
