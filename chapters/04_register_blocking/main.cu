// Chapter 4's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file twice: once against your chapters/04_register_blocking/kernels.cuh and
// once against solutions/04_register_blocking/kernels.cuh, which is why kernels.cuh is included
// with angle brackets (found on the include path); launch.cuh, the host side, serves both. Chapter
// 3's solution at its best (`--variant dispatch`) runs on the same inputs, so the report shows the
// speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/03_dynamic_shared_buffer/kernels.cuh"
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch04::describe(), ch03::describe(), argc, argv);
}
