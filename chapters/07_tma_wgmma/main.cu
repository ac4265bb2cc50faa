// Chapter 7's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file twice: once against your chapters/07_tma_wgmma/kernels.cuh and once
// against solutions/07_tma_wgmma/kernels.cuh, which is why kernels.cuh is included with angle
// brackets (found on the include path). Chapter 6's solution runs on the same inputs, so the report
// shows the speedup over it.
#include <kernels.cuh>
#include "launch.cuh"

#include "solutions/06_tensor_cores/kernels.cuh"
#include "chapters/06_tensor_cores/launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch07::describe(), ch06::describe(), argc, argv);
}
