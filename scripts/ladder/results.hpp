/// @file results.hpp
/// @brief The ladder's results: one row per implementation and workload, their labels, the ratios
/// between rows, and the CSV file that holds them (scripts/results_table.py renders it, with the
/// goals of goals.hpp, as the console table, the README's and the site's).
#pragma once

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

/// The implementation labels of the cuBLAS baselines: pedantic FP32, and TF32 tensor cores.
inline constexpr const char* kCublasLabel = "cuBLAS";
inline constexpr const char* kCublasTf32Label = "cuBLAS TF32";

/// The implementation label of chapter @p chapter: "ch01", "ch02", ... for its main kernels (an
/// empty @p variant), "ch03 dispatch" and the like for a variant.
std::string implementation_label(int chapter, const std::string& variant = "");

/// A short label of the size, the same for every implementation of one workload, e.g. "4096"
/// (square product), "300x200x100" (m x n x k), "8192x8192, 13x13 mask", "2^24, 127 taps".
std::string size_label(const course::Workload& workload);

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
  std::optional<double> cublas_percent;   ///< 100 x rate / rate of the cuBLAS of its arithmetic
  std::optional<double> best_percent;     ///< 100 x rate / the best chapter's rate
  std::optional<double> speedup;          ///< previous chapter's median / this median

  /// Whether this row is a result that tables and plots may show.
  bool passed() const { return status == Status::pass; }
};

/// The row of @p implementation for @p workload in @p rows, or nullptr.
const Row* find_row(const std::vector<Row>& rows, const course::Workload& workload,
                    const std::string& implementation);

/// Fills the ratio fields of every PASS row from the other rows of the same workload:
/// - speedup: the median of the previous chapter over this median, where the previous chapter is
///   the nearest lower chapter with a row for this workload (chapter 1 for conv1d's chapter 3,
///   which chapter 2 does not carry) at its best: its variant's row where it has one (chapter 3
///   dispatch), its main row otherwise; and only when that row passed: a chapter that failed its
///   check is never a reference, and the chapter after it gets no speedup. A chapter's variant is
///   compared with the previous chapter too;
/// - cublas_percent: against the workload's cuBLAS row of the same arithmetic (pedantic FP32 for
///   the FP32 chapters, TF32 for the tensor-core chapters), when it passed;
/// - best_percent: against the fastest passing chapter row (chapter rows only);
/// - ceiling_percent: against the row's ceiling.
void compute_ratios(std::vector<Row>& rows);

/// The CSV header of write_csv(): device, date, problem, size, chapter, implementation, status,
/// times, rate, shares of the peak, of cuBLAS (and which cuBLAS baseline) and of the best chapter,
/// speedup, the ceiling and the share of it, kernel resources and name, the message; then the
/// figures as the views show them (rate_text, cell, share, ceiling_text), formatted here once so
/// that scripts/results_table.py and the plot only lay them out.
std::string csv_header();

/// Writes csv_header() and one line per row on @p device; unknown numbers are empty fields.
void write_csv(std::ostream& out, const std::vector<Row>& rows, const std::string& device);

/// A number as the CSV files hold it: six significant digits; empty when there is none.
std::string csv_number(const std::optional<double>& value);

/// The table cell of @p row (after compute_ratios()): its rate and, in brackets, its speedup
/// over the previous chapter ("41.2 (1.66x)"); its status where it is not a result.
std::string cell_text(const Row& row);

/// The ceiling of @p row as the tables show it: "66.9 TFLOP/s (FP32 peak)"; "" when unknown.
std::string ceiling_text(const Row& row);

}  // namespace ladder
