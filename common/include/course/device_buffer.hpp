/// @file device_buffer.hpp
/// @brief An owning, typed device allocation: allocate, upload, download, poison.
#pragma once

#include <cuda_runtime.h>

#include "course/cuda_check.hpp"

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace course {

/// Allocates @p bytes of device memory. On failure throws course::CudaError naming @p what, the
/// bytes asked for and the free and total memory of the device.
void* device_allocate(std::size_t bytes, const char* what);

/// @p count * @p element_size, or a thrown std::length_error naming @p what if the product does
/// not fit in a std::size_t.
std::size_t checked_bytes(std::size_t count, std::size_t element_size, const char* what);

/// Frees memory from device_allocate(); never throws (it runs in destructors).
void device_free(void* pointer) noexcept;

/// Throws course::CudaError, before anything is allocated, if @p count elements of
/// @p element_size bytes exceed the device's free memory (or a 64-bit byte count), naming both
/// numbers and @p what needs them.
void require_device_memory(std::size_t count, std::size_t element_size, const char* what);

/// The byte pattern that device buffers are poisoned with: every float becomes a quiet NaN, so an
/// element the kernel forgot to write fails the check.
constexpr int kPoisonByte = 0xFF;

/// A device array of @p T that frees itself. Move-only.
template <typename T>
class DeviceBuffer {
 public:
  /// An empty buffer (no allocation).
  DeviceBuffer() = default;
  /// Allocates room for @p count elements; @p what names the buffer in error messages.
  explicit DeviceBuffer(std::size_t count, const char* what = "device buffer")
      : data_(static_cast<T*>(device_allocate(checked_bytes(count, sizeof(T), what), what))),
        count_(count) {}
  /// Allocates and uploads @p host.
  explicit DeviceBuffer(const std::vector<T>& host, const char* what = "device buffer")
      : DeviceBuffer(host.size(), what) {
    upload(host);
  }
  ~DeviceBuffer() { device_free(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// Takes over @p other's allocation.
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  /// Frees this allocation and takes over @p other's.
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      device_free(data_);
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  /// Device pointer to the first element.
  T* data() { return data_; }
  /// Device pointer to the first element.
  const T* data() const { return data_; }
  /// Number of elements.
  std::size_t size() const { return count_; }
  /// Size in bytes.
  std::size_t bytes() const { return count_ * sizeof(T); }

  /// Copies @p host (whose size must equal size()) to the device.
  void upload(const std::vector<T>& host);
  /// Copies the whole buffer back to the host.
  std::vector<T> download() const;
  /// Copies the whole buffer into @p host, resized to size().
  void download(std::vector<T>& host) const;
  /// Fills every byte with kPoisonByte (NaN for floats) so unwritten outputs are detected.
  void poison();

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// The members' definitions: templates, so they live in the header.

template <typename T>
void DeviceBuffer<T>::upload(const std::vector<T>& host) {
  if (host.size() != count_)
    throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
  COURSE_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
}

template <typename T>
void DeviceBuffer<T>::download(std::vector<T>& host) const {
  host.resize(count_);
  COURSE_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
}

template <typename T>
std::vector<T> DeviceBuffer<T>::download() const {
  std::vector<T> host;
  download(host);
  return host;
}

template <typename T>
void DeviceBuffer<T>::poison() {
  COURSE_CUDA_CHECK(cudaMemset(data_, kPoisonByte, bytes()));
}

}  // namespace course
