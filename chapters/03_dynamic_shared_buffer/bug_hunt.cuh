/// @file bug_hunt.cuh
/// @brief Chapter 3's bug hunt: a conv1d kernel built from this chapter's conv1d_block(), with one
/// defect. `--bug conv1d-buffer` runs it in place of ch03::conv1d_kernel through the same launcher;
/// `--list-bugs` names the tool that catches it. The lesson says how to hunt, not where.
#pragma once

#include <cuda_runtime.h>

namespace ch03::bug {

/// ch03::conv1d_kernel, written without a layout: one unsized array for the inputs and one for
/// the taps, each declared with its own type.
__global__ void __launch_bounds__(kConv1dThreads)
    conv1d_kernel(const float* a, int n, const float* b, int m, float* y) {
  extern __shared__ __align__(16) float inputs[];  // sized by the launch
  extern __shared__ __align__(16) float4 taps[];   // the taps, four per float4
  conv1d_block(a, n, b, m, y, inputs, taps);
}

}  // namespace ch03::bug
