// Chapter 5's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file twice: once against your chapters/05_warp_tiling_pipeline/kernels.cuh
// and once against solutions/05_warp_tiling_pipeline/kernels.cuh, which is why kernels.cuh is
// included with angle brackets (found on the include path). Chapter 4's solution runs on the same
// inputs, so the report shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/04_register_blocking/kernels.cuh"
#include "chapters/04_register_blocking/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch05::describe(), ch04::describe(), argc, argv);
}
