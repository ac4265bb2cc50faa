/// @file timing.hpp
/// @brief Timing GPU work with CUDA events: warm-up runs, then repeated timed runs.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace course {

/// Summary of repeated timings, in milliseconds.
struct TimingStats {
  double median_ms = 0;  ///< median of the timed runs: the figure every report quotes
  double min_ms = 0;     ///< fastest run
  double max_ms = 0;     ///< slowest run
  int runs = 0;          ///< number of timed runs
};

/// Median, minimum and maximum of @p samples_ms (which must not be empty).
TimingStats summarize(std::vector<double> samples_ms);

/// Runs @p work @p warmup times untimed, then @p runs times, each between two CUDA events
/// recorded on @p stream, and returns the summary. @p work must enqueue its GPU work on @p stream.
TimingStats time_on_stream(const std::function<void()>& work, int warmup, int runs,
                           cudaStream_t stream);

/// While one exists, the current device's default memory pool keeps the memory freed into it
/// (`cudaFreeAsync`) instead of handing it back to the device whenever the host synchronises.
/// Launchers that allocate their scratch on every call (`cudaMallocAsync` on their stream) then
/// reuse the pool's memory from their second call on, and a timed run measures the kernels, not a
/// fresh device allocation. When it goes, the pool's release threshold is restored and the memory
/// it keeps is handed back, so the next problem can have all of the device. Does nothing on a
/// device without memory pools (where such launchers fail with a clear error anyway).
class PoolMemoryKept {
 public:
  /// Raises the release threshold of the current device's default pool to its maximum.
  PoolMemoryKept();
  /// Restores the threshold and trims the pool; never throws.
  ~PoolMemoryKept();
  PoolMemoryKept(const PoolMemoryKept&) = delete;
  PoolMemoryKept& operator=(const PoolMemoryKept&) = delete;

 private:
  cudaMemPool_t pool_ = nullptr;
  std::uint64_t previous_threshold_ = 0;
};

}  // namespace course
