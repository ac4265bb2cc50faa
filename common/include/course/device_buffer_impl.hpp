/// @file device_buffer_impl.hpp
/// @brief Member definitions of course::DeviceBuffer (included by device_buffer.hpp).
#pragma once

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"

#include <stdexcept>

namespace course {

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
