// Chapter 1's executable: the chapter as launch.cuh describes it, run by the shared driver. The
// build compiles this file against your chapters/01_global_memory/kernels.cuh and, where it has
// solutions/, once more against solutions/01_global_memory/kernels.cuh, which is why kernels.cuh is
// included with angle brackets (found on the include path).
#include <kernels.cuh>
#include "launch.cuh"

int main(int argc, char** argv) {
  return course::run_chapter(ch01::describe(), argc, argv);
}
