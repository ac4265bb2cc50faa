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
  // Each thread computes one element of c. Which element is this thread's, from the built-in
  // variables that say where it sits in the grid? And what must a thread do whose number is not
  // an element of c (the grid is rounded up to whole blocks)?
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
  // The kernel can only read memory on the GPU. Reserve room there for a, b and c (bytes each),
  // storing the addresses in d_a, d_b and d_c, then copy the two inputs from the host vectors.
  // Wrap every runtime call in CHECK(...).
  // EXERCISE 1.2 end
  // EXERCISE 1.3 begin: launch, check the launch, wait for the kernel
  // Launch add with enough blocks to cover all n elements: choose the threads per block (whole
  // warps of 32), then the number of blocks (n is not a multiple of it). A launch returns before
  // the kernel finishes and reports nothing itself: ask the runtime whether it started, then wait
  // for the GPU, which also reports an error that happened while the kernel ran.
  // EXERCISE 1.3 end
  // EXERCISE 1.4 begin: the result back on the host, the GPU memory released
  // Copy c back from the GPU into the host vector c, then release the three GPU buffers.
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
