#include "results.hpp"

#include "course/cli.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace ladder {
namespace {

using course::Problem;

constexpr double kPercent = 100.0;

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

using course::ratio;

// The cuBLAS baseline a run of `arithmetic` is compared with.
const char* cublas_label(course::Arithmetic arithmetic) {
  return arithmetic == course::Arithmetic::tf32 ? kCublasTf32Label : kCublasLabel;
}

// Powers of two from 2^16 = 65536 up are labelled 2^E: "2^24" reads better than "16777216".
std::string count_label(long long value) {
  if (value < (1 << 16) || (value & (value - 1)) != 0)
    return std::to_string(value);
  int exponent = 0;
  while ((1LL << exponent) < value)
    ++exponent;
  return "2^" + std::to_string(exponent);
}

// The share a row's "best chapter" cell shows: of the cuBLAS of its arithmetic where that ran,
// else of its ceiling; "" where neither is known.
std::string share_text(const Row& row) {
  if (row.cublas_percent)
    return course::format_percent(*row.cublas_percent, 0) + " of " + cublas_label(row.arithmetic);
  if (row.ceiling_percent)
    return course::format_percent(*row.ceiling_percent, 0) + " of " + row.ceiling.name;
  return "";
}

std::string csv_line(const Row& row, const std::string& device) {
  using course::csv_field;
  const course::RunResult& r = row.result;
  // Only a result that passed its check has performance figures: a wrong answer's time says
  // nothing about the kernel that was meant.
  const auto figure = [&](double value) { return row.passed() ? csv_number(value) : ""; };
  const bool has_kernel = !r.kernels.empty();
  const course::KernelResources kernel = has_kernel ? r.kernels.back() : course::KernelResources{};
  const auto resource = [&](std::size_t value) { return has_kernel ? std::to_string(value) : ""; };
  const std::vector<std::string> fields = {
      csv_field(device), row.date, course::problem_name(row.workload.problem),
      csv_field(size_label(row.workload)), row.chapter > 0 ? std::to_string(row.chapter) : "",
      csv_field(row.implementation), status_name(row.status),
      // median_ms, min_ms, max_ms, runs, rate, rate_unit
      figure(r.timing.median_ms), figure(r.timing.min_ms), figure(r.timing.max_ms),
      row.passed() ? std::to_string(r.timing.runs) : "", figure(r.rate),
      course::rate_unit(row.workload.problem),
      // peak_percent, peak_name, cublas_percent, cublas_reference, best_percent, speedup
      r.peak_percent > 0 ? figure(r.peak_percent) : "", csv_field(r.peak_name),
      csv_number(row.cublas_percent),
      row.cublas_percent ? csv_field(cublas_label(row.arithmetic)) : "",
      csv_number(row.best_percent), csv_number(row.speedup),
      // ceiling_rate, ceiling_name, ceiling_percent
      row.ceiling.rate > 0 ? csv_number(row.ceiling.rate) : "", csv_field(row.ceiling.name),
      csv_number(row.ceiling_percent),
      // registers, shared_bytes, blocks_per_sm, threads_per_block, local_bytes, kernel, message
      resource(kernel.registers), resource(kernel.static_shared + kernel.dynamic_shared),
      resource(kernel.blocks_per_sm), resource(kernel.threads_per_block),
      resource(kernel.local_bytes), csv_field(kernel.name), csv_field(row.message),
      // rate_text, cell, share, ceiling_text: the figures as every view shows them
      row.passed() ? course::format_rate(r.rate) : "", csv_field(cell_text(row)),
      csv_field(share_text(row)), csv_field(ceiling_text(row))};
  return course::join(fields, ",");
}

}  // namespace

std::string cell_text(const Row& row) {
  if (!row.passed())
    return status_name(row.status);
  std::string cell = course::format_rate(row.result.rate);
  if (row.speedup)
    cell += " (" + course::format_speedup(*row.speedup) + ")";
  return cell;
}

std::string ceiling_text(const Row& row) {
  if (row.ceiling.rate <= 0)
    return "";
  return course::format_rate(row.ceiling.rate) + " " + course::rate_unit(row.workload.problem) +
         " (" + row.ceiling.name + ")";
}

const char* status_name(Status status) {
  const char* const names[] = {"PASS", "FAIL", "ERROR"};  // in the order of Status
  return names[static_cast<int>(status)];
}

std::string implementation_label(int chapter, const std::string& variant) {
  char text[16];
  std::snprintf(text, sizeof text, "ch%02d", chapter);
  const std::string label = text;
  return variant.empty() ? label : label + " " + variant;
}

std::string size_label(const course::Workload& w) {
  std::ostringstream out;
  if (w.problem == Problem::conv2d)
    out << w.height << "x" << w.width << ", " << w.mask_rows << "x" << w.mask_cols << " mask";
  else if (w.problem == Problem::conv1d)
    out << count_label(w.signal_length) << ", " << w.taps << " taps";
  else if (w.m == w.n && w.n == w.k)
    out << w.m;  // a square product
  else
    out << w.m << "x" << w.n << "x" << w.k;
  return out.str();
}

const Row* find_row(const std::vector<Row>& rows, const course::Workload& workload,
                    const std::string& implementation) {
  for (const Row& row : rows) {
    if (row.implementation == implementation && row.workload == workload)
      return &row;
  }
  return nullptr;
}

void compute_ratios(std::vector<Row>& rows) {
  for (Row& row : rows) {
    row.ceiling_percent = row.cublas_percent = row.best_percent = row.speedup = std::nullopt;
    if (!row.passed())
      continue;
    const double rate = row.result.rate;
    row.ceiling_percent = ratio(rate, row.ceiling.rate, kPercent);
    if (row.chapter <= 0)
      continue;  // a baseline is not compared with the others

    const Row* cublas = find_row(rows, row.workload, cublas_label(row.arithmetic));
    if (cublas != nullptr && cublas->passed())
      row.cublas_percent = ratio(rate, cublas->result.rate, kPercent);
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

std::string csv_header() {
  return "device,date,problem,sizes,chapter,implementation,status,median_ms,min_ms,max_ms,runs,"
         "rate,rate_unit,peak_percent,peak_name,cublas_percent,cublas_reference,best_percent,"
         "speedup,ceiling_rate,ceiling_name,ceiling_percent,registers,shared_bytes,blocks_per_sm,"
         "threads_per_block,local_bytes,kernel,message,rate_text,cell,share,ceiling_text";
}

void write_csv(std::ostream& out, const std::vector<Row>& rows, const std::string& device) {
  out << csv_header() << "\n";
  for (const Row& row : rows)
    out << csv_line(row, device) << "\n";
}

std::string csv_number(const std::optional<double>& value) {
  if (!value)
    return "";
  std::ostringstream out;
  out.precision(6);  // significant digits
  out << *value;
  return out.str();
}

}  // namespace ladder
