#include "options.hpp"

#include "course/parse.hpp"

#include <algorithm>

namespace ladder {
namespace {

using course::Problem;
using course::Workload;

constexpr int kDefaultMaskSide = 13;
constexpr int kDefaultTaps = 127;

Workload square_product(Problem problem, int size) {
  return course::product_workload(problem, size, size, size);
}

}  // namespace

std::vector<Workload> other_product_shapes() {
  return {course::product_workload(Problem::matmul, 64, 4096, 4096),
          course::product_workload(Problem::matmul, 4096, 64, 4096),
          square_product(Problem::matmul, 4000)};
}

std::string usage(const std::string& program) {
  return "Usage: " + program + R"( [options]
Runs every chapter's solution kernels and cuBLAS SGEMM (pedantic FP32, and with TF32
tensor cores) on the same inputs, checks every result, prints each run's time and rate,
and writes the rates, ratios and the course's goals (met or missed) to CSV files, which
scripts/update_results_table.py prints as a table (scripts/ladder.sh does it all).

Default sizes: matmul 1024, 2048, 4096, 8192, 64x4096x4096, 4096x64x4096 and 4000;
minplus 1024, 4096, 6300; conv2d
4096x4096 and 8192x8192 with a 13x13 mask; conv1d 2^24 samples with 127 taps.

Options:
  --quick                 tiny sizes, 1 warm-up and 3 timed runs (a smoke test)
  --sizes PROBLEM=LIST    run PROBLEM at these sizes instead (repeatable); products
                          take N or MxNxK, conv2d N or HxW, conv1d N; 2^E is allowed
                          (e.g. --sizes matmul=2048,4096 --sizes conv1d=2^20)
  --mask K[xL]            conv2d mask of --sizes (default 13)
  --taps N                conv1d taps of --sizes (default 127)
  --problem LIST          only these problems, comma-separated (matmul,minplus,...)
  --chapters LIST         only these chapters, comma-separated (e.g. 4,5,6), each with
                          its variant (chapter 3: dispatch); cuBLAS (FP32 and TF32)
                          always runs with matmul
  --warmup N              untimed runs before timing (default 2)
  --reps N                timed runs; the median is reported (default 10)
  --seed N                seed of the random inputs
  --csv FILE              write one CSV line per run to FILE
  --goals-csv FILE        write the performance goals and their verdicts to FILE
  --help                  this text

Exit status: 0 all passed, 1 a result failed its check, 2 bad command line, 3 no CUDA
device, 4 a run could not be made.
)";
}

Options parse_command_line(int argc, const char* const* argv) {
  // The largest chapter number (a chapter this build lacks is refused later, by name).
  constexpr int kMaxChapter = 99;
  Options options;
  std::vector<course::Problem> problems;  // only these problems (empty: all)
  std::vector<std::string> size_specs;
  bool quick = false;
  bool warmup_given = false;
  bool reps_given = false;
  course::MaskSides mask{kDefaultMaskSide, kDefaultMaskSide};
  int taps = kDefaultTaps;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    // Called only for a flag known to take one, so an unknown flag is refused as such.
    const auto value = [&] {
      if (i + 1 >= argc)
        throw course::UsageError(flag + ": a value is required");
      return std::string(argv[++i]);
    };
    if (flag == "--help" || flag == "-h") {
      options.help = true;
    } else if (flag == "--quick") {
      quick = true;
    } else if (flag == "--sizes") {
      size_specs.push_back(value());
    } else if (flag == "--mask") {
      mask = course::parse_mask_sides(flag, value());
    } else if (flag == "--taps") {
      taps = course::parse_count(flag, value());
    } else if (flag == "--problem" || flag == "--problems") {
      problems = course::parse_problems(flag, value());
    } else if (flag == "--chapters") {
      for (const std::string& number : course::split(value(), ','))
        options.chapters.push_back(
            static_cast<int>(course::parse_whole_number(flag, number, 1, kMaxChapter)));
    } else if (flag == "--warmup") {
      options.base.warmup =
          static_cast<int>(course::parse_whole_number(flag, value(), 0, course::kMaxRuns));
      warmup_given = true;
    } else if (flag == "--reps") {
      options.base.reps =
          static_cast<int>(course::parse_whole_number(flag, value(), 1, course::kMaxRuns));
      reps_given = true;
    } else if (flag == "--seed") {
      options.base.seed = course::parse_seed(flag, value());
    } else if (flag == "--csv") {
      options.csv_path = value();
    } else if (flag == "--goals-csv") {
      options.goals_csv_path = value();
    } else {
      throw course::UsageError("unknown flag \"" + flag + "\"");
    }
  }
  options.workloads = quick ? quick_workloads() : default_workloads();
  // The quick mode's runs: enough for a median, few enough for a test.
  if (quick && !warmup_given)
    options.base.warmup = 1;
  if (quick && !reps_given)
    options.base.reps = 3;
  if (!size_specs.empty()) {
    options.workloads.clear();
    for (const std::string& spec : size_specs) {
      for (const Workload& workload : parse_sizes(spec, mask.rows, mask.cols, taps))
        options.workloads.push_back(workload);
    }
  }
  if (!problems.empty()) {
    const auto unwanted = [&](const Workload& workload) {
      return std::find(problems.begin(), problems.end(), workload.problem) == problems.end();
    };
    options.workloads.erase(
        std::remove_if(options.workloads.begin(), options.workloads.end(), unwanted),
        options.workloads.end());
  }
  options.base.check = true;
  return options;
}

std::vector<Workload> default_workloads() {
  std::vector<Workload> workloads;
  for (int size : {1024, 2048, 4096, 8192})
    workloads.push_back(square_product(Problem::matmul, size));
  // Shapes that are not squares of a tile's multiple: a decode step's skinny products (fewer
  // output tiles than SMs) and a size that no tile divides.
  for (const Workload& shape : other_product_shapes())
    workloads.push_back(shape);
  for (int size : {1024, 4096, 6300})
    workloads.push_back(square_product(Problem::minplus, size));
  for (int side : {4096, 8192})
    workloads.push_back(course::conv2d_workload(side, side, kDefaultMaskSide, kDefaultMaskSide));
  workloads.push_back(course::conv1d_workload(1 << 24, kDefaultTaps));
  return workloads;
}

std::vector<Workload> quick_workloads() {
  // Not multiples of 8, 16, 32 or 64, so every kernel's edge handling runs; one product with
  // m, n and k all different.
  return {square_product(Problem::matmul, 67),
          square_product(Problem::matmul, 257),
          course::product_workload(Problem::matmul, 65, 33, 127),
          square_product(Problem::minplus, 129),
          course::conv2d_workload(131, 97, kDefaultMaskSide, kDefaultMaskSide),
          course::conv1d_workload(10007, kDefaultTaps)};
}

std::vector<Workload> parse_sizes(const std::string& spec, int mask_rows, int mask_cols, int taps) {
  const std::string flag = "--sizes";
  const std::size_t equals = spec.find('=');
  if (equals == std::string::npos)
    course::refuse_value(flag, spec, "expected PROBLEM=SIZE[,SIZE...], e.g. matmul=1024,4096");
  Problem problem = Problem::matmul;
  const std::string name = spec.substr(0, equals);
  if (!course::parse_problem(name, problem))
    course::refuse_value(flag, spec,
                         "unknown problem \"" + name + "\" (matmul, minplus, conv2d or conv1d)");
  const std::string list = spec.substr(equals + 1);
  if (list.empty())
    course::refuse_value(flag, spec, "expected at least one size after '='");

  std::vector<Workload> workloads;
  for (const std::string& size : course::split(list, ',')) {
    std::vector<int> values;
    for (const std::string& side : course::split(size, 'x'))
      values.push_back(course::parse_count(flag, side));
    const std::size_t given = values.size();
    switch (problem) {
      case Problem::matmul:
      case Problem::minplus:
        if (given != 1 && given != 3)
          course::refuse_value(flag, spec, "a product size is N or MxNxK");
        values.resize(3, values[0]);  // N is NxNxN
        workloads.push_back(course::product_workload(problem, values[0], values[1], values[2]));
        break;
      case Problem::conv2d:
        if (given != 1 && given != 2)
          course::refuse_value(flag, spec, "an image size is N or HxW");
        values.resize(2, values[0]);  // N is NxN
        workloads.push_back(course::conv2d_workload(values[0], values[1], mask_rows, mask_cols));
        break;
      case Problem::conv1d:
        if (given != 1)
          course::refuse_value(flag, spec, "a signal size is one number");
        workloads.push_back(course::conv1d_workload(values[0], taps));
        break;
    }
  }
  return workloads;
}

}  // namespace ladder
