// Chapter 6's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file twice: once against your chapters/06_tensor_cores/kernels.cuh and once
// against solutions/06_tensor_cores/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path). Chapter 5's solution runs on the same inputs, so the report
// shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/05_warp_tiling_pipeline/kernels.cuh"
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch06::describe(), ch05::describe(), argc, argv);
}
