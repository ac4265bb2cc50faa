// Chapter 4's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/04_register_blocking/kernels.cuh and, where it has
// solutions/, once more against solutions/04_register_blocking/kernels.cuh, which is why
// kernels.cuh is included with angle brackets (found on the include path); launch.cuh, the host
// side, serves both. Chapter 3 runs on the same inputs, so the report shows the speedup over it, at
// its best (`--variant dispatch`): over its solution where the build has solutions/ (it then
// defines COURSE_PREVIOUS_FROM_SOLUTIONS), over your own chapter 3 otherwise.
#include <kernels.cuh>
#include "launch.cuh"

#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
#include "solutions/03_dynamic_shared_buffer/kernels.cuh"
#else
#include "chapters/03_dynamic_shared_buffer/kernels.cuh"
#endif
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch04::describe(), ch03::describe(), argc, argv);
}
