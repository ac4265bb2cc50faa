#include "course/driver.hpp"

#include "course/cuda_check.hpp"
#include "course/describe.hpp"
#include "course/random.hpp"
#include "course/signal_demo.hpp"

#include <iostream>
#include <new>
#include <sstream>
#include <stdexcept>

namespace course {
namespace {

// Seeds of the two inputs of a problem: one stream each, so A and B are unrelated.
constexpr std::uint64_t kFirstInputStream = 1;
constexpr std::uint64_t kSecondInputStream = 2;
constexpr std::uint64_t kSampleStream = 3;

std::size_t element_count(Problem problem, const Options& o, int which) {
  // which: 0 first input, 1 second input, 2 output
  const std::size_t m = o.m, n = o.n, k = o.k;
  switch (problem) {
    case Problem::matmul:
    case Problem::minplus:
      return which == 0 ? m * k : which == 1 ? k * n : m * n;
    case Problem::conv2d:
      return which == 1 ? static_cast<std::size_t>(o.mask_rows) * o.mask_cols
                        : static_cast<std::size_t>(o.height) * o.width;
    case Problem::conv1d:
      return which == 0   ? static_cast<std::size_t>(o.signal_length)
             : which == 1 ? static_cast<std::size_t>(o.taps)
                          : static_cast<std::size_t>(o.signal_length) + o.taps - 1;
  }
  return 0;
}

std::vector<float> draw_input(Problem problem, const Options& o, int which) {
  const std::size_t count = element_count(problem, o, which);
  const std::uint64_t seed =
      derive_seed(o.seed, which == 0 ? kFirstInputStream : kSecondInputStream);
  if (problem == Problem::minplus)
    return random_distances(count, seed);
  return random_uniform(count, seed);
}

std::string join_exercises(const Chapter& chapter, Problem problem) {
  std::ostringstream out;
  bool first = true;
  for (const Exercise& exercise : chapter.exercises) {
    if (problem_name(problem) != std::string(exercise.problem))
      continue;
    out << (first ? "" : ", ") << exercise.id << " (" << exercise.task << ")";
    first = false;
  }
  return out.str();
}

}  // namespace

ProblemInstance::ProblemInstance(Problem problem, const Options& options)
    : problem_(problem), options_(options) {
  const std::size_t elements = element_count(problem, options, 0) +
                               element_count(problem, options, 1) +
                               element_count(problem, options, 2);
  const std::string what = std::string(problem_name(problem)) + " at " + sizes();
  require_device_memory(elements, sizeof(float), what.c_str());
  host_first_ = draw_input(problem, options, 0);
  host_second_ = draw_input(problem, options, 1);
  first_ = DeviceBuffer<float>(host_first_, "the first input");
  second_ = DeviceBuffer<float>(host_second_, "the second input");
  output_ = DeviceBuffer<float>(element_count(problem, options, 2), "the output");
}

void ProblemInstance::launch(const ProblemSet& set, const LaunchOptions& launch_options,
                             cudaStream_t stream) const {
  const Options& o = options_;
  switch (problem_) {
    case Problem::matmul:
      set.matmul(first_.data(), second_.data(), output_.data(), o.m, o.n, o.k, stream,
                 launch_options);
      break;
    case Problem::minplus:
      set.minplus(first_.data(), second_.data(), output_.data(), o.m, o.n, o.k, stream,
                  launch_options);
      break;
    case Problem::conv2d:
      set.conv2d(first_.data(), o.height, o.width, second_.data(), o.mask_rows, o.mask_cols,
                 output_.data(), stream, launch_options);
      break;
    case Problem::conv1d:
      set.conv1d(first_.data(), o.signal_length, second_.data(), o.taps, output_.data(), stream,
                 launch_options);
      break;
  }
}

std::vector<float> ProblemInstance::checked_run(const ProblemSet& set,
                                                const LaunchOptions& launch_options,
                                                cudaStream_t stream) const {
  output_.poison();
  clear_launch_log();
  set_synchronous_launch_checks(true);
  try {
    launch(set, launch_options, stream);
  } catch (...) {
    set_synchronous_launch_checks(false);
    throw;
  }
  set_synchronous_launch_checks(false);
  COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return output_.download();
}

CheckResult ProblemInstance::check(const std::vector<float>& output) const {
  const Options& o = options_;
  const std::uint64_t seed = derive_seed(o.seed, kSampleStream);
  switch (problem_) {
    case Problem::matmul:
      return check_matmul(host_first_, host_second_, output, o.m, o.n, o.k, seed);
    case Problem::minplus:
      return check_minplus(host_first_, host_second_, output, o.m, o.n, o.k, seed);
    case Problem::conv2d:
      return check_conv2d(host_first_, o.height, o.width, host_second_, o.mask_rows, o.mask_cols,
                          output, seed);
    case Problem::conv1d:
      return check_conv1d(host_first_, o.signal_length, host_second_, o.taps, output, seed);
  }
  return {};
}

std::string ProblemInstance::sizes() const {
  const Options& o = options_;
  std::ostringstream out;
  switch (problem_) {
    case Problem::matmul:
    case Problem::minplus:
      out << "m=" << o.m << " n=" << o.n << " k=" << o.k;
      break;
    case Problem::conv2d:
      out << "image " << o.height << "x" << o.width << " mask " << o.mask_rows << "x"
          << o.mask_cols;
      break;
    case Problem::conv1d:
      out << "n=" << o.signal_length << " taps=" << o.taps;
      break;
  }
  return out.str();
}

void ProblemInstance::fill_rate(RunResult& result, const DeviceInfo& device) const {
  const Options& o = options_;
  switch (problem_) {
    case Problem::matmul:
    case Problem::minplus:
      course::fill_rate(result, device, o.m, o.n, o.k);
      break;
    case Problem::conv2d:
      course::fill_rate(result, device, o.height, o.width,
                        static_cast<double>(o.mask_rows) * o.mask_cols);
      break;
    case Problem::conv1d:
      course::fill_rate(result, device, o.signal_length, o.taps, 0);
      break;
  }
}

std::size_t ProblemInstance::output_columns() const {
  switch (problem_) {
    case Problem::matmul:
    case Problem::minplus:
      return static_cast<std::size_t>(options_.n);
    case Problem::conv2d:
      return static_cast<std::size_t>(options_.width);
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

  const std::vector<float> output = instance.checked_run(set, options.launch, stream);
  for (const LaunchRecord& launch : launch_log())
    result.kernels.push_back(query_kernel(launch));

  result.timing = time_on_stream([&] { instance.launch(set, options.launch, stream); },
                                 options.warmup, options.reps, stream);
  if (options.compare && previous != nullptr && previous->offers(instance.problem())) {
    try {
      const TimingStats before =
          time_on_stream([&] { instance.launch(*previous, LaunchOptions{}, stream); },
                         options.warmup, options.reps, stream);
      result.previous_ms = before.median_ms;
    } catch (const std::invalid_argument&) {
      // The previous chapter does not take these sizes (chapter 2 compiles only some masks):
      // there is no speedup to report.
      result.previous_ms = 0;
    }
  }
  instance.fill_rate(result, device);
  if (options.check) {
    result.checked = true;
    result.check = instance.check(output);
  }
  return result;
}

std::string describe_variant(Problem problem, const Options& options, const ChapterFlags& flags) {
  std::ostringstream out;
  const bool product = problem == Problem::matmul || problem == Problem::minplus;
  if (product && flags.mapping) {
    out << "mapping="
        << (options.launch.mapping == ThreadMapping::coalesced ? "coalesced" : "transposed");
  }
  if (product && !flags.tiles.empty()) {
    out << "tile=" << (options.launch.tile != 0 ? options.launch.tile : flags.tiles.front());
  }
  if (problem == Problem::conv2d && !flags.blocks.empty()) {
    out << "block=" << (options.launch.block != 0 ? options.launch.block : flags.blocks.front());
  }
  return out.str();
}

int run_chapter(const Chapter& chapter, int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "chapter";
  Options options;
  try {
    options = parse_options(argc, argv, chapter.flags);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n"
              << "run '" << program << " --help' for the flags\n";
    return kExitUsage;
  }
  // What the chapter takes, described from the lists the parser and the checks below refuse with.
  const ChapterSupport support = describe_support(chapter.number, chapter.problems, chapter.flags);
  if (options.help || options.supports_table || options.list_exercises) {
    if (options.help)
      std::cout << usage(program, chapter.flags) << "\n" << support_help(support);
    if (options.supports_table)
      std::cout << support_table_header() << support_table_row(support);
    if (options.list_exercises)
      std::cout << exercise_list(chapter.exercises);
    return kExitPass;
  }
  std::vector<Problem> problems = options.problems;
  if (problems.empty()) {
    for (Problem problem : kAllProblems) {
      if (chapter.problems.offers(problem))
        problems.push_back(problem);
    }
  }
  for (Problem problem : problems) {
    if (!chapter.problems.offers(problem)) {
      std::cerr << "error: --problem: chapter " << chapter.number << " has no "
                << problem_name(problem) << " kernel\n";
      return kExitUsage;
    }
  }
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::cerr << "error: no CUDA device available (" << reason
              << "); this executable needs an NVIDIA GPU\n";
    return kExitNoDevice;
  }

  int status = kExitPass;
  cudaStream_t stream = nullptr;
  try {
    const DeviceInfo device = query_device();
    COURSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (!options.signal_csv.empty()) {
      status = run_signal_demo(chapter.problems.conv1d, options.signal_csv, stream, std::cout);
      COURSE_CUDA_CHECK(cudaStreamDestroy(stream));
      return status;
    }
    if (options.csv) {
      std::cout << csv_header() << "\n";
    } else {
      std::cout << "Chapter " << chapter.number << ": " << chapter.title << " ("
                << (chapter.solution ? "solution" : "your kernels") << ")\n"
                << "device   " << device.summary() << "\n"
                << "inputs   seed " << options.seed << ", " << options.warmup << " warm-up and "
                << options.reps << " timed runs per kernel\n\n";
    }
    const ProblemSet* previous = chapter.previous.matmul || chapter.previous.minplus ||
                                         chapter.previous.conv2d || chapter.previous.conv1d
                                     ? &chapter.previous
                                     : nullptr;
    for (Problem problem : problems) {
      if (!options.csv)
        std::cout << std::flush;
      const ProblemInstance instance(problem, options);
      RunResult result = measure(instance, chapter.problems, options, device, stream, previous);
      result.chapter = chapter.number;
      const int previous_number = chapter.previous_numbers[static_cast<int>(problem)];
      result.previous_chapter = previous_number != 0 ? previous_number : chapter.number - 1;
      result.solution = chapter.solution;
      result.variant = describe_variant(problem, options, chapter.flags);
      if (options.csv) {
        std::cout << csv_line(result) << "\n";
      } else {
        print_report(std::cout, result);
        std::cout << "\n";
      }
      if (!result.ok()) {
        status = kExitCheckFailed;
        const std::string exercises = join_exercises(chapter, problem);
        if (!chapter.solution && !exercises.empty()) {
          std::cerr << "hint: " << problem_name(problem) << " is computed by EXERCISE " << exercises
                    << " in " << chapter.kernels_file << "\n";
        }
      }
    }
    COURSE_CUDA_CHECK(cudaStreamDestroy(stream));
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory for these sizes\n";
    return kExitError;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitError;
  }
  return status;
}

}  // namespace course
