#include "course/launch.cuh"

#include "course/cuda_check.hpp"

#include <sstream>
#include <stdexcept>

namespace course {
namespace {

std::vector<LaunchRecord>& mutable_launch_log() {
  static std::vector<LaunchRecord> log;
  return log;
}

bool& synchronous_checks_flag() {
  static bool on = false;
  return on;
}

// Keeps the log from growing without bound when a launcher is timed thousands of times.
constexpr std::size_t kMaxLoggedLaunches = 64;

std::string describe(dim3 d) {
  std::ostringstream out;
  out << "(" << d.x << ", " << d.y << ", " << d.z << ")";
  return out.str();
}

}  // namespace

void require(bool condition, const std::string& message) {
  if (!condition)
    throw std::invalid_argument(message);
}

ComputeCapability current_compute_capability() {
  int device = 0;
  ComputeCapability capability;
  COURSE_CUDA_CHECK(cudaGetDevice(&device));
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&capability.major, cudaDevAttrComputeCapabilityMajor, device));
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&capability.minor, cudaDevAttrComputeCapabilityMinor, device));
  return capability;
}

void require_positive(long long value, const char* name) {
  if (value < 1) {
    std::ostringstream message;
    message << name << " must be at least 1, got " << value;
    throw std::invalid_argument(message.str());
  }
}

dim3 grid_2d(long long width, long long height, dim3 block) {
  const long long gx = ceil_div(width, block.x);
  const long long gy = ceil_div(height, block.y);
  constexpr long long kMaxGridX = 2147483647LL;  // 2^31 - 1 blocks in x
  constexpr long long kMaxGridY = 65535LL;       // and 65535 in y on every CUDA GPU
  if (gx > kMaxGridX || gy > kMaxGridY) {
    std::ostringstream message;
    message << "a " << width << " x " << height << " index space needs a " << gx << " x " << gy
            << " grid of blocks, beyond the device limit of " << kMaxGridX << " x " << kMaxGridY;
    throw std::invalid_argument(message.str());
  }
  return dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
}

std::size_t optin_shared_limit() {
  int device = 0;
  COURSE_CUDA_CHECK(cudaGetDevice(&device));
  int limit = 0;
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(limit);
}

void require_shared_fits(std::size_t bytes, std::size_t device_limit, const std::string& what) {
  require(bytes <= device_limit, what + " needs " + std::to_string(bytes) +
                                     " bytes of shared memory per block, but this device allows "
                                     "at most " +
                                     std::to_string(device_limit) +
                                     " (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
}

dim3 grid_1d(long long count, long long per_block) {
  return grid_2d(count, 1, dim3(static_cast<unsigned>(per_block)));
}

const std::vector<LaunchRecord>& launch_log() {
  return mutable_launch_log();
}

void clear_launch_log() {
  mutable_launch_log().clear();
}

void set_synchronous_launch_checks(bool on) {
  synchronous_checks_flag() = on;
}

bool synchronous_launch_checks() {
  return synchronous_checks_flag();
}

void check_launch(const void* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                  cudaStream_t stream, const char* kernel_expression, const char* file, int line) {
  cudaError_t code = cudaGetLastError();
  const char* phase = "launch of";
  if (code == cudaSuccess && synchronous_launch_checks()) {
    code = cudaStreamSynchronize(stream);
    phase = "execution of";
  }
  if (code != cudaSuccess) {
    std::ostringstream message;
    message << source_relative(file) << ":" << line << ": " << phase << " " << kernel_expression
            << "<<<grid " << describe(grid) << ", block " << describe(block) << ", "
            << dynamic_shared_bytes << " B dynamic shared>>> failed: " << cudaGetErrorName(code)
            << " (" << cudaGetErrorString(code) << ")";
    throw CudaError(message.str(), code);
  }
  auto& log = mutable_launch_log();
  if (log.size() == kMaxLoggedLaunches)
    log.erase(log.begin());
  log.push_back(LaunchRecord{kernel, grid, block, dynamic_shared_bytes});
}

}  // namespace course
