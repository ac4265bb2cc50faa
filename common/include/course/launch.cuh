/// @file launch.cuh
/// @brief What every launcher needs: ceiling division, grid limits, argument checks, the shared
/// memory opt-in, and a launch check that records which kernel ran with which geometry.
#pragma once

#include <cuda_runtime.h>

#include "course/cuda_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace course {

/// Ceiling division for non-negative sizes: the number of blocks of @p block that cover @p count.
/// Truncating division would leave the last partial tile unprocessed.
constexpr long long ceil_div(long long count, long long block) {
  return (count + block - 1) / block;
}

/// Throws std::invalid_argument with @p message when @p condition is false. Unlike `assert`, this
/// check stays in Release builds.
void require(bool condition, const std::string& message);

/// Checks that a size passed to a launcher is at least 1; @p name is used in the message.
void require_positive(long long value, const char* name);

/// The current device's compute capability, as "major.minor" and its major part.
struct ComputeCapability {
  int major = 0;  ///< e.g. 9 for a Hopper
  int minor = 0;  ///< e.g. 0
  /// "9.0".
  std::string text() const { return std::to_string(major) + "." + std::to_string(minor); }
};

/// The compute capability of the current device.
ComputeCapability current_compute_capability();

/// The grid that covers a @p width x @p height index space with blocks of @p block threads, by
/// ceiling division. Throws std::invalid_argument if the grid exceeds the device's grid limits
/// (65535 blocks in y and z).
dim3 grid_2d(long long width, long long height, dim3 block);

/// The 1D grid that covers @p count items with @p per_block items per block.
dim3 grid_1d(long long count, long long per_block);

/// Dynamic shared memory every block may use without opting in.
inline constexpr std::size_t kDefaultSharedLimit = 48 * 1024;

/// Whether a block asking for @p bytes of dynamic shared memory must opt in first.
constexpr bool needs_opt_in(std::size_t bytes) {
  return bytes > kDefaultSharedLimit;
}

/// The most shared memory a block may have on the current device once its kernel opts in
/// (cudaDevAttrMaxSharedMemoryPerBlockOptin).
std::size_t optin_shared_limit();

/// Throws std::invalid_argument, naming both numbers and @p what, when @p bytes of shared memory
/// per block exceed @p device_limit (optin_shared_limit()). A host function, so the refusal is
/// testable without a GPU.
void require_shared_fits(std::size_t bytes, std::size_t device_limit, const std::string& what);

/// One kernel launch as seen by the launch check: the kernel and its geometry. The drivers use it
/// to report registers, shared memory and occupancy of what actually ran.
struct LaunchRecord {
  const void* kernel = nullptr;          ///< host-side handle of the `__global__` function
  dim3 grid;                             ///< grid dimensions of the launch
  dim3 block;                            ///< block dimensions of the launch
  std::size_t dynamic_shared_bytes = 0;  ///< the third launch parameter
};

/// The launches checked since the log was last cleared, oldest first.
const std::vector<LaunchRecord>& launch_log();

/// Empties the launch log.
void clear_launch_log();

/// When on, every launch check also waits for the kernel to finish, so errors that happen while it
/// runs (an illegal address, say) are reported at the launch that caused them. The drivers turn it
/// on for the checked run and off for timed runs, which it would slow down.
void set_synchronous_launch_checks(bool on);

/// Whether launch checks currently wait for the kernel (see set_synchronous_launch_checks()).
bool synchronous_launch_checks();

/// Implementation of COURSE_CHECK_LAUNCH: checks for a launch error (and, when synchronous checks
/// are on, for an error while running), then records the launch.
void check_launch(const void* kernel, dim3 grid, dim3 block, std::size_t dynamic_shared_bytes,
                  cudaStream_t stream, const char* kernel_expression, const char* file, int line);

/// Gets @p kernel ready for a launch with @p bytes of dynamic shared memory: refuses a size
/// beyond the device's limit (require_shared_fits()) and opts in above kDefaultSharedLimit by
/// raising the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. For kernels whose shared
/// memory is all dynamic, so that the whole limit is theirs.
template <typename... Args>
void prepare_dynamic_shared(void (*kernel)(Args...), std::size_t bytes, const std::string& what) {
  require_shared_fits(bytes, optin_shared_limit(), what);
  if (needs_opt_in(bytes)) {
    COURSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(bytes)));
  }
}

}  // namespace course

/// Place right after `kernel<<<grid, block, shared_bytes, stream>>>(...)`. Throws
/// course::CudaError naming the kernel, the geometry and the source line if the launch failed,
/// and records the launch for the resource report.
#define COURSE_CHECK_LAUNCH(kernel, grid, block, shared_bytes, stream)                           \
  ::course::check_launch(reinterpret_cast<const void*>(kernel), (grid), (block), (shared_bytes), \
                         (stream), #kernel, __FILE__, __LINE__)
