/// @file goals.hpp
/// @brief The course's performance goals, each measured on the ladder's rows and found met or
/// missed once, here; the goals CSV file holds them for scripts/results_table.py to show.
#pragma once

#include "results.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace ladder {

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

/// The course's goals on an H100 or H200, chapter by chapter (the table in goals.cpp).
std::vector<Goal> performance_goals();

/// A goal and what this run measured for it.
struct GoalResult {
  Goal goal;                       ///< the goal
  std::optional<double> measured;  ///< empty when its rows were not run or did not pass
  /// "met" (the measured value reaches the target), "missed" or "not measured".
  std::string verdict() const {
    if (!measured)
      return "not measured";
    return *measured >= goal.target ? "met" : "missed";
  }
};

/// The measured value of @p result as the tables show it ("1.58x", "90.0%"; "" when not
/// measured), with more decimals where a missed goal would otherwise read as its target.
std::string measured_text(const GoalResult& result);

/// Measures every goal on @p rows (after compute_ratios()).
std::vector<GoalResult> evaluate_goals(const std::vector<Goal>& goals,
                                       const std::vector<Row>& rows);

/// Writes the goals as CSV: goal, target, measured, unit, verdict.
void write_goals_csv(std::ostream& out, const std::vector<GoalResult>& goals);

}  // namespace ladder
