// Chapter 8's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/08_persistent_clusters/kernels.cuh and, where it
// has solutions/, once more against solutions/08_persistent_clusters/kernels.cuh, which is why
// kernels.cuh is included with angle brackets (found on the include path); launch.cuh, the host
// side, serves both. Chapter 7 runs on the same inputs, so the report shows the speedup over it:
// over its solution where the build has solutions/ (it then defines
// COURSE_PREVIOUS_FROM_SOLUTIONS), over your own chapter 7 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/07_tma_wgmma/kernels.cuh"
#else
#include "chapters/07_tma_wgmma/kernels.cuh"
#endif
#include "chapters/07_tma_wgmma/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch08::describe(), ch07::describe(), argc, argv);
}
