/// @file bug_hunt.cuh
/// @brief Chapter 3's bug hunt: a conv1d kernel built from this chapter's conv1d_block(), with one
/// defect. `--bug conv1d-buffer` runs it in place of ch03::conv1d_kernel through the same launcher;
/// `--list-bugs` names the tool that catches it. The lesson says how to hunt, not where.
#pragma once

#include <cuda_runtime.h>

namespace ch03::bug {

/// ch03::conv1d_kernel, carved by hand instead of by a plan, and in the other order: the taps
/// first (a float4 array needs nothing before it to be aligned), then the inputs.
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  extern __shared__ __align__(16) unsigned char shared_buffer[];  // sized by the launch
  const int quads = tap_span(m) / kQuad;                          // float4 of taps
  float4* taps = reinterpret_cast<float4*>(shared_buffer);
  float* inputs = reinterpret_cast<float*>(taps + quads - 1);  // the inputs follow the taps
  conv1d_block(a, n, b, m, y, inputs, taps);
}

}  // namespace ch03::bug
