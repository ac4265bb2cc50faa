#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace ladder {
namespace {

using course::Problem;

constexpr double kPercent = 100.0;
// Significant digits of the numbers in the CSV files.
constexpr int kCsvDigits = 6;

std::string number(double value) {
  std::ostringstream out;
  out.precision(kCsvDigits);
  out << value;
  return out.str();
}

std::string optional_number(const std::optional<double>& value) {
  return value ? number(*value) : std::string();
}

// The row of `implementation` for `workload`, or nullptr.
const Row* find_row(const std::vector<Row>& rows, const course::Workload& workload,
                    const std::string& implementation) {
  for (const Row& row : rows) {
    if (row.implementation == implementation && row.workload == workload)
      return &row;
  }
  return nullptr;
}

// The row of the nearest lower chapter than `chapter` for `workload`, at its best: the row of its
// variant where it has one, its main row otherwise; nullptr when no lower chapter has a row.
const Row* previous_chapter_row(const std::vector<Row>& rows, const course::Workload& workload,
                                int chapter) {
  const Row* previous = nullptr;
  for (const Row& row : rows) {
    if (row.chapter <= 0 || row.chapter >= chapter || row.workload != workload)
      continue;
    const bool nearer = previous == nullptr || row.chapter > previous->chapter;
    const bool better = previous != nullptr && row.chapter == previous->chapter &&
                        !row.variant.empty() && previous->variant.empty();
    if (nearer || better)
      previous = &row;
  }
  return previous;
}

std::optional<double> ratio(double numerator, double denominator, double scale = 1.0) {
  if (denominator <= 0 || numerator <= 0)
    return std::nullopt;
  return scale * numerator / denominator;
}

std::string goal_unit(Goal::Kind kind) {
  return kind == Goal::Kind::speedup_over_chapter ? "x" : "%";
}

}  // namespace

const char* status_name(Status status) {
  switch (status) {
    case Status::pass:
      return "PASS";
    case Status::fail:
      return "FAIL";
    case Status::error:
      return "ERROR";
  }
  return "ERROR";
}

const char* cublas_label(course::Arithmetic arithmetic) {
  return arithmetic == course::Arithmetic::tf32 ? kCublasTf32Label : kCublasLabel;
}

std::string chapter_label(int chapter) {
  char text[16];
  std::snprintf(text, sizeof text, "ch%02d", chapter);
  return text;
}

std::string implementation_label(int chapter, const std::string& variant) {
  return variant.empty() ? chapter_label(chapter) : chapter_label(chapter) + " " + variant;
}

void compute_ratios(std::vector<Row>& rows) {
  for (Row& row : rows) {
    row.ceiling_percent.reset();
    row.cublas_percent.reset();
    row.best_percent.reset();
    row.speedup.reset();
    if (!row.passed())
      continue;
    const double rate = row.result.rate;
    row.ceiling_percent = ratio(rate, row.ceiling.rate, kPercent);

    const Row* cublas = find_row(rows, row.workload, cublas_label(row.arithmetic));
    if (cublas != nullptr && cublas->passed() && row.chapter > 0)
      row.cublas_percent = ratio(rate, cublas->result.rate, kPercent);

    if (row.chapter > 0) {
      double best = 0;
      for (const Row& other : rows) {
        if (other.chapter > 0 && other.passed() && other.workload == row.workload)
          best = std::max(best, other.result.rate);
      }
      row.best_percent = ratio(rate, best, kPercent);

      const Row* previous = previous_chapter_row(rows, row.workload, row.chapter);
      if (previous != nullptr && previous->passed())
        row.speedup = ratio(previous->result.timing.median_ms, row.result.timing.median_ms);
    }
  }
}

std::string csv_header() {
  return "device,date,problem,sizes,chapter,implementation,status,median_ms,min_ms,max_ms,runs,"
         "rate,rate_unit,peak_percent,peak_name,cublas_percent,cublas_reference,best_percent,"
         "speedup,"
         "ceiling_rate,ceiling_name,ceiling_percent,registers,shared_bytes,blocks_per_sm,"
         "threads_per_block,local_bytes,kernel,message";
}

std::string csv_line(const Row& row, const std::string& device) {
  using course::csv_field;
  const course::RunResult& r = row.result;
  const course::KernelResources kernel =
      r.kernels.empty() ? course::KernelResources{} : r.kernels.back();
  const bool has_kernel = !r.kernels.empty();
  // Only a result that passed its check has performance figures: a wrong answer's time says
  // nothing about the kernel that was meant.
  const bool result = row.passed();
  std::ostringstream line;
  line << csv_field(device) << "," << row.date << "," << course::problem_name(row.workload.problem)
       << "," << csv_field(size_label(row.workload)) << ","
       << (row.chapter > 0 ? std::to_string(row.chapter) : std::string()) << ","
       << csv_field(row.implementation) << "," << status_name(row.status) << ",";
  if (result) {
    line << number(r.timing.median_ms) << "," << number(r.timing.min_ms) << ","
         << number(r.timing.max_ms) << "," << r.timing.runs << "," << number(r.rate) << ",";
  } else {
    line << ",,,,,";
  }
  line << course::rate_unit(row.workload.problem) << ","
       << (result && r.peak_percent > 0 ? number(r.peak_percent) : std::string()) << ","
       << csv_field(r.peak_name) << "," << optional_number(row.cublas_percent) << ","
       << (row.cublas_percent ? csv_field(cublas_label(row.arithmetic)) : std::string()) << ","
       << optional_number(row.best_percent) << "," << optional_number(row.speedup) << ","
       << (row.ceiling.rate > 0 ? number(row.ceiling.rate) : std::string()) << ","
       << csv_field(row.ceiling.name) << "," << optional_number(row.ceiling_percent) << ",";
  if (has_kernel) {
    line << kernel.registers << "," << kernel.static_shared + kernel.dynamic_shared << ","
         << kernel.blocks_per_sm << "," << kernel.threads_per_block << "," << kernel.local_bytes
         << ",";
  } else {
    line << ",,,,,";
  }
  line << csv_field(kernel.name) << "," << csv_field(row.message);
  return line.str();
}

void write_csv(std::ostream& out, const std::vector<Row>& rows, const std::string& device) {
  out << csv_header() << "\n";
  for (const Row& row : rows)
    out << csv_line(row, device) << "\n";
}

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
            result.measured = ratio(row->result.rate, reference->result.rate);
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
    out << course::csv_field(result.goal.description) << "," << number(result.goal.target) << ","
        << optional_number(result.measured) << "," << goal_unit(result.goal.kind) << ","
        << result.verdict() << "\n";
  }
}

std::string format_rate(double value) {
  char text[32];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace ladder
