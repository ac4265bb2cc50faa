#include "goals.hpp"

#include <cstdio>

#include <ostream>

namespace ladder {

std::vector<Goal> performance_goals() {
  using course::Problem;
  const auto matmul = [](int side) {
    return course::product_workload(Problem::matmul, side, side, side);
  };
  const auto minplus = [](int side) {
    return course::product_workload(Problem::minplus, side, side, side);
  };
  const course::Workload conv2d = course::conv2d_workload(8192, 8192, 13, 13);
  const course::Workload skinny_rows = course::product_workload(Problem::matmul, 64, 4096, 4096);
  const course::Workload skinny_cols = course::product_workload(Problem::matmul, 4096, 64, 4096);
  constexpr Goal::Kind speedup = Goal::Kind::speedup_over_chapter;
  constexpr Goal::Kind cublas = Goal::Kind::percent_of_cublas;
  constexpr Goal::Kind peak = Goal::Kind::percent_of_peak;
  // Each goal's description, after its workload's problem and size; chapter 3's dispatch runs
  // compiled kernels for these sizes, so it is within 10% of chapter 2 (at least 0.9x).
  std::vector<Goal> goals = {
      {"chapter 2 at least 1.5x chapter 1", matmul(4096), speedup, 2, 1, 1.5, ""},
      {"chapter 3 dispatch within 10% of chapter 2", matmul(4096), speedup, 3, 2, 0.9, "dispatch"},
      {"chapter 4 at least 65% of cuBLAS", matmul(4096), cublas, 4, 0, 65, ""},
      {"chapter 4 at least 70% of the min-plus step peak", minplus(4096), peak, 4, 0, 70, ""},
      {"chapter 3 dispatch within 10% of chapter 2", conv2d, speedup, 3, 2, 0.9, "dispatch"},
      {"chapter 4 at least 3x chapter 2", conv2d, speedup, 4, 2, 3, ""},
      // Chapter 5: warp tiles and the pipeline at cuBLAS's FP32 speed.
      {"chapter 5 at least 95.0% of cuBLAS", matmul(2048), cublas, 5, 0, 95, ""},
      {"chapter 5 at least 100% of cuBLAS", matmul(4096), cublas, 5, 0, 100, ""},
      {"chapter 5 at least 100% of cuBLAS", matmul(8192), cublas, 5, 0, 100, ""},
      {"chapter 5 at least 85% of the min-plus step peak", minplus(4096), peak, 5, 0, 85, ""},
      {"chapter 5 at least 85% of the min-plus step peak", minplus(6300), peak, 5, 0, 85, ""},
      // Chapter 6: tensor cores, against cuBLAS with tensor cores and against FP32 register blocks.
      {"chapter 6 at least 60% of cuBLAS TF32", matmul(8192), cublas, 6, 0, 60, ""},
      {"chapter 6 at least 3x chapter 4", matmul(8192), speedup, 6, 4, 3, ""},
      // Chapter 7: TMA and wgmma, at cuBLAS's TF32 speed, and twice chapter 6.
      {"chapter 7 at least 90% of cuBLAS TF32", matmul(4096), cublas, 7, 0, 90, ""},
      {"chapter 7 at least 90% of cuBLAS TF32", matmul(8192), cublas, 7, 0, 90, ""},
      {"chapter 7 at least 2x chapter 6", matmul(8192), speedup, 7, 6, 2, ""},
      // Chapter 8: the whole product at or above cuBLAS's TF32 speed, on every shape.
      {"chapter 8 at least 100% of cuBLAS TF32", matmul(4096), cublas, 8, 0, 100, ""},
      {"chapter 8 at least 100% of cuBLAS TF32", matmul(8192), cublas, 8, 0, 100, ""},
      {"chapter 8 at least 1.05x chapter 7", matmul(8192), speedup, 8, 7, 1.05, ""},
      {"chapter 8 at least 80% of cuBLAS TF32", skinny_rows, cublas, 8, 0, 80, ""},
      {"chapter 8 at least 80% of cuBLAS TF32", skinny_cols, cublas, 8, 0, 80, ""},
      {"chapter 8 at most 10 points below its square goal", matmul(4000), cublas, 8, 0, 90, ""},
  };
  for (Goal& goal : goals) {
    goal.description = std::string(course::problem_name(goal.workload.problem)) + " " +
                       size_label(goal.workload) + ": " + goal.description;
  }
  return goals;
}

std::vector<GoalResult> evaluate_goals(const std::vector<Goal>& goals,
                                       const std::vector<Row>& rows) {
  std::vector<GoalResult> results;
  for (const Goal& goal : goals) {
    GoalResult result{goal, std::nullopt};
    const Row* row =
        find_row(rows, goal.workload, implementation_label(goal.chapter, goal.variant));
    if (row != nullptr && row->passed()) {
      switch (goal.kind) {
        case Goal::Kind::speedup_over_chapter: {
          const Row* reference =
              find_row(rows, goal.workload, implementation_label(goal.reference_chapter));
          if (reference != nullptr && reference->passed())
            result.measured = course::ratio(row->result.rate, reference->result.rate);
          break;
        }
        case Goal::Kind::percent_of_cublas:
          result.measured = row->cublas_percent;
          break;
        case Goal::Kind::percent_of_peak:
          if (row->result.peak_percent > 0)
            result.measured = row->result.peak_percent;
          break;
      }
    }
    results.push_back(result);
  }
  return results;
}

std::string measured_text(const GoalResult& result) {
  if (!result.measured)
    return "";
  const bool speedup = result.goal.kind == Goal::Kind::speedup_over_chapter;
  const double measured = *result.measured;
  const auto text = [&](double value, int more) {
    if (speedup && more == 0)
      return course::format_speedup(value);
    if (!speedup)
      return course::format_percent(value, 1 + more);
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.*fx", 2 + more, value);
    return std::string(shown);
  };
  // A missed goal must not read as its target (1.047x rounds to 1.05x): one more decimal, or
  // two, until the two differ.
  int more = 0;
  while (more < 2 && measured < result.goal.target &&
         text(measured, more) == text(result.goal.target, more))
    ++more;
  return text(measured, more);
}

void write_goals_csv(std::ostream& out, const std::vector<GoalResult>& goals) {
  out << "goal,target,measured,unit,verdict,measured_text\n";
  for (const GoalResult& result : goals) {
    const std::string shown = measured_text(result);
    const bool speedup = result.goal.kind == Goal::Kind::speedup_over_chapter;
    out << course::csv_field(result.goal.description) << "," << csv_number(result.goal.target)
        << "," << csv_number(result.measured) << "," << (speedup ? "x" : "%") << ","
        << result.verdict() << "," << shown << "\n";
  }
}

}  // namespace ladder
