// The performance ladder: every chapter's solution and cuBLAS on the same inputs, side by side.
//
// For each workload (a problem at one size) it draws one set of seeded inputs, then runs every
// chapter that carries the problem, and for matmul the vendor baselines (cuBLAS SGEMM in plain FP32
// and with TF32 tensor cores), through the same measurement as the chapters' executables
// (course::measure: a checked run on a poisoned output, warm-up runs, timed runs, the median).
// Every result is checked against the CPU reference; a FAIL is marked and left out of the tables
// and the plot. It prints each run as it ends and writes the CSV files (the runs with their ratios;
// the course's performance goals, met or missed) from which scripts/results_table.py renders the
// one table: on the console, in the README and on the site.
//
// Exit status (course::ExitStatus): 0 every run passed; 1 a result failed its check; 2 bad command
// line; 3 no CUDA device; 4 a run could not be made (a CUDA error, a size the device refused).

#include "chapters.hpp"
#include "goals.hpp"
#include "options.hpp"
#include "results.hpp"

#include "course/cuda_check.hpp"
#include "course/launch.cuh"
#include "course/measure.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using course::Problem;
using course::Workload;
using ladder::Row;
using ladder::Status;
using Clock = std::chrono::steady_clock;

// A function's static, so that it exists before the first chapter adds itself, whatever the order
// in which the program's static objects are initialized.
std::vector<course::Chapter>& added_chapters() {
  static std::vector<course::Chapter> chapters;
  return chapters;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

long long seconds_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - start).count();
}

/// Checks a cuBLAS call; throws course::CudaError naming the call and the status on failure.
#define LADDER_CUBLAS_CHECK(call)                                                                 \
  do {                                                                                            \
    const cublasStatus_t ladder_status_ = (call);                                                 \
    ::course::check_cublas(static_cast<int>(ladder_status_), cublasGetStatusName(ladder_status_), \
                           #call, __FILE__, __LINE__);                                            \
  } while (false)

void cublas_matmul(cublasHandle_t handle, const float* A, const float* B, float* C, int m, int n,
                   int k, cudaStream_t stream) {
  course::require_positive(m, "m");
  course::require_positive(n, "n");
  course::require_positive(k, "k");
  const float one = 1.0f;
  const float zero = 0.0f;
  LADDER_CUBLAS_CHECK(cublasSetStream(handle, stream));
  // cuBLAS is column-major. A row-major m x n matrix is the same memory as a column-major
  // n x m matrix, its transpose, so row-major C = A * B is column-major C^T = B^T * A^T:
  // pass B first, then A, and swap m and n.
  LADDER_CUBLAS_CHECK(
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n));
  if (course::synchronous_launch_checks())
    COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// The vendor baseline of matmul: row-major C = A * B through cublasSgemm on a handle of its own
/// (destroyed with the last copy of the launcher). With course::Arithmetic::fp32 the handle is set
/// to pedantic FP32 math (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores, no reduced-precision
/// shortcuts), so the baseline computes what the FP32 chapters compute; with
/// course::Arithmetic::tf32 to CUBLAS_TF32_TENSOR_OP_MATH, the baseline of the tensor-core
/// chapters. The arithmetic also decides the tolerance of its check.
course::ProblemSet cublas_sgemm(course::Arithmetic arithmetic) {
  cublasHandle_t created = nullptr;
  LADDER_CUBLAS_CHECK(cublasCreate(&created));
  const std::shared_ptr<cublasContext> handle(
      created, [](cublasHandle_t owned) { (void)cublasDestroy(owned); });
  const cublasMath_t mode =
      arithmetic == course::Arithmetic::tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_PEDANTIC_MATH;
  LADDER_CUBLAS_CHECK(cublasSetMathMode(handle.get(), mode));
  course::ProblemSet set;
  set.matmul = [handle](auto... arguments) { cublas_matmul(handle.get(), arguments...); };
  set.arithmetic = arithmetic;
  return set;
}

/// One implementation the ladder runs: a chapter's solution at its defaults or at its best
/// variant, as its executable runs them, or a cuBLAS baseline.
struct Implementation {
  std::string label;            ///< "ch01" ..., "ch03 dispatch", or a cuBLAS label
  int chapter = 0;              ///< 0 for a baseline
  std::string variant;          ///< the chapter's variant; empty for its main kernels
  course::ProblemSet problems;  ///< its launchers
};

void print_no_device(const std::string& program, const std::string& reason) {
  std::cerr << "error: no CUDA device (" << reason
            << "): the performance ladder needs an NVIDIA GPU.\n"
            << R"(To run it on a machine that has one, from a clone of this repository:
  scripts/ladder.sh                  builds, runs, writes build/results/ and prints the table
  scripts/ladder.sh --update-readme  the same, and records the run in results/ and README.md
or, with a build that exists:
  )" << program
            << R"( --csv ladder.csv --goals-csv ladder_goals.csv
Then bring ladder.csv and ladder_goals.csv back here and run
  scripts/ladder.sh --from-csv ladder.csv [--update-readme]
to draw the plot and write the table from them.
)";
}

/// Writes @p contents, the @p what, to @p path (nothing where the path is empty) and says so;
/// false, having said why, when it could not.
bool write_file(const std::string& path, const std::string& contents, const char* what) {
  if (path.empty())
    return true;
  std::string reason;  // what the file system said, where it refused
  try {
    const std::filesystem::path file(path);
    if (file.has_parent_path())
      std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file);
    out << contents;
    out.close();
    if (out) {
      std::cout << what << " written to " << path << "\n";
      return true;
    }
  } catch (const std::filesystem::filesystem_error& error) {
    reason = std::string(": ") + error.what();
  }
  std::cerr << "error: could not write the " << what << " to " << path << reason << "\n";
  return false;
}

/// Runs @p step; what went wrong, where it threw: the exception's text, or that host memory ran
/// out.
template <typename Step>
std::optional<std::string> failure(Step&& step) {
  try {
    step();
  } catch (const std::bad_alloc&) {
    return "out of host memory for these sizes";
  } catch (const std::exception& error) {
    return error.what();
  }
  return std::nullopt;
}

/// Measures @p problems on @p instance into @p row. Sets @p context_lost when a CUDA error left the
/// device unusable for the runs that follow.
void run_one(Row& row, const course::ProblemInstance& instance, const course::ProblemSet& problems,
             const course::Options& options, const course::DeviceInfo& device, cudaStream_t stream,
             bool& context_lost) {
  const std::optional<std::string> error = failure([&] {
    try {
      row.result = course::measure(instance, problems, options, device, stream);
    } catch (const course::CudaError&) {
      // An error while a kernel ran (an illegal address, say) is sticky: the context is gone.
      if (cudaDeviceSynchronize() != cudaSuccess)
        context_lost = true;
      throw;
    }
  });
  if (error) {
    row.status = Status::error;
    row.message = *error;
    return;
  }
  row.status = row.result.check.passed ? Status::pass : Status::fail;
  if (!row.passed())
    row.message = row.result.check.summary(row.result.output_columns);
}

std::string progress_prefix(std::size_t done, std::size_t total, Clock::time_point start) {
  const int width = static_cast<int>(std::to_string(total).size());
  char text[64];
  std::snprintf(text, sizeof text, "[%*zu/%zu %4llds] ", width, done, total, seconds_since(start));
  return text;
}

/// The chapters asked for (all where @p numbers is empty), each at its defaults and at its best
/// variant, leaving out those this GPU cannot run (chapter 7 off a Hopper), with the reason: their
/// goals are then "not measured".
std::vector<Implementation> chapter_implementations(const std::vector<course::Chapter>& chapters,
                                                    const std::vector<int>& numbers) {
  std::vector<Implementation> implementations;
  for (const course::Chapter& chapter : chapters) {
    if (!numbers.empty() &&
        std::find(numbers.begin(), numbers.end(), chapter.number) == numbers.end())
      continue;
    const std::string refusal = chapter.gpu_refusal ? chapter.gpu_refusal() : "";
    if (!refusal.empty()) {
      std::cout << "chapter " << chapter.number << " left out: " << refusal << "\n";
      continue;
    }
    const auto add = [&](const std::string& variant) {
      implementations.push_back({ladder::implementation_label(chapter.number, variant),
                                 chapter.number, variant,
                                 course::launchers_at_defaults(chapter, variant)});
    };
    add("");
    if (!chapter.best_variant.empty())
      add(chapter.best_variant);
  }
  return implementations;
}

int run_ladder(const ladder::Options& options, const std::string& program) {
  std::vector<course::Chapter> chapters = added_chapters();
  std::sort(chapters.begin(), chapters.end(),
            [](const course::Chapter& a, const course::Chapter& b) { return a.number < b.number; });
  std::vector<int> built;
  for (const course::Chapter& chapter : chapters)
    built.push_back(chapter.number);
  for (int number : options.chapters) {
    if (std::find(built.begin(), built.end(), number) == built.end()) {
      std::cerr << "error: --chapters: there is no chapter " << number << " (this ladder has "
                << course::join(built, ", ") << ")\n";
      return course::kExitUsage;
    }
  }
  std::string reason;
  if (!course::cuda_device_available(&reason)) {
    print_no_device(program, reason);
    return course::kExitNoDevice;
  }
  std::vector<Implementation> implementations = chapter_implementations(chapters, options.chapters);

  const auto offered = [&](const Workload& workload) {
    return std::count_if(
        implementations.begin(), implementations.end(),
        [&](const Implementation& run) { return run.problems.offers(workload.problem); });
  };
  const bool any_matmul =
      std::any_of(options.workloads.begin(), options.workloads.end(),
                  [](const Workload& w) { return w.problem == Problem::matmul; });
  int status = course::kExitPass;
  cudaStream_t stream = nullptr;
  try {
    const course::DeviceInfo device = course::query_device();
    if (any_matmul) {
      implementations.push_back(
          {ladder::kCublasLabel, 0, "", cublas_sgemm(course::Arithmetic::fp32)});
      implementations.push_back(
          {ladder::kCublasTf32Label, 0, "", cublas_sgemm(course::Arithmetic::tf32)});
    }
    std::size_t total = 0;
    for (const Workload& workload : options.workloads)
      total += offered(workload);
    if (total == 0) {
      std::cerr << "error: nothing to run: no chapter in this build carries the problems asked "
                   "for\n";
      return course::kExitUsage;
    }

    const std::string date = today();
    std::cout << "Performance ladder, " << date << "\n"
              << "device    " << device.summary() << "\n";
    if (device.memory_bandwidth() > 0) {
      std::printf("memory    %.0f GB/s (theoretical: 2 x memory clock x bus width)\n",
                  device.memory_bandwidth() / 1e9);
    }
    std::cout << "chapters ";
    for (const Implementation& implementation : implementations) {
      // Each chapter once: its variant (chapter 3 dispatch) is no chapter of its own.
      if (implementation.chapter > 0 && implementation.variant.empty())
        std::cout << " " << implementation.chapter;
    }
    std::cout << " (solutions)\n";
    if (any_matmul) {
      std::cout << "baseline  cuBLAS SGEMM runs with CUBLAS_PEDANTIC_MATH (plain FP32, TF32 tensor "
                   "cores off); cuBLAS TF32 with CUBLAS_TF32_TENSOR_OP_MATH (inputs rounded to "
                   "TF32 on tensor cores)\n";
    }
    std::cout << "runs      " << total << ", each checked against the CPU reference, then "
              << options.base.warmup << " warm-up and " << options.base.reps
              << " timed runs; the median is reported\n\n"
              << std::flush;

    COURSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const Clock::time_point start = Clock::now();
    const std::string context_gone = "not run: the CUDA context was lost after an earlier error";
    std::vector<Row> rows;
    bool context_lost = false;
    std::size_t done = 0;
    for (const Workload& workload : options.workloads) {
      if (offered(workload) == 0)
        continue;
      const std::string title =
          std::string(course::problem_name(workload.problem)) + " " + ladder::size_label(workload);
      std::optional<course::ProblemInstance> instance;
      std::optional<std::string> setup_error;
      if (!context_lost) {
        std::cout << progress_prefix(done, total, start) << title
                  << ": drawing and uploading the inputs\n"
                  << std::flush;
        setup_error = failure([&] { instance.emplace(workload, options.base.seed); });
      }
      for (const Implementation& implementation : implementations) {
        if (!implementation.problems.offers(workload.problem))
          continue;
        std::printf("%s%-28s %-13s", progress_prefix(++done, total, start).c_str(), title.c_str(),
                    implementation.label.c_str());
        std::fflush(stdout);
        Row row;
        row.date = date;
        row.workload = workload;
        row.implementation = implementation.label;
        row.chapter = implementation.chapter;
        row.variant = implementation.variant;
        row.arithmetic = implementation.problems.arithmetic;
        row.ceiling = course::ceiling(workload, device, row.arithmetic);
        if (context_lost)
          setup_error = context_gone;
        if (setup_error) {
          row.status = Status::error;
          row.message = *setup_error;
        } else {
          run_one(row, *instance, implementation.problems, options.base, device, stream,
                  context_lost);
        }
        if (row.passed()) {
          std::printf(" %10.3f ms %10s %-9s PASS\n", row.result.timing.median_ms,
                      ladder::format_rate(row.result.rate).c_str(),
                      course::rate_unit(workload.problem));
        } else {
          const std::string status_text = ladder::status_name(row.status);
          const bool says_status = row.message.compare(0, status_text.size(), status_text) == 0;
          std::printf(" %s%s\n", says_status ? "" : (status_text + ": ").c_str(),
                      row.message.c_str());
        }
        std::fflush(stdout);
        rows.push_back(row);
      }
    }
    std::cout << "\nAll " << total << " runs done in " << seconds_since(start) << " s.\n\n";
    (void)cudaStreamDestroy(stream);
    stream = nullptr;

    ladder::compute_ratios(rows);
    const std::vector<ladder::GoalResult> goals =
        ladder::evaluate_goals(ladder::performance_goals(), rows);
    std::ostringstream results_csv;
    std::ostringstream goals_csv;
    ladder::write_csv(results_csv, rows, device.name);
    ladder::write_goals_csv(goals_csv, goals);
    if (!write_file(options.csv_path, results_csv.str(), "results CSV"))
      status = course::kExitError;
    if (!write_file(options.goals_csv_path, goals_csv.str(), "goals CSV"))
      status = course::kExitError;

    const auto count = [&](Status wanted) {
      return std::count_if(rows.begin(), rows.end(),
                           [&](const Row& row) { return row.status == wanted; });
    };
    const auto goals_with = [&](const std::string& verdict) {
      return std::count_if(goals.begin(), goals.end(), [&](const ladder::GoalResult& goal) {
        return goal.verdict() == verdict;
      });
    };
    std::cout << "ladder: " << count(Status::pass) << " results, " << count(Status::fail)
              << " FAIL, " << count(Status::error) << " ERROR; goals: " << goals_with("met")
              << " met, " << goals_with("missed") << " missed, " << goals_with("not measured")
              << " not measured\n";
    if (options.csv_path.empty()) {
      std::cout << "For the table and the goals, run with --csv FILE --goals-csv GOALS and then\n"
                << "  scripts/update_results_table.py FILE --goals GOALS --print\n"
                << "(scripts/ladder.sh does both).\n";
    }
    if (count(Status::fail) > 0) {
      status = course::kExitCheckFailed;
    } else if (count(Status::error) > 0) {
      status = course::kExitError;
    }
  } catch (const std::exception& error) {
    if (stream != nullptr)
      (void)cudaStreamDestroy(stream);
    std::cerr << "error: " << error.what() << "\n";
    return course::kExitError;
  }
  return status;
}

}  // namespace

bool ladder::add_chapter(const course::Chapter& chapter) {
  added_chapters().push_back(chapter);
  return true;
}

int main(int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "ladder";
  ladder::Options options;
  try {
    options = ladder::parse_command_line(argc, argv);
  } catch (const course::UsageError& error) {
    std::cerr << "error: " << error.what() << "\nrun '" << program << " --help' for the flags\n";
    return course::kExitUsage;
  }
  if (options.help) {
    std::cout << ladder::usage(program);
    return course::kExitPass;
  }
  return run_ladder(options, program);
}
