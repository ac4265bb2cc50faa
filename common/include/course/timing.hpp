/// @file timing.hpp
/// @brief Timing GPU work with CUDA events: warm-up runs, then repeated timed runs.
#pragma once

#include <cuda_runtime.h>

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

}  // namespace course
