/// @file measure.hpp
/// @brief One measurement, as every executable and the ladder make it: a problem at one size with
/// seeded inputs on the device (ProblemInstance), and measure(), which runs a set of launchers on
/// it once with checks, times it, and compares the output with the CPU reference.
#pragma once

#include "course/cli.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/problems.hpp"
#include "course/report.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace course {

/// The workload of @p problem at the sizes in @p options.
Workload requested_workload(Problem problem, const Options& options);

/// One problem at one size: the seeded inputs on the host and the device, and an output buffer.
class ProblemInstance {
 public:
  /// Draws the inputs of @p workload (seeded by @p seed) and uploads them. Throws
  /// course::CudaError, before allocating, if they would not fit.
  ProblemInstance(const Workload& workload, std::uint64_t seed);

  /// Runs @p set's launcher for this problem once on @p stream, writing the output buffer.
  void launch(const ProblemSet& set, cudaStream_t stream) const;
  /// The checked run: poisons the output buffer, clears the launch log, runs @p set's launcher once
  /// with synchronous launch checks (so an error is reported at the launch that caused it), and
  /// returns the output. launch_log() then holds what was launched.
  std::vector<float> checked_run(const ProblemSet& set, cudaStream_t stream) const;
  /// Compares @p output with the CPU reference; a matmul with the tolerance of @p arithmetic.
  CheckResult check(const std::vector<float>& output,
                    Arithmetic arithmetic = Arithmetic::fp32) const;

  /// The problem.
  Problem problem() const { return workload_.problem; }
  /// Sizes as reported, e.g. "m=4096 n=4096 k=4096".
  std::string sizes() const;
  /// Fills the rate fields of @p result for this problem's sizes (course::fill_rate).
  void fill_rate(RunResult& result, const DeviceInfo& device, Arithmetic arithmetic) const;
  /// Columns of the output (for (row, column) in messages).
  std::size_t output_columns() const;

 private:
  Workload workload_;
  std::uint64_t seed_;
  std::vector<float> host_first_;
  std::vector<float> host_second_;
  DeviceBuffer<float> first_;
  DeviceBuffer<float> second_;
  mutable DeviceBuffer<float> output_;
};

/// Runs, times and (when options.check) checks @p set on @p instance, and times the previous
/// chapter's @p previous set too when it offers the problem and options.compare is set.
RunResult measure(const ProblemInstance& instance, const ProblemSet& set, const Options& options,
                  const DeviceInfo& device, cudaStream_t stream,
                  const ProblemSet* previous = nullptr);

}  // namespace course
