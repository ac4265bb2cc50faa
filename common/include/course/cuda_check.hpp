/// @file cuda_check.hpp
/// @brief Error checking for CUDA runtime calls, kernel launches and cuBLAS calls.
///
/// Every failure becomes a course::CudaError whose message names the source file, the line, the
/// failing call as written and the runtime's own description, so a student sees at once which line
/// went wrong and why.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace course {

/// Thrown when a CUDA runtime call, a kernel launch or a cuBLAS call fails.
class CudaError : public std::runtime_error {
 public:
  /// @param message the full description: where, what was called and the runtime's message.
  /// @param code the runtime's error code (cudaSuccess for cuBLAS failures).
  CudaError(const std::string& message, cudaError_t code)
      : std::runtime_error(message), code_(code) {}
  /// The CUDA runtime error code behind this error.
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

/// Strips the repository's own directory from a `__FILE__` path, so messages name
/// `chapters/01_global_memory/kernels.cuh` rather than a path on the machine that built it.
const char* source_relative(const char* file);

/// Throws course::CudaError if @p code is not cudaSuccess.
/// @param code the value returned by the runtime call.
/// @param call the call as written in the source (the macro's stringized argument).
/// @param file source file of the call.
/// @param line source line of the call.
void check_cuda(cudaError_t code, const char* call, const char* file, int line);

/// Throws course::CudaError if the cuBLAS status @p status (a `cublasStatus_t`, passed as an int so
/// that this header does not need cuBLAS) is not CUBLAS_STATUS_SUCCESS.
/// @param status the value returned by the cuBLAS call.
/// @param status_name the name of that status (cublasGetStatusName()).
/// @param call the call as written in the source.
/// @param file source file of the call.
/// @param line source line of the call.
void check_cublas(int status, const char* status_name, const char* call, const char* file,
                  int line);

}  // namespace course

/// Checks the result of a CUDA runtime call; throws course::CudaError naming the call on failure.
#define COURSE_CUDA_CHECK(call) ::course::check_cuda((call), #call, __FILE__, __LINE__)
