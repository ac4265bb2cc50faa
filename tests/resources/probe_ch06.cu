// Instantiates every chapter-6 solution kernel (each step of the lesson), so that ptxas reports
// each one's registers, stack frame and spills. Compiled by the resource test only; nothing here
// runs.
#include "solutions/06_tensor_cores/kernels.cuh"
#include "chapters/06_tensor_cores/launch.cuh"

void instantiate_every_kernel(float* p, cudaStream_t s) {
  for (const ch06::StepName& step : ch06::kSteps)
    ch06::matmul(p, p, p, 1, 1, 1, s, step.step);
}
