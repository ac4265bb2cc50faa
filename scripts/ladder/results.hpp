/// @file results.hpp
/// @brief The ladder's results: one row per implementation and workload, the ratios between rows,
/// the course's performance goals met or missed, and the two CSV files that hold them
/// (scripts/results_table.py renders them as the console table, the README's and the site's).
#pragma once

#include "workloads.hpp"

#include "course/ceiling.hpp"
#include "course/report.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ladder {

/// What became of one run.
enum class Status {
  pass,   ///< ran and matched the CPU reference: a result
  fail,   ///< ran but did not match the reference: not a result
  error,  ///< did not run (a refused size, a CUDA error); not a result
};

/// "PASS", "FAIL" or "ERROR".
const char* status_name(Status status);

/// The implementation label of the cuBLAS baseline in pedantic FP32.
inline constexpr const char* kCublasLabel = "cuBLAS";
/// The implementation label of the cuBLAS baseline with TF32 tensor cores.
inline constexpr const char* kCublasTf32Label = "cuBLAS TF32";

/// The cuBLAS baseline a run of @p arithmetic is compared with: kCublasLabel or kCublasTf32Label.
const char* cublas_label(course::Arithmetic arithmetic);

/// The implementation label of chapter @p chapter's solution: "ch01", "ch02", ...
std::string chapter_label(int chapter);

/// The implementation label of chapter @p chapter's variant @p variant: chapter_label() for the
/// chapter's main kernels (an empty variant), else "ch03 dispatch" and the like.
std::string implementation_label(int chapter, const std::string& variant);

/// One implementation run on one workload.
struct Row {
  std::string date;            ///< day of the run, YYYY-MM-DD
  course::Workload workload;   ///< problem and sizes
  std::string implementation;  ///< "ch01", "ch03 dispatch", ..., kCublasLabel or kCublasTf32Label
  int chapter = 0;             ///< the chapter of a chapter's solution; 0 for a baseline
  std::string variant;         ///< the chapter's variant ("dispatch"); empty for its main kernels
  /// How the implementation's matmul multiplies: which cuBLAS baseline it is compared with.
  course::Arithmetic arithmetic = course::Arithmetic::fp32;
  Status status = Status::error;  ///< PASS, FAIL or ERROR
  std::string message;       ///< the check's summary for FAIL, the error for ERROR; empty for PASS
  course::RunResult result;  ///< timing, rate, peak share, kernel resources, check
  course::Ceiling ceiling;   ///< the workload's hardware ceiling on this device

  // Ratios, filled by compute_ratios() for PASS rows; empty where unknown.
  std::optional<double> ceiling_percent;  ///< 100 x rate / ceiling rate
  std::optional<double> cublas_percent;   ///< 100 x rate / rate of cublas_label(arithmetic)
  std::optional<double> best_percent;     ///< 100 x rate / the best chapter's rate
  std::optional<double> speedup;          ///< previous chapter's median / this median

  /// Whether this row is a result that tables and plots may show.
  bool passed() const { return status == Status::pass; }
};

/// Fills the ratio fields of every PASS row from the other rows of the same workload:
/// - speedup: the median of the previous chapter over this median, where the previous chapter is
///   the nearest lower chapter with a row for this workload (chapter 1 for conv1d's chapter 3,
///   which chapter 2 does not carry) at its best: its variant's row where it has one (chapter 3
///   dispatch), its main row otherwise; and only when that row passed: a chapter that failed its
///   check is never a reference, and the chapter after it gets no speedup. A chapter's variant is
///   compared with the previous chapter too;
/// - cublas_percent: against the workload's cuBLAS row of the same arithmetic (pedantic FP32 for
///   the FP32 chapters, TF32 for the tensor-core chapter), when it passed;
/// - best_percent: against the fastest passing chapter row (chapter rows only);
/// - ceiling_percent: against the row's ceiling.
void compute_ratios(std::vector<Row>& rows);

/// The CSV header of write_csv(): device, date, problem, size, chapter, implementation, status,
/// times, rate, shares of the peak, of cuBLAS (and which cuBLAS baseline), of the best chapter and
/// of the ceiling, speedup,
/// kernel resources, the full sizes and the message.
std::string csv_header();

/// One CSV line (no newline) for @p row on @p device. Unknown numbers are empty fields.
std::string csv_line(const Row& row, const std::string& device);

/// Writes csv_header() and one line per row.
void write_csv(std::ostream& out, const std::vector<Row>& rows, const std::string& device);

/// One of the course's performance goals, measured on the benchmark sizes.
struct Goal {
  /// How a goal is measured.
  enum class Kind {
    speedup_over_chapter,  ///< rate of `chapter` / rate of `reference_chapter`, as "x"
    percent_of_cublas,     ///< 100 x rate of `chapter` / cuBLAS rate, in %
    percent_of_peak,       ///< the row's share of its arithmetic peak (course::RunResult), in %
  };
  std::string description;                 ///< e.g. "matmul 4096: chapter 4 at least 65% of cuBLAS"
  course::Workload workload;               ///< where it is measured
  Kind kind = Kind::speedup_over_chapter;  ///< how
  int chapter = 0;                         ///< the chapter measured
  int reference_chapter = 0;  ///< the chapter compared with (speedup_over_chapter only)
  double target = 0;          ///< the least value that meets the goal
  std::string variant;        ///< the variant of `chapter` measured; empty for its main kernels
};

/// The course's goals on an H100 or H200: matmul 4096, chapter 2 at least 1.5x chapter 1, chapter
/// 3 dispatch within 10% of chapter 2 (at least 0.9x) and chapter 4 at least 65% of cuBLAS;
/// minplus 4096, chapter 4 at least 70% of the min-plus step peak; conv2d 8192^2 with a 13 x 13
/// mask, chapter 3 dispatch within 10% of chapter 2 and chapter 4 at least 3x chapter 2; chapter 5
/// at least 100% of cuBLAS at matmul 4096 and 8192 and 95% at 2048, and at least 85% of the
/// min-plus step peak at 4096 and 6300; chapter 6 at matmul 8192 at least 60% of cuBLAS TF32 and
/// 3x chapter 4.
std::vector<Goal> performance_goals();

/// A goal and what this run measured for it.
struct GoalResult {
  Goal goal;                       ///< the goal
  std::optional<double> measured;  ///< empty when its rows were not run or did not pass
  /// Whether the measured value reaches the target (false when not measured).
  bool met() const { return measured && *measured >= goal.target; }
  /// "met", "missed" or "not measured".
  std::string verdict() const;
};

/// Measures every goal on @p rows (after compute_ratios()).
std::vector<GoalResult> evaluate_goals(const std::vector<Goal>& goals,
                                       const std::vector<Row>& rows);

/// Writes the goals as CSV: goal, target, measured, unit, verdict.
void write_goals_csv(std::ostream& out, const std::vector<GoalResult>& goals);

/// A rate as the ladder prints it while it runs (and as scripts/results_table.py renders the
/// tables): three significant digits, no exponent ("41.2", "0.853", "203").
std::string format_rate(double value);

}  // namespace ladder
