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

}  // namespace

const Row* find_row(const std::vector<Row>& rows, const course::Workload& workload,
                    const std::string& implementation) {
  for (const Row& row : rows) {
    if (row.implementation == implementation && row.workload == workload)
      return &row;
  }
  return nullptr;
}

std::string csv_number(const std::optional<double>& value) {
  if (!value)
    return "";
  std::ostringstream out;
  out.precision(kCsvDigits);
  out << *value;
  return out.str();
}

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
    line << csv_number(r.timing.median_ms) << "," << csv_number(r.timing.min_ms) << ","
         << csv_number(r.timing.max_ms) << "," << r.timing.runs << "," << csv_number(r.rate) << ",";
  } else {
    line << ",,,,,";
  }
  line << course::rate_unit(row.workload.problem) << ","
       << (result && r.peak_percent > 0 ? csv_number(r.peak_percent) : std::string()) << ","
       << csv_field(r.peak_name) << "," << csv_number(row.cublas_percent) << ","
       << (row.cublas_percent ? csv_field(cublas_label(row.arithmetic)) : std::string()) << ","
       << csv_number(row.best_percent) << "," << csv_number(row.speedup) << ","
       << (row.ceiling.rate > 0 ? csv_number(row.ceiling.rate) : std::string()) << ","
       << csv_field(row.ceiling.name) << "," << csv_number(row.ceiling_percent) << ",";
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

std::string format_rate(double value) {
  char text[32];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace ladder
