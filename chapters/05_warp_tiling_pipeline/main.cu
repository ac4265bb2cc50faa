// Chapter 5's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/05_warp_tiling_pipeline/kernels.cuh and, where it
// has solutions/, once more against solutions/05_warp_tiling_pipeline/kernels.cuh, which is why
// kernels.cuh is included with angle brackets (found on the include path); launch.cuh, the host
// side, serves both. Chapter 4 runs on the same inputs, so the report shows the speedup over it:
// over its solution where the build has solutions/ (it then defines
// COURSE_PREVIOUS_FROM_SOLUTIONS), over your own chapter 4 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/04_register_blocking/kernels.cuh"
#else
#include "chapters/04_register_blocking/kernels.cuh"
#endif
#include "chapters/04_register_blocking/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch05::describe(), ch04::describe(), argc, argv);
}
