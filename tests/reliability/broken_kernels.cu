// Deliberately broken kernels, kept out of the course: a clean report for the chapters means
// something only if the same reliability checks report these (tests/reliability/CMakeLists.txt).
//
//   reliability_broken_kernels out-of-bounds-write   memcheck must report an invalid global write
//   reliability_broken_kernels missing-barrier       racecheck must report a shared-memory hazard
//   reliability_broken_kernels wrong-result [flags]  the shared driver on a matmul that writes
//                                                    zeros at once: FAIL, and no figures
//   reliability_broken_kernels wrong-previous [flags]  a right matmul timed against that wrong
//                                                    one as the student's previous chapter: PASS,
//                                                    and no speedup
//
// Exit status: 0 when the kernel ran (the bugs do not crash without a sanitizer), 2 for a bad
// command line, 3 when there is no CUDA device, 4 on a CUDA error; wrong-result: the driver's.
#include <cuda_runtime.h>

#include "course/cli.hpp"
#include "course/cuda_check.hpp"
#include "course/device_info.hpp"
#include "course/driver.hpp"

#include <exception>
#include <iostream>
#include <string>

namespace {

constexpr int kElements = 100;  ///< elements of the buffer the broken write overruns
constexpr int kThreads = 128;   ///< threads per block: four warps
/// How far a thread reaches for another thread's value: one warp, so writer and reader are
/// always in different warps and nothing but a barrier orders them.
constexpr int kWarp = 32;

/// Writes 1.0f to out[0..n] inclusive: the bounds check uses <= where < belongs, so the thread
/// with index n writes one element past the end of the buffer.
__global__ void write_one_past_the_end(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n)  // the deliberate bug: i == n is outside the buffer
    out[i] = 1.0f;
}

/// Rotates @p in by one warp through shared memory, but without the __syncthreads() between the
/// write and the read: a thread may read its neighbour's slot before the neighbour has written it.
__global__ void rotate_without_barrier(const float* in, float* out) {
  __shared__ float staged[kThreads];
  const int t = threadIdx.x;
  staged[t] = in[t];
  // The deliberate bug: __syncthreads() belongs here.
  out[t] = staged[(t + kWarp) % kThreads];
}

/// Writes zero to out[0..count): the whole of a "product" that never reads its inputs.
__global__ void write_zeros(float* out, long long count) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count)
    out[i] = 0.0f;
}

/// A matmul launcher that finishes almost at once and is wrong everywhere, as a student's kernel
/// is before its exercises are done: its time gives an absurd rate that must not be reported.
void wrong_matmul(const float* /*A*/, const float* /*B*/, float* C, int m, int n, int /*k*/,
                  cudaStream_t stream) {
  const long long count = static_cast<long long>(m) * n;
  const dim3 grid = course::grid_1d(count, kThreads);
  write_zeros<<<grid, kThreads, 0, stream>>>(C, count);
  COURSE_CHECK_LAUNCH(write_zeros, grid, dim3(kThreads), 0, stream);
}

/// C = A * B, one thread per element of C, the sum in the order of k: right, and slow.
__global__ void right_product(const float* A, const float* B, float* C, int m, int n, int k) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(m) * n)
    return;
  const long long row = i / n, column = i % n;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p)
    sum += A[row * k + p] * B[static_cast<long long>(p) * n + column];
  C[i] = sum;
}

/// A matmul launcher that is right (right_product).
void right_matmul(const float* A, const float* B, float* C, int m, int n, int k,
                  cudaStream_t stream) {
  const dim3 grid = course::grid_1d(static_cast<long long>(m) * n, kThreads);
  right_product<<<grid, kThreads, 0, stream>>>(A, B, C, m, n, k);
  COURSE_CHECK_LAUNCH(right_product, grid, dim3(kThreads), 0, stream);
}

/// The shared driver on right_matmul, compared with wrong_matmul as the student's own previous
/// chapter (an unfinished chapter 1): the speedup over a wrong answer must not be reported.
int run_wrong_previous(int argc, char** argv) {
  course::Chapter chapter;
  chapter.number = 2;
  chapter.title = "a right product after a wrong chapter";
  course::ProblemSet set;
  set.matmul = right_matmul;
  chapter.launchers = course::fixed_launchers(set);
  chapter.previous.matmul = wrong_matmul;
  return course::run_chapter(chapter, argc, argv);
}

/// The shared driver on wrong_matmul, compared with itself as the "previous chapter".
int run_wrong_result(int argc, char** argv) {
  course::Chapter chapter;
  chapter.number = 1;
  chapter.title = "a deliberately wrong product";
  chapter.solution = true;
  course::ProblemSet set;
  set.matmul = wrong_matmul;
  chapter.launchers = course::fixed_launchers(set);
  chapter.previous.matmul = wrong_matmul;
  return course::run_chapter(chapter, argc, argv);
}

int run(const std::string& mode) {
  float* in = nullptr;
  float* out = nullptr;
  if (mode == "out-of-bounds-write") {
    // Exactly kElements floats, so that out[kElements] is outside every allocation the sanitizer
    // knows of.
    COURSE_CUDA_CHECK(cudaMalloc(&out, kElements * sizeof(float)));
    write_one_past_the_end<<<1, kThreads>>>(out, kElements);
  } else {
    COURSE_CUDA_CHECK(cudaMalloc(&in, kThreads * sizeof(float)));
    COURSE_CUDA_CHECK(cudaMalloc(&out, kThreads * sizeof(float)));
    COURSE_CUDA_CHECK(cudaMemset(in, 0, kThreads * sizeof(float)));
    rotate_without_barrier<<<1, kThreads>>>(in, out);
  }
  COURSE_CUDA_CHECK(cudaGetLastError());
  COURSE_CUDA_CHECK(cudaDeviceSynchronize());
  COURSE_CUDA_CHECK(cudaFree(in));  // nullptr for the out-of-bounds write: a no-op
  COURSE_CUDA_CHECK(cudaFree(out));
  std::cout << mode << ": the broken kernel ran\n";
  return course::kExitPass;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "wrong-result")
    return run_wrong_result(argc - 1, argv + 1);
  if (argc >= 2 && std::string(argv[1]) == "wrong-previous")
    return run_wrong_previous(argc - 1, argv + 1);
  const std::string mode = argc == 2 ? argv[1] : "";
  if (mode != "out-of-bounds-write" && mode != "missing-barrier") {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "reliability_broken_kernels")
              << " out-of-bounds-write|missing-barrier|wrong-result|wrong-previous [flags]\n";
    return course::kExitUsage;
  }
  std::string reason;
  if (!course::cuda_device_available(&reason)) {
    std::cerr << "error: no CUDA device available (" << reason << ")\n";
    return course::kExitNoDevice;
  }
  try {
    return run(mode);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return course::kExitError;
  }
}
