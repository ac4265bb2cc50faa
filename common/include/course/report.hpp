/// @file report.hpp
/// @brief One result format for every executable: a human-readable block, or one CSV line.
#pragma once

#include "course/check.hpp"
#include "course/device_info.hpp"
#include "course/problems.hpp"
#include "course/timing.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace course {

/// @p numerator / @p denominator x @p scale: the one way every ratio of results is taken (a
/// speedup, a share of a peak, of cuBLAS or of the best chapter); empty when either is not
/// positive.
std::optional<double> ratio(double numerator, double denominator, double scale = 1.0);

/// A rate as every view shows it (the report, the ladder's console, tables and plot): three
/// significant digits, no exponent ("41.2", "0.853", "203").
std::string format_rate(double value);

/// A speedup as every view shows it: two decimals and "x" ("1.66x").
std::string format_speedup(double value);

/// A share in percent as every view shows it: @p decimals decimals and "%" ("88.1%").
std::string format_percent(double value, int decimals = 1);

/// The shares of a reference rate (the solution's) at which a rate (a student's) earns one, two and
/// three stars.
inline const std::vector<double> kRateGrades = {0.5, 0.8, 0.95};
/// The stars a graded rate needs to pass.
inline constexpr int kStarsToPass = 2;

/// A rate graded against a reference rate (`--against`): the one place the course grades a rate.
struct RateGrade {
  double against = 0;  ///< the reference rate, in the rate's unit
  double share = 0;    ///< the rate as a share of it
  int stars = 0;       ///< how many of kRateGrades the share reaches
  /// The share that passing takes: the kStarsToPass-th grade.
  static double needed() { return kRateGrades[kStarsToPass - 1]; }
  /// Whether the share reaches needed().
  bool passes() const { return stars >= kStarsToPass; }
};

/// @p rate graded against @p against; empty when either is not positive.
std::optional<RateGrade> grade_rate(double rate, double against);

/// Everything known about one timed and checked run of one problem.
struct RunResult {
  std::string device;                 ///< device name
  int chapter = 0;                    ///< chapter number
  bool solution = false;              ///< solution edition (false: the student's kernels)
  Problem problem = Problem::matmul;  ///< which problem
  std::string variant;                ///< launch options that matter, e.g. "lanes=16"
  /// The same as data: (the flag's word, the value) of each, e.g. ("lanes", "16"); none for a bug.
  std::vector<std::pair<std::string, std::string>> choices;
  std::string sizes;         ///< e.g. "4096x4096x4096" or "8192x8192 mask 13x13"
  TimingStats timing;        ///< the kernel's times
  double rate = 0;           ///< work per second in rate_unit
  std::string rate_unit;     ///< "TFLOP/s", "Tstep/s", "Gpixel/s" or "Gsample/s"
  double flops = 0;          ///< arithmetic of one run (FP32 operations; min-plus steps count 2)
  double peak_percent = 0;   ///< share of the device's relevant peak; 0 if unknown
  double peak_flops = 0;     ///< that peak, in the operations flops counts per second; 0 if unknown
  std::string peak_name;     ///< which peak: "FP32 peak", "min-plus peak" or "TF32 tensor peak"
  std::string peak_key;      ///< the same for data: "fp32", "minplus" or "tf32"
  double previous_ms = 0;    ///< previous chapter's median on the same inputs; 0 if not run
  int previous_chapter = 0;  ///< the chapter previous_ms was measured with
  /// The previous chapter ran from its solution (true) or from the student's own kernels.
  bool previous_solution = false;
  /// The previous chapter's kernels failed their check on these inputs, so they were not timed:
  /// a speedup over a wrong answer means nothing (previous_ms stays 0).
  bool previous_failed = false;
  std::vector<KernelResources>
      kernels;                     ///< what was launched, in order; the last is the main kernel
  bool checked = false;            ///< whether the output was compared with the reference
  CheckResult check;               ///< the comparison, when checked
  std::size_t output_columns = 0;  ///< columns of the output, for (row, column) in messages
  /// The arithmetic in the operation the FMA pipe is reckoned in (course::operation()): its unit
  /// ("FLOP" or "step"), one run's count (flops over its FLOPs) and what one lane's slot does.
  std::string operation;
  double operations = 0;               ///< one run's arithmetic in operation
  double operations_per_fma_slot = 0;  ///< operations one lane's FMA-pipe slot does
  double against = 0;  ///< the rate `--against` gave to grade this run's against; 0 if none

  /// Speedup over the previous chapter (previous_ms / median); 0 if unknown.
  double speedup() const;
  /// The rate graded against `against`; empty without one, or when the result failed its check.
  std::optional<RateGrade> grade() const;
  /// True when the result may be presented: checked and passed, or not checked on request.
  /// A result that failed its check has no rate, share of peak or speedup worth reporting: the
  /// time of a wrong answer says nothing about the kernel that was meant.
  bool ok() const { return !checked || check.passed; }
};

/// What the report says in place of the rate, the share of the peak and the speedup of a result
/// that failed its check (the CSV leaves those fields empty).
inline constexpr const char* kFiguresNotReported = "not reported (the result failed its check)";

/// Rate, peak share and unit of a run of @p workload: fills rate, rate_unit, flops, peak_percent,
/// peak_flops, peak_name, peak_key and the operation fields of @p result from the workload and the
/// result's timing, against the peak that course::arithmetic_peak() chooses (course/ceiling.hpp).
void fill_rate(RunResult& result, const DeviceInfo& device, const Workload& workload,
               Arithmetic arithmetic = Arithmetic::fp32);

/// What the report names the previous chapter's kernels by: "solution" or "your kernels".
const char* previous_source(const RunResult& result);

/// Writes the human-readable block for @p result. A result that failed its check shows its time
/// but kFiguresNotReported in place of its rate, share of the peak and speedup; the speedup names
/// the kernels it is over (previous_source()), and is not reported when they failed their check.
void print_report(std::ostream& out, const RunResult& result);

/// The CSV header matching csv_line().
std::string csv_header();

/// One CSV line (no newline) for @p result. For a result that failed its check (status FAIL) the
/// rate, peak_percent and speedup fields are empty; the other columns keep their places.
std::string csv_line(const RunResult& result);

/// One JSON object (one line, no newline) for @p result, for `--json`: the fields of csv_line()
/// and every kernel's resources, by name (docs/pages/tools.md lists them). A result that failed
/// its check has null for its rate, share of the peak and speedup.
std::string result_json(const RunResult& result);

/// One JSON object (one line, no newline) for `--kernel-names`: a compiled kernel's @p symbol
/// (mangled, as cuobjdump and ncu print it), its readable name (readable_kernel_name()) and the
/// problems it computes (problems_of_kernel()), for the tools that read an executable's code.
std::string kernel_name_json(const std::string& symbol);

/// Quotes @p field for CSV when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& field);

}  // namespace course
