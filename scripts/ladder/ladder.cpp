// The performance ladder: every chapter's solution and cuBLAS on the same inputs, side by side.
//
// For each workload (a problem at one size) it draws one set of seeded inputs, then runs every
// chapter that carries the problem, and cuBLAS SGEMM for matmul, through the same measurement as
// the chapters' executables (course::measure: a checked run on a poisoned output, warm-up runs,
// timed runs, the median). Every result is checked against the CPU reference; a FAIL is marked
// and left out of the tables and the plot. It prints each run as it ends and writes the CSV files
// (the runs with their ratios; the course's performance goals, met or missed) from which
// scripts/results_table.py renders the one table: on the console, in the README and on the site.
//
// Exit status (course::ExitStatus): 0 every run passed; 1 a result failed its check; 2 bad command
// line; 3 no CUDA device; 4 a run could not be made (a CUDA error, a size the device refused).

#include "chapters.hpp"
#include "cublas_sgemm.hpp"
#include "goals.hpp"
#include "options.hpp"
#include "results.hpp"
#include "workloads.hpp"

#include "course/cuda_check.hpp"
#include "course/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
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

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &local);
  return text;
}

/// One implementation the ladder can run: a chapter's solutions, a chapter's variant, or the
/// baseline.
struct Implementation {
  std::string label;                         ///< "ch01" ..., "ch03 dispatch", or "cuBLAS"
  int chapter = 0;                           ///< 0 for the baseline
  std::string variant;                       ///< the chapter's variant; empty for its main kernels
  course::ProblemSet problems;               ///< its launchers
  std::function<std::string()> gpu_refusal;  ///< why this GPU cannot run it (may be unset)
};

/// One planned run: an implementation on a workload.
struct PlannedRun {
  std::size_t workload = 0;        ///< index into the workloads
  std::size_t implementation = 0;  ///< index into the implementations
};

void print_no_device(const std::string& program, const std::string& reason) {
  std::cerr
      << "error: no CUDA device (" << reason << "): the performance ladder needs an NVIDIA GPU.\n"
      << "To run it on a machine that has one, from a clone of this repository:\n"
      << "  scripts/ladder.sh                  builds, runs, writes build/results/ and prints "
         "the table\n"
      << "  scripts/ladder.sh --update-readme  the same, and records the run in results/ and "
         "README.md\n"
      << "or, with a build that exists:\n"
      << "  " << program << " --csv ladder.csv --goals-csv ladder_goals.csv\n"
      << "Then bring ladder.csv and ladder_goals.csv back here and run\n"
      << "  scripts/ladder.sh --from-csv ladder.csv [--update-readme]\n"
      << "to draw the plot and write the table from them.\n";
}

bool write_file(const std::string& path, const std::string& contents, const char* what) {
  try {
    const std::filesystem::path file(path);
    if (file.has_parent_path())
      std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file);
    out << contents;
    out.close();
    if (!out) {
      std::cerr << "error: could not write the " << what << " to " << path << "\n";
      return false;
    }
  } catch (const std::filesystem::filesystem_error& error) {
    std::cerr << "error: could not write the " << what << " to " << path << ": " << error.what()
              << "\n";
    return false;
  }
  std::cout << what << " written to " << path << "\n";
  return true;
}

/// Runs @p implementation on @p instance and turns the outcome into a row. Sets @p context_lost
/// when a CUDA error left the device unusable for the runs that follow.
Row run_one(const course::ProblemInstance& instance, const Workload& workload,
            const Implementation& implementation, const course::Options& options,
            const course::DeviceInfo& device, cudaStream_t stream, bool& context_lost) {
  Row row;
  row.workload = workload;
  row.implementation = implementation.label;
  row.chapter = implementation.chapter;
  row.variant = implementation.variant;
  row.arithmetic = implementation.problems.arithmetic;
  row.ceiling = course::ceiling(workload, device);
  try {
    row.result = course::measure(instance, implementation.problems, options, device, stream);
    row.result.chapter = implementation.chapter;
    row.result.solution = true;
    row.status = row.result.check.passed ? Status::pass : Status::fail;
    if (!row.passed())
      row.message = row.result.check.summary(row.result.output_columns);
  } catch (const course::CudaError& error) {
    row.status = Status::error;
    row.message = error.what();
    // An error while a kernel ran (an illegal address, say) is sticky: the context is gone.
    if (cudaDeviceSynchronize() != cudaSuccess)
      context_lost = true;
  } catch (const std::bad_alloc&) {
    row.status = Status::error;
    row.message = "out of host memory for these sizes";
  } catch (const std::exception& error) {
    row.status = Status::error;
    row.message = error.what();
  }
  return row;
}

std::string progress_prefix(std::size_t done, std::size_t total,
                            std::chrono::steady_clock::time_point start) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
          .count();
  const int width = static_cast<int>(std::to_string(total).size());
  char text[64];
  std::snprintf(text, sizeof text, "[%*zu/%zu %4llds] ", width, done, total,
                static_cast<long long>(seconds));
  return text;
}

int run_ladder(const ladder::Options& options, const std::string& program) {
  std::vector<Implementation> implementations;
  std::vector<int> built;
  for (const ladder::ChapterSolutions& chapter : ladder::available_chapters()) {
    const bool wanted =
        options.chapters.empty() || std::find(options.chapters.begin(), options.chapters.end(),
                                              chapter.number) != options.chapters.end();
    if (wanted)
      implementations.push_back({ladder::implementation_label(chapter.number, chapter.variant),
                                 chapter.number, chapter.variant, chapter.problems,
                                 chapter.gpu_refusal});
    if (chapter.variant.empty())
      built.push_back(chapter.number);
  }
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

  // A chapter this GPU cannot run (chapter 7 off a Hopper) is left out, with the reason; its goals
  // are then "not measured".
  for (auto it = implementations.begin(); it != implementations.end();) {
    const std::string refusal = it->gpu_refusal ? it->gpu_refusal() : "";
    if (refusal.empty()) {
      ++it;
      continue;
    }
    std::cout << "chapter " << it->chapter << " left out: " << refusal << "\n";
    it = implementations.erase(it);
  }

  std::vector<PlannedRun> plan;
  const bool any_matmul =
      std::any_of(options.workloads.begin(), options.workloads.end(),
                  [](const Workload& w) { return w.problem == Problem::matmul; });
  int status = course::kExitPass;
  cudaStream_t stream = nullptr;
  try {
    const course::DeviceInfo device = course::query_device();
    std::optional<ladder::CublasSgemm> cublas;
    std::optional<ladder::CublasSgemm> cublas_tf32;
    if (any_matmul) {
      cublas.emplace(course::Arithmetic::fp32);
      implementations.push_back({ladder::kCublasLabel, 0, "", cublas->problems(), {}});
      cublas_tf32.emplace(course::Arithmetic::tf32);
      implementations.push_back({ladder::kCublasTf32Label, 0, "", cublas_tf32->problems(), {}});
    }
    for (std::size_t w = 0; w < options.workloads.size(); ++w) {
      for (std::size_t i = 0; i < implementations.size(); ++i) {
        if (implementations[i].problems.offers(options.workloads[w].problem))
          plan.push_back({w, i});
      }
    }
    if (plan.empty()) {
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
      if (implementation.chapter > 0)
        std::cout << " " << implementation.chapter;
    }
    std::cout << " (solutions)\n";
    if (any_matmul)
      std::cout << "baseline  " << ladder::kCublasMathNote << "\n";
    std::cout << "runs      " << plan.size() << ", each checked against the CPU reference, then "
              << options.base.warmup << " warm-up and " << options.base.reps
              << " timed runs; the median is reported\n\n"
              << std::flush;

    COURSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const auto start = std::chrono::steady_clock::now();
    std::vector<Row> rows;
    bool context_lost = false;
    std::size_t done = 0;
    for (std::size_t w = 0; w < options.workloads.size(); ++w) {
      const Workload& workload = options.workloads[w];
      std::vector<std::size_t> runs;
      for (const PlannedRun& run : plan) {
        if (run.workload == w)
          runs.push_back(run.implementation);
      }
      if (runs.empty())
        continue;
      const std::string title =
          std::string(course::problem_name(workload.problem)) + " " + ladder::size_label(workload);

      std::optional<course::ProblemInstance> instance;
      std::string setup_error;
      if (context_lost) {
        setup_error = "not run: the CUDA context was lost after an earlier error";
      } else {
        std::cout << progress_prefix(done, plan.size(), start) << title
                  << ": drawing and uploading the inputs\n"
                  << std::flush;
        try {
          instance.emplace(workload, options.base.seed);
        } catch (const std::bad_alloc&) {
          setup_error = "out of host memory for these sizes";
        } catch (const std::exception& error) {
          setup_error = error.what();
        }
      }
      for (std::size_t i : runs) {
        const Implementation& implementation = implementations[i];
        ++done;
        std::printf("%s%-28s %-13s", progress_prefix(done, plan.size(), start).c_str(),
                    title.c_str(), implementation.label.c_str());
        std::fflush(stdout);
        Row row;
        if (!setup_error.empty() || context_lost) {
          row.workload = workload;
          row.implementation = implementation.label;
          row.chapter = implementation.chapter;
          row.variant = implementation.variant;
          row.arithmetic = implementation.problems.arithmetic;
          row.ceiling = course::ceiling(workload, device);
          row.status = Status::error;
          row.message = setup_error.empty()
                            ? "not run: the CUDA context was lost after an earlier error"
                            : setup_error;
        } else {
          row = run_one(*instance, workload, implementation, options.base, device, stream,
                        context_lost);
        }
        row.date = date;
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
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
            .count();
    std::cout << "\nAll " << plan.size() << " runs done in " << seconds << " s.\n\n";
    if (stream != nullptr) {
      (void)cudaStreamDestroy(stream);
      stream = nullptr;
    }

    ladder::compute_ratios(rows);
    const std::vector<ladder::GoalResult> goals =
        ladder::evaluate_goals(ladder::performance_goals(), rows);
    if (!options.csv_path.empty()) {
      std::ostringstream csv;
      ladder::write_csv(csv, rows, device.name);
      if (!write_file(options.csv_path, csv.str(), "results CSV"))
        status = course::kExitError;
    }
    if (!options.goals_csv_path.empty()) {
      std::ostringstream csv;
      ladder::write_goals_csv(csv, goals);
      if (!write_file(options.goals_csv_path, csv.str(), "goals CSV"))
        status = course::kExitError;
    }

    const auto count = [&](Status wanted) {
      return std::count_if(rows.begin(), rows.end(),
                           [&](const Row& row) { return row.status == wanted; });
    };
    const auto failed = count(Status::fail);
    const auto errors = count(Status::error);
    const auto goals_with = [&](const std::string& verdict) {
      return std::count_if(goals.begin(), goals.end(), [&](const ladder::GoalResult& goal) {
        return goal.verdict() == verdict;
      });
    };
    std::cout << "ladder: " << count(Status::pass) << " results, " << failed << " FAIL, " << errors
              << " ERROR; goals: " << goals_with("met") << " met, " << goals_with("missed")
              << " missed, " << goals_with("not measured") << " not measured\n";
    if (options.csv_path.empty()) {
      std::cout << "For the table and the goals, run with --csv FILE --goals-csv GOALS and then\n"
                << "  scripts/update_results_table.py FILE --goals GOALS --print\n"
                << "(scripts/ladder.sh does both).\n";
    }
    if (failed > 0) {
      status = course::kExitCheckFailed;
    } else if (errors > 0) {
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
