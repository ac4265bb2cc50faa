// Chapter 2's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/02_static_shared_tile/kernels.cuh and, where it
// has solutions/, once more against solutions/02_static_shared_tile/kernels.cuh, which is why
// kernels.cuh is included with angle brackets (found on the include path); launch.cuh, the host
// side, serves both. Chapter 1 runs on the same inputs, so the report shows the speedup over it:
// over its solution where the build has solutions/ (it then defines
// COURSE_PREVIOUS_FROM_SOLUTIONS), over your own chapter 1 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/01_global_memory/kernels.cuh"
#else
#include "chapters/01_global_memory/kernels.cuh"
#endif
#include "chapters/01_global_memory/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch02::describe(), ch01::describe(), argc, argv);
}
