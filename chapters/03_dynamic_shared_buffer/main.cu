// Chapter 3's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/03_dynamic_shared_buffer/kernels.cuh and, where it
// has solutions/, once more against solutions/03_dynamic_shared_buffer/kernels.cuh, which is why
// kernels.cuh is included with angle brackets (found on the include path); launch.cuh, the host
// side, serves both. Chapter 2 runs on the same inputs, so the report shows the speedup over it,
// for the sizes that chapter 2 compiled (its tiles, its square masks, its tap counts): over its
// solution where the build has solutions/ (it then defines COURSE_PREVIOUS_FROM_SOLUTIONS), over
// your own chapter 2 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/02_static_shared_tile/kernels.cuh"
#else
#include "chapters/02_static_shared_tile/kernels.cuh"
#endif
#include "chapters/02_static_shared_tile/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch03::describe(), ch02::describe(), argc, argv);
}
