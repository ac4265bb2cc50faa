#include "course/cuda_check.hpp"

#include <cstring>
#include <sstream>

namespace course {

const char* source_relative(const char* file) {
#ifdef COURSE_SOURCE_ROOT
  const std::size_t root_length = std::strlen(COURSE_SOURCE_ROOT);
  if (std::strncmp(file, COURSE_SOURCE_ROOT, root_length) == 0)
    return file + root_length;
#endif
  return file;
}

void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code == cudaSuccess)
    return;
  // The runtime also keeps the error as its "last error": take it, or the next launch check would
  // report this failure a second time as its own (a failed cudaMallocAsync, say, in a process that
  // carries on). A sticky error stays whatever this does.
  (void)cudaGetLastError();
  std::ostringstream message;
  message << source_relative(file) << ":" << line << ": " << call
          << " failed: " << cudaGetErrorName(code) << " (" << cudaGetErrorString(code) << ")";
  throw CudaError(message.str(), code);
}

void check_cublas(int status, const char* status_name, const char* call, const char* file,
                  int line) {
  if (status == 0)
    return;  // CUBLAS_STATUS_SUCCESS
  std::ostringstream message;
  message << source_relative(file) << ":" << line << ": " << call << " failed: " << status_name
          << " (cuBLAS status " << status << ")";
  throw CudaError(message.str(), cudaSuccess);
}

}  // namespace course
