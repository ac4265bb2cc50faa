// Your first CUDA program: c = a + b for two vectors, computed on the GPU. It needs nothing but
// the CUDA toolkit:
//   nvcc -O2 -o first_program chapters/01_global_memory/first_program.cu && ./first_program
// It prints PASS (exit status 0) or FAIL (1); a failed CUDA call stops it with status 2, or 3
// when the machine has no CUDA GPU.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Checks the result of a CUDA runtime call: on failure, prints where and why, and stops.
#define CHECK(call)                                                                          \
  do {                                                                                       \
    const cudaError_t error = (call);                                                        \
    if (error != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                   cudaGetErrorString(error));                                               \
      std::exit(error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver ? 3 : 2); \
    }                                                                                        \
  } while (0)

// c[i] = a[i] + b[i] for every i < n, one thread per element.
__global__ void add(const float* a, const float* b, float* c, int n) {
  // EXERCISE 1.1 begin: one element per thread
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
  // EXERCISE 1.1 end
}

int main() {
  CHECK(cudaSetDevice(0));  // work on the first GPU; fails at once if there is none
  const int n = 1000003;    // not a multiple of the block size, on purpose
  const size_t bytes = n * sizeof(float);
  std::vector<float> a(n), b(n), c(n, NAN);  // c starts as NaN: an unwritten element fails
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = static_cast<float>(2 * i);
  }
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;  // device (GPU) pointers
  // EXERCISE 1.2 begin: room on the GPU, and the inputs copied there
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc(&d_c, bytes));
  CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));
  // EXERCISE 1.2 end
  // EXERCISE 1.3 begin: launch, check the launch, wait for the kernel
  const int block = 256;                     // threads per block: 8 warps
  const int grid = (n + block - 1) / block;  // enough blocks to cover n: round up
  add<<<grid, block>>>(d_a, d_b, d_c, n);
  CHECK(cudaGetLastError());       // could the launch start? (bad geometry, no kernel image)
  CHECK(cudaDeviceSynchronize());  // wait; reports an error that happened while it ran
  // EXERCISE 1.3 end
  // EXERCISE 1.4 begin: the result back on the host, the GPU memory released
  CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  // EXERCISE 1.4 end
  for (int i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {  // exact: these sums are whole numbers below 2^24
      std::printf("FAIL: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      const bool allocated = d_a != nullptr && d_b != nullptr && d_c != nullptr;
      const char* exercise = !allocated ? "1.2" : std::isnan(c[i]) ? "1.4" : "1.1 and 1.3";
      std::printf("hint: see exercise %s (scripts/hint.sh %.3s prints a hint)\n", exercise,
                  exercise);
      return 1;
    }
  }
  std::printf("PASS: c = a + b for %d elements (%zu bytes per vector)\n", n, bytes);
  return 0;
}
