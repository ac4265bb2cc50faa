#include "goals.hpp"

#include <ostream>
#include <utility>

namespace ladder {
namespace {

using course::Problem;

std::string goal_unit(Goal::Kind kind) {
  return kind == Goal::Kind::speedup_over_chapter ? "x" : "%";
}

}  // namespace

std::vector<Goal> performance_goals() {
  const int size = 4096;
  const int image = 8192;
  const int mask = 13;
  const course::Workload matmul = course::product_workload(Problem::matmul, size, size, size);
  const course::Workload minplus = course::product_workload(Problem::minplus, size, size, size);
  const course::Workload conv2d = course::conv2d_workload(image, image, mask, mask);
  // Chapter 3's dispatch runs compiled kernels for these sizes: within 10% of chapter 2's.
  const double within_ten_percent = 0.9;
  const std::string dispatch = "dispatch";
  std::vector<Goal> goals;
  goals.push_back({"matmul " + size_label(matmul) + ": chapter 2 at least 1.5x chapter 1", matmul,
                   Goal::Kind::speedup_over_chapter, 2, 1, 1.5, ""});
  goals.push_back({"matmul " + size_label(matmul) + ": chapter 3 dispatch within 10% of chapter 2",
                   matmul, Goal::Kind::speedup_over_chapter, 3, 2, within_ten_percent, dispatch});
  goals.push_back({"matmul " + size_label(matmul) + ": chapter 4 at least 65% of cuBLAS", matmul,
                   Goal::Kind::percent_of_cublas, 4, 0, 65.0, ""});
  goals.push_back(
      {"minplus " + size_label(minplus) + ": chapter 4 at least 70% of the min-plus step peak",
       minplus, Goal::Kind::percent_of_peak, 4, 0, 70.0, ""});
  goals.push_back({"conv2d " + size_label(conv2d) + ": chapter 3 dispatch within 10% of chapter 2",
                   conv2d, Goal::Kind::speedup_over_chapter, 3, 2, within_ten_percent, dispatch});
  goals.push_back({"conv2d " + size_label(conv2d) + ": chapter 4 at least 3x chapter 2", conv2d,
                   Goal::Kind::speedup_over_chapter, 4, 2, 3.0, ""});
  // Chapter 5: warp tiles and the pipeline at cuBLAS's FP32 speed.
  for (const auto& [side, percent] : {std::pair{2048, 95.0}, {4096, 100.0}, {8192, 100.0}}) {
    const course::Workload product = course::product_workload(Problem::matmul, side, side, side);
    goals.push_back({"matmul " + size_label(product) + ": chapter 5 at least " +
                         format_rate(percent) + "% of cuBLAS",
                     product, Goal::Kind::percent_of_cublas, 5, 0, percent, ""});
  }
  for (int side : {4096, 6300}) {
    const course::Workload paths = course::product_workload(Problem::minplus, side, side, side);
    goals.push_back(
        {"minplus " + size_label(paths) + ": chapter 5 at least 85% of the min-plus step peak",
         paths, Goal::Kind::percent_of_peak, 5, 0, 85.0, ""});
  }
  // Chapter 6: tensor cores, against cuBLAS with tensor cores and against FP32 register blocks.
  const course::Workload large = course::product_workload(Problem::matmul, image, image, image);
  goals.push_back({"matmul " + size_label(large) + ": chapter 6 at least 60% of cuBLAS TF32", large,
                   Goal::Kind::percent_of_cublas, 6, 0, 60.0, ""});
  goals.push_back({"matmul " + size_label(large) + ": chapter 6 at least 3x chapter 4", large,
                   Goal::Kind::speedup_over_chapter, 6, 4, 3.0, ""});
  // Chapter 7: TMA and wgmma, at cuBLAS's TF32 speed, and twice chapter 6.
  for (const course::Workload& product : {matmul, large}) {
    goals.push_back({"matmul " + size_label(product) + ": chapter 7 at least 90% of cuBLAS TF32",
                     product, Goal::Kind::percent_of_cublas, 7, 0, 90.0, ""});
  }
  goals.push_back({"matmul " + size_label(large) + ": chapter 7 at least 2x chapter 6", large,
                   Goal::Kind::speedup_over_chapter, 7, 6, 2.0, ""});
  return goals;
}

std::string GoalResult::verdict() const {
  if (!measured)
    return "not measured";
  return met() ? "met" : "missed";
}

std::vector<GoalResult> evaluate_goals(const std::vector<Goal>& goals,
                                       const std::vector<Row>& rows) {
  std::vector<GoalResult> results;
  for (const Goal& goal : goals) {
    GoalResult result;
    result.goal = goal;
    const Row* row =
        find_row(rows, goal.workload, implementation_label(goal.chapter, goal.variant));
    if (row != nullptr && row->passed()) {
      switch (goal.kind) {
        case Goal::Kind::speedup_over_chapter: {
          const Row* reference =
              find_row(rows, goal.workload, chapter_label(goal.reference_chapter));
          if (reference != nullptr && reference->passed())
            if (reference->result.rate > 0 && row->result.rate > 0)
              result.measured = row->result.rate / reference->result.rate;
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

void write_goals_csv(std::ostream& out, const std::vector<GoalResult>& goals) {
  out << "goal,target,measured,unit,verdict\n";
  for (const GoalResult& result : goals) {
    out << course::csv_field(result.goal.description) << "," << csv_number(result.goal.target)
        << "," << csv_number(result.measured) << "," << goal_unit(result.goal.kind) << ","
        << result.verdict() << "\n";
  }
}

}  // namespace ladder
