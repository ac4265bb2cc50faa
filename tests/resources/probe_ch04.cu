// Instantiates every chapter-4 solution kernel, the product's at every step of the lesson, so that
// ptxas reports each one's registers, stack frame and spills. Compiled by the resource test only;
// nothing here runs.
#include "solutions/04_register_blocking/kernels.cuh"
#include "chapters/04_register_blocking/launch.cuh"

void instantiate_every_kernel(float* p, cudaStream_t s) {
  for (const ch04::StepName& step : ch04::kSteps) {
    ch04::matmul(p, p, p, 1, 1, 1, s, step.step);
    ch04::minplus(p, p, p, 1, 1, 1, s, step.step);
  }
  ch04::conv2d(p, 1, 1, p, 1, 1, p, s);
  ch04::conv1d(p, 1, p, 1, p, s);
}
