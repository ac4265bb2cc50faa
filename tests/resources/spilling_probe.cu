// A kernel that must have a stack frame: its array holds a running prefix and is indexed with a
// run-time value, so it lives in local memory. The resource check must reject it, which proves
// the check can fail.
__global__ void probe_local_array(const float* in, const int* index, float* out) {
  float values[64];
  float running = 0.0f;
  for (int i = 0; i < 64; ++i) {
    running = running * in[i * blockDim.x + threadIdx.x] + 1.0f;  // a prefix: every entry differs
    values[i] = running;
  }
  out[threadIdx.x] = values[index[threadIdx.x] & 63];
}
