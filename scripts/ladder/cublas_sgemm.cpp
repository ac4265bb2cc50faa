#include "cublas_sgemm.hpp"

#include "course/cuda_check.hpp"
#include "course/launch.cuh"

#include <cublas_v2.h>

#include <memory>

/// Checks a cuBLAS call; throws course::CudaError naming the call and the status on failure.
#define LADDER_CUBLAS_CHECK(call)                                                                 \
  do {                                                                                            \
    const cublasStatus_t ladder_status_ = (call);                                                 \
    ::course::check_cublas(static_cast<int>(ladder_status_), cublasGetStatusName(ladder_status_), \
                           #call, __FILE__, __LINE__);                                            \
  } while (false)

namespace ladder {
namespace {

void cublas_matmul(cublasHandle_t handle, const float* A, const float* B, float* C, int m, int n,
                   int k, cudaStream_t stream) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  const float one = 1.0f;
  const float zero = 0.0f;
  LADDER_CUBLAS_CHECK(cublasSetStream(handle, stream));
  // cuBLAS is column-major. A row-major m x n matrix is the same memory as a column-major
  // n x m matrix, its transpose, so row-major C = A * B is column-major C^T = B^T * A^T:
  // pass B first, then A, and swap m and n.
  LADDER_CUBLAS_CHECK(
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
  if (course::synchronous_launch_checks())
    COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace

course::ProblemSet cublas_sgemm(course::Arithmetic arithmetic) {
  cublasHandle_t created = nullptr;
  LADDER_CUBLAS_CHECK(cublasCreate(&created));
  const std::shared_ptr<cublasContext> handle(
      created, [](cublasHandle_t owned) { (void)cublasDestroy(owned); });
  const cublasMath_t mode =
      arithmetic == course::Arithmetic::tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH;
  LADDER_CUBLAS_CHECK(cublasSetMathMode(handle.get(), mode));
  course::ProblemSet set;
  set.matmul = [handle](auto... arguments) { cublas_matmul(handle.get(), arguments...); };
  set.arithmetic = arithmetic;
  return set;
}

}  // namespace ladder
