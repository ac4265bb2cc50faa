// Instantiates every chapter-5 solution kernel, the product's at every step of the lesson, so that
// ptxas reports each one's registers, stack frame and spills. Compiled by the resource test only;
// nothing here runs.
#include "solutions/05_warp_tiling_pipeline/kernels.cuh"
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

void instantiate_every_kernel(float* p, cudaStream_t s) {
  for (const ch05::StepName& step : ch05::kSteps) {
    ch05::matmul(p, p, p, 1, 1, 1, s, step.step);
    ch05::minplus(p, p, p, 1, 1, 1, s, step.step);
  }
}
