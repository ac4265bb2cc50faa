#include "course/device_buffer.hpp"

#include "course/cuda_check.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace course {
namespace {

std::string mebibytes(long double bytes) {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << static_cast<double>(bytes / (1024.0L * 1024.0L)) << " MiB";
  return out.str();
}

}  // namespace

void require_device_memory(std::size_t count, std::size_t element_size, const char* what) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  COURSE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // In long double: the product of sizes near 2^31 can pass what a 64-bit size holds.
  const long double bytes = static_cast<long double>(count) * element_size;
  if (bytes > static_cast<long double>(free_bytes)) {
    std::ostringstream message;
    message.precision(0);
    message << what << " needs " << mebibytes(bytes) << " (" << std::fixed << bytes
            << " bytes) of device memory, but the device has only " << mebibytes(free_bytes)
            << " free of " << mebibytes(total_bytes);
    throw CudaError(message.str(), cudaErrorMemoryAllocation);
  }
}

std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what) {
  if (element_size != 0 && count > std::numeric_limits<std::size_t>::max() / element_size) {
    throw std::length_error(std::string(what) + ": " + std::to_string(count) +
                            " elements are more bytes than a 64-bit size can count");
  }
  return count * element_size;
}

void* device_allocate(std::size_t bytes, const char* what) {
  void* pointer = nullptr;
  if (bytes == 0)
    return nullptr;
  const cudaError_t code = cudaMalloc(&pointer, bytes);
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky-free allocation error before asking for info
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    std::ostringstream message;
    message << "allocating " << mebibytes(bytes) << " (" << bytes << " bytes) for " << what
            << " failed: " << cudaGetErrorString(code);
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      message << "; the device has " << mebibytes(free_bytes) << " free of "
              << mebibytes(total_bytes);
    }
    throw CudaError(message.str(), code);
  }
  return pointer;
}

void device_free(void* pointer) noexcept {
  if (pointer != nullptr)
    (void)cudaFree(pointer);
}

}  // namespace course
