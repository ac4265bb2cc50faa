#include "options.hpp"

#include "workloads.hpp"

#include "course/parse.hpp"

#include <algorithm>
#include <iterator>
#include <sstream>

namespace ladder {
namespace {

using course::Problem;
using course::Workload;

// Runs of the quick mode: enough for a median, short enough for a test.
constexpr int kQuickWarmup = 1;
constexpr int kQuickReps = 3;
constexpr int kDefaultMaskSide = 13;
constexpr int kDefaultTaps = 127;
// The largest chapter number --chapters accepts; a chapter this build lacks is refused later, by
// name.
constexpr int kMaxChapter = 99;
// The most warm-up or timed runs, as the chapters' executables take.
constexpr long long kMaxRuns = 1000000;

}  // namespace

std::string usage(const std::string& program) {
  std::ostringstream out;
  out << "Usage: " << program << " [options]\n"
      << "Runs every chapter's solution kernels and cuBLAS SGEMM (pedantic FP32, and with TF32\n"
      << "tensor cores) on the same inputs, checks every result, prints each run's time and rate,\n"
      << "and writes the rates, ratios and the course's goals (met or missed) to CSV files, which\n"
      << "scripts/update_results_table.py prints as a table (scripts/ladder.sh does it all).\n\n"
      << "Default sizes: matmul 1024, 2048, 4096, 8192; minplus 1024, 4096, 6300; conv2d\n"
      << "4096x4096 and 8192x8192 with a 13x13 mask; conv1d 2^24 samples with 127 taps.\n\n"
      << "Options:\n"
      << "  --quick                 tiny sizes, 1 warm-up and 3 timed runs (a smoke test)\n"
      << "  --sizes PROBLEM=LIST    run PROBLEM at these sizes instead (repeatable); products\n"
      << "                          take N or MxNxK, conv2d N or HxW, conv1d N; 2^E is allowed\n"
      << "                          (e.g. --sizes matmul=2048,4096 --sizes conv1d=2^20)\n"
      << "  --mask K[xL]            conv2d mask of --sizes (default 13)\n"
      << "  --taps N                conv1d taps of --sizes (default 127)\n"
      << "  --problem LIST          only these problems, comma-separated (matmul,minplus,...)\n"
      << "  --chapters LIST         only these chapters, comma-separated (e.g. 4,5,6), each with\n"
      << "                          its variant (chapter 3: dispatch); cuBLAS (FP32 and TF32)\n"
      << "                          always runs with matmul\n"
      << "  --warmup N              untimed runs before timing (default 2)\n"
      << "  --reps N                timed runs; the median is reported (default 10)\n"
      << "  --seed N                seed of the random inputs\n"
      << "  --csv FILE              write one CSV line per run to FILE\n"
      << "  --goals-csv FILE        write the performance goals and their verdicts to FILE\n"
      << "  --help                  this text\n\n"
      << "Exit status: 0 all passed, 1 a result failed its check, 2 bad command line, 3 no CUDA\n"
      << "device, 4 a run could not be made.\n";
  return out.str();
}

Options parse_command_line(int argc, const char* const* argv) {
  Options options;
  std::vector<std::string> size_specs;
  bool quick = false;
  bool warmup_given = false;
  bool reps_given = false;
  course::MaskSides mask{kDefaultMaskSide, kDefaultMaskSide};
  int taps = kDefaultTaps;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      options.help = true;
      continue;
    }
    if (flag == "--quick") {
      quick = true;
      continue;
    }
    const char* const takes_value[] = {"--sizes",    "--mask",     "--taps",     "--problem",
                                       "--problems", "--chapters", "--warmup",   "--reps",
                                       "--seed",     "--csv",      "--goals-csv"};
    if (std::find(std::begin(takes_value), std::end(takes_value), flag) == std::end(takes_value))
      throw course::UsageError("unknown flag \"" + flag + "\"");
    if (i + 1 >= argc)
      throw course::UsageError(flag + ": a value is required");
    const std::string value = argv[++i];
    if (flag == "--sizes") {
      size_specs.push_back(value);
    } else if (flag == "--mask") {
      mask = course::parse_mask_sides(flag, value);
    } else if (flag == "--taps") {
      taps = course::parse_count(flag, value);
    } else if (flag == "--problem" || flag == "--problems") {
      options.problems = course::parse_problems(flag, value);
    } else if (flag == "--chapters") {
      for (const std::string& number : course::split(value, ','))
        options.chapters.push_back(
            static_cast<int>(course::parse_whole_number(flag, number, 1, kMaxChapter)));
    } else if (flag == "--warmup") {
      options.base.warmup = static_cast<int>(course::parse_whole_number(flag, value, 0, kMaxRuns));
      warmup_given = true;
    } else if (flag == "--reps") {
      options.base.reps = static_cast<int>(course::parse_whole_number(flag, value, 1, kMaxRuns));
      reps_given = true;
    } else if (flag == "--seed") {
      options.base.seed = course::parse_seed(flag, value);
    } else if (flag == "--csv") {
      options.csv_path = value;
    } else {  // --goals-csv
      options.goals_csv_path = value;
    }
  }
  if (quick) {
    options.workloads = ladder::quick_workloads();
    if (!warmup_given)
      options.base.warmup = kQuickWarmup;
    if (!reps_given)
      options.base.reps = kQuickReps;
  } else {
    options.workloads = ladder::default_workloads();
  }
  if (!size_specs.empty()) {
    options.workloads.clear();
    for (const std::string& spec : size_specs) {
      for (const Workload& workload : ladder::parse_sizes(spec, mask.rows, mask.cols, taps))
        options.workloads.push_back(workload);
    }
  }
  if (!options.problems.empty()) {
    const auto unwanted = [&](const Workload& workload) {
      return std::find(options.problems.begin(), options.problems.end(), workload.problem) ==
             options.problems.end();
    };
    options.workloads.erase(
        std::remove_if(options.workloads.begin(), options.workloads.end(), unwanted),
        options.workloads.end());
  }
  options.base.check = true;
  return options;
}

}  // namespace ladder
