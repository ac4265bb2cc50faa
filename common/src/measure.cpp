#include "course/measure.hpp"

#include "course/cuda_check.hpp"
#include "course/random.hpp"
#include "course/timing.hpp"

#include <sstream>
#include <stdexcept>

namespace course {
namespace {

// Seeds of the two inputs of a problem: one stream each, so A and B are unrelated.
constexpr std::uint64_t kFirstInputStream = 1;
constexpr std::uint64_t kSecondInputStream = 2;
constexpr std::uint64_t kSampleStream = 3;

std::size_t element_count(const Workload& w, int which) {
  // which: 0 first input, 1 second input, 2 output
  const std::size_t m = w.m, n = w.n, k = w.k;
  switch (w.problem) {
    case Problem::matmul:
    case Problem::minplus:
      return which == 0 ? m * k : which == 1 ? k * n : m * n;
    case Problem::conv2d:
      return which == 1 ? static_cast<std::size_t>(w.mask_rows) * w.mask_cols
                        : static_cast<std::size_t>(w.height) * w.width;
    case Problem::conv1d:
      return which == 0   ? static_cast<std::size_t>(w.signal_length)
             : which == 1 ? static_cast<std::size_t>(w.taps)
                          : static_cast<std::size_t>(w.signal_length) + w.taps - 1;
  }
  return 0;
}

std::vector<float> draw_input(const Workload& workload, std::uint64_t seed, int which) {
  const std::size_t count = element_count(workload, which);
  const std::uint64_t input_seed =
      derive_seed(seed, which == 0 ? kFirstInputStream : kSecondInputStream);
  if (workload.problem == Problem::minplus)
    return random_distances(count, input_seed);
  return random_uniform(count, input_seed);
}

}  // namespace

Workload requested_workload(Problem problem, const Options& options) {
  switch (problem) {
    case Problem::matmul:
    case Problem::minplus:
      return product_workload(problem, options.m, options.n, options.k);
    case Problem::conv2d:
      return conv2d_workload(options.height, options.width, options.mask_rows, options.mask_cols);
    case Problem::conv1d:
      return conv1d_workload(options.signal_length, options.taps);
  }
  return {};
}

ProblemInstance::ProblemInstance(const Workload& workload, std::uint64_t seed)
    : workload_(workload), seed_(seed) {
  const std::size_t elements =
      element_count(workload, 0) + element_count(workload, 1) + element_count(workload, 2);
  const std::string what = std::string(problem_name(workload.problem)) + " at " + sizes();
  require_device_memory(elements, sizeof(float), what.c_str());
  host_first_ = draw_input(workload, seed, 0);
  host_second_ = draw_input(workload, seed, 1);
  first_ = DeviceBuffer<float>(host_first_, "the first input");
  second_ = DeviceBuffer<float>(host_second_, "the second input");
  output_ = DeviceBuffer<float>(element_count(workload, 2), "the output");
}

void ProblemInstance::launch(const ProblemSet& set, cudaStream_t stream) const {
  const Workload& w = workload_;
  switch (w.problem) {
    case Problem::matmul:
      set.matmul(first_.data(), second_.data(), output_.data(), w.m, w.n, w.k, stream);
      break;
    case Problem::minplus:
      set.minplus(first_.data(), second_.data(), output_.data(), w.m, w.n, w.k, stream);
      break;
    case Problem::conv2d:
      set.conv2d(first_.data(), w.height, w.width, second_.data(), w.mask_rows, w.mask_cols,
                 output_.data(), stream);
      break;
    case Problem::conv1d:
      set.conv1d(first_.data(), w.signal_length, second_.data(), w.taps, output_.data(), stream);
      break;
  }
}

std::vector<float> ProblemInstance::checked_run(const ProblemSet& set, cudaStream_t stream) const {
  output_.poison();
  clear_launch_log();
  set_synchronous_launch_checks(true);
  try {
    launch(set, stream);
  } catch (...) {
    set_synchronous_launch_checks(false);
    throw;
  }
  set_synchronous_launch_checks(false);
  COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return output_.download();
}

CheckResult ProblemInstance::check(const std::vector<float>& output, Arithmetic arithmetic) const {
  const Workload& w = workload_;
  const std::uint64_t seed = derive_seed(seed_, kSampleStream);
  switch (w.problem) {
    case Problem::matmul:
      return check_matmul(host_first_, host_second_, output, w.m, w.n, w.k, seed, arithmetic);
    case Problem::minplus:
      return check_minplus(host_first_, host_second_, output, w.m, w.n, w.k, seed);
    case Problem::conv2d:
      return check_conv2d(host_first_, w.height, w.width, host_second_, w.mask_rows, w.mask_cols,
                          output, seed);
    case Problem::conv1d:
      return check_conv1d(host_first_, w.signal_length, host_second_, w.taps, output, seed);
  }
  return {};
}

std::string ProblemInstance::sizes() const {
  const Workload& w = workload_;
  std::ostringstream out;
  switch (w.problem) {
    case Problem::matmul:
    case Problem::minplus:
      out << "m=" << w.m << " n=" << w.n << " k=" << w.k;
      break;
    case Problem::conv2d:
      out << "image " << w.height << "x" << w.width << " mask " << w.mask_rows << "x"
          << w.mask_cols;
      break;
    case Problem::conv1d:
      out << "n=" << w.signal_length << " taps=" << w.taps;
      break;
  }
  return out.str();
}

void ProblemInstance::fill_rate(RunResult& result, const DeviceInfo& device,
                                Arithmetic arithmetic) const {
  course::fill_rate(result, device, workload_, arithmetic);
}

std::size_t ProblemInstance::output_columns() const {
  switch (workload_.problem) {
    case Problem::matmul:
    case Problem::minplus:
      return static_cast<std::size_t>(workload_.n);
    case Problem::conv2d:
      return static_cast<std::size_t>(workload_.width);
    case Problem::conv1d:
      return 0;
  }
  return 0;
}

RunResult measure(const ProblemInstance& instance, const ProblemSet& set, const Options& options,
                  const DeviceInfo& device, cudaStream_t stream, const ProblemSet* previous) {
  RunResult result;
  result.device = device.name;
  result.problem = instance.problem();
  result.sizes = instance.sizes();
  result.output_columns = instance.output_columns();
  result.against = options.against;

  // Launchers that allocate scratch per call reuse the pool's memory in the timed runs.
  const PoolMemoryKept pool_memory;
  const std::vector<float> output = instance.checked_run(set, stream);
  for (const LaunchRecord& launch : launch_log())
    result.kernels.push_back(query_kernel(launch));

  result.timing =
      time_on_stream([&] { instance.launch(set, stream); }, options.warmup, options.reps, stream);
  if (options.compare && previous != nullptr && previous->offers(instance.problem())) {
    try {
      // The previous chapter may be the student's own, unfinished: a speedup over a wrong answer
      // means nothing, so it is checked first (against the same reference) and timed only if
      // it passes.
      result.previous_failed =
          options.check &&
          !instance.check(instance.checked_run(*previous, stream), previous->arithmetic).passed;
      if (!result.previous_failed) {
        const TimingStats before = time_on_stream([&] { instance.launch(*previous, stream); },
                                                  options.warmup, options.reps, stream);
        result.previous_ms = before.median_ms;
      }
    } catch (const std::invalid_argument&) {
      // The previous chapter does not take these sizes (it compiled only some masks):
      // there is no speedup to report.
      result.previous_ms = 0;
      result.previous_failed = false;
    } catch (const CudaError& error) {
      throw CudaError(std::string(error.what()) +
                          " (while running the previous chapter for the speedup; --no-compare "
                          "skips it)",
                      error.code());
    }
  }
  instance.fill_rate(result, device, set.arithmetic);
  if (options.check) {
    result.checked = true;
    result.check = instance.check(output, set.arithmetic);
  }
  return result;
}

}  // namespace course
