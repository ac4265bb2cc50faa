#include "course/report.hpp"

#include "course/ceiling.hpp"
#include "course/json.hpp"

#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace course {

std::optional<double> ratio(double numerator, double denominator, double scale) {
  if (numerator <= 0 || denominator <= 0)
    return std::nullopt;
  return scale * numerator / denominator;
}

std::string format_rate(double value) {
  char text[32];
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string format_speedup(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", value);
  return text;
}

std::string format_percent(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f%%", decimals, value);
  return text;
}

double RunResult::speedup() const {
  return ratio(previous_ms, timing.median_ms).value_or(0);
}

std::optional<RateGrade> grade_rate(double rate, double against) {
  const std::optional<double> share = ratio(rate, against);
  if (!share)
    return std::nullopt;
  RateGrade grade;
  grade.against = against;
  grade.share = *share;
  for (double reached : kRateGrades)
    grade.stars += *share >= reached;
  return grade;
}

std::optional<RateGrade> RunResult::grade() const {
  return ok() ? grade_rate(rate, against) : std::nullopt;
}

namespace {

// A grade's stars as the views show them: "**", or "-" for none.
std::string stars_text(int stars) {
  return stars > 0 ? std::string(static_cast<std::size_t>(stars), '*') : "-";
}

}  // namespace

void fill_rate(RunResult& result, const DeviceInfo& device, const Workload& workload,
               Arithmetic arithmetic) {
  const double seconds = result.timing.median_ms * 1e-3;
  result.flops = flops_per_run(workload);
  result.rate = work_per_run(workload) / seconds / rate_scale(workload.problem);
  result.rate_unit = rate_unit(workload.problem);
  const Peak peak = arithmetic_peak(workload.problem, device, arithmetic);
  result.peak_name = peak.name;
  result.peak_key = peak.key;
  result.peak_flops = peak.flops;
  result.peak_percent = ratio(result.flops / seconds, peak.flops, 100.0).value_or(0);
  const Operation counted = operation(workload.problem);
  result.operation = counted.unit;
  result.operations = result.flops / counted.flops;
  result.operations_per_fma_slot = counted.per_fma_slot;
}

const char* previous_source(const RunResult& result) {
  return result.previous_solution ? "solution" : "your kernels";
}

void print_report(std::ostream& out, const RunResult& result) {
  std::ostringstream text;
  text.setf(std::ios::fixed);
  text << problem_name(result.problem) << "  " << result.sizes;
  if (!result.variant.empty())
    text << "  [" << result.variant << "]";
  text << "\n";
  for (const KernelResources& kernel : result.kernels)
    text << "  kernel   " << kernel.summary() << "\n";
  text.precision(3);
  text << "  time     " << result.timing.median_ms << " ms median (min " << result.timing.min_ms
       << ", max " << result.timing.max_ms << ", " << result.timing.runs << " timed runs)\n";
  if (!result.ok()) {
    text << "  rate     " << kFiguresNotReported << "\n";
    if (result.previous_ms > 0 || result.previous_failed)
      text << "  speedup  " << kFiguresNotReported << "\n";
  } else {
    text << "  rate     " << format_rate(result.rate) << " " << result.rate_unit;
    if (result.peak_percent > 0)
      text << ", " << format_percent(result.peak_percent) << " of the " << result.peak_name;
    if (!result.checked)
      text << " (of an unchecked result)";
    text << "\n";
    if (result.previous_ms > 0) {
      text << "  speedup  " << format_speedup(result.speedup()) << " over chapter "
           << result.previous_chapter << " (" << previous_source(result) << ", "
           << result.previous_ms << " ms on the same inputs)\n";
    } else if (result.previous_failed) {
      text << "  speedup  not reported (chapter " << result.previous_chapter << ", "
           << previous_source(result) << ", fails its check on these inputs)\n";
    }
    if (const std::optional<RateGrade> grade = result.grade()) {
      text << "  grade    " << stars_text(grade->stars) << " "
           << format_percent(100 * grade->share, 0) << " of " << format_rate(grade->against) << " "
           << result.rate_unit << " (--against): " << (grade->passes() ? "passes" : "does not pass")
           << " (passing takes " << format_percent(100 * RateGrade::needed(), 0) << ", "
           << kStarsToPass << " stars)\n";
    }
  }
  if (result.checked) {
    text << "  check    " << result.check.summary(result.output_columns) << "\n";
  } else {
    text << "  check    skipped (--no-check)\n";
  }
  out << text.str();
}

std::string kernel_name_json(const std::string& symbol) {
  JsonWriter json;
  const std::string name = readable_kernel_name(symbol);
  json.begin_object().member("symbol", symbol).member("name", name).key("problems").begin_array();
  for (Problem problem : problems_of_kernel(name))
    json.value(problem_name(problem));
  json.end_array().end_object();
  return json.text();
}

std::string result_json(const RunResult& result) {
  JsonWriter json;
  const char* verdict = !result.checked ? "UNCHECKED" : (result.check.passed ? "PASS" : "FAIL");
  json.begin_object().member("device", result.device).member("chapter", result.chapter);
  json.member("edition", result.solution ? "solution" : "student");
  json.member("problem", problem_name(result.problem)).member("variant", result.variant);
  json.key("choices").begin_object();
  for (const auto& [word, value] : result.choices)
    json.member(word, value);
  json.end_object();
  json.member("sizes", result.sizes);
  json.member("median_ms", result.timing.median_ms).member("min_ms", result.timing.min_ms);
  json.member("max_ms", result.timing.max_ms).member("runs", result.timing.runs);
  json.key("rate");
  result.ok() ? json.value(result.rate) : json.null();
  json.key("rate_text");
  result.ok() ? json.value(format_rate(result.rate)) : json.null();
  json.member("unit", result.rate_unit).member("peak", result.peak_key);
  json.member("peak_name", result.peak_name).key("peak_percent");
  result.ok() && result.peak_percent > 0 ? json.value(result.peak_percent) : json.null();
  // The arithmetic of a run and the peak, for the tools that set a measurement against them (the
  // profile's roofline): facts of the inputs and of the GPU, reported whatever the verdict.
  json.key("flops");
  result.flops > 0 ? json.value(result.flops) : json.null();
  json.key("peak_flops");
  result.peak_flops > 0 ? json.value(result.peak_flops) : json.null();
  // The same arithmetic in the operation the FMA pipe is reckoned in (a FLOP, or a min-plus step),
  // and how many of those one FMA-pipe slot does: the profile's rate and compute roof.
  json.member("operation", result.operation).key("operations");
  result.operations > 0 ? json.value(result.operations) : json.null();
  json.key("operations_per_fma_slot");
  result.operations_per_fma_slot > 0 ? json.value(result.operations_per_fma_slot) : json.null();
  json.member("previous_chapter", result.previous_chapter).key("previous_ms");
  result.previous_ms > 0 ? json.value(result.previous_ms) : json.null();
  json.key("speedup");
  result.ok() && result.speedup() > 0 ? json.value(result.speedup()) : json.null();
  json.key("speedup_text");
  result.ok() && result.speedup() > 0 ? json.value(format_speedup(result.speedup())) : json.null();
  // The grade against --against's rate, with its figures as the report shows them.
  json.key("grade");
  if (const std::optional<RateGrade> grade = result.grade()) {
    json.begin_object().member("against", grade->against);
    json.member("against_text", format_rate(grade->against)).member("share", grade->share);
    json.member("share_text", format_percent(100 * grade->share, 0));
    json.member("stars", grade->stars).member("stars_text", stars_text(grade->stars));
    json.member("stars_to_pass", kStarsToPass).member("needed", RateGrade::needed());
    json.member("needed_text", format_percent(100 * RateGrade::needed(), 0));
    json.member("passes", grade->passes()).end_object();
  } else {
    json.null();
  }
  json.key("kernels").begin_array();
  for (const KernelResources& kernel : result.kernels) {
    json.begin_object().member("name", kernel.name).member("symbol", kernel.symbol);
    json.member("registers", kernel.registers);
    json.member("static_shared_bytes", static_cast<long long>(kernel.static_shared));
    json.member("dynamic_shared_bytes", static_cast<long long>(kernel.dynamic_shared));
    json.member("local_bytes", static_cast<long long>(kernel.local_bytes));
    json.member("threads_per_block", kernel.threads_per_block);
    json.member("blocks_per_sm", kernel.blocks_per_sm).member("grid_blocks", kernel.grid_blocks);
    json.end_object();
  }
  json.end_array().member("verdict", verdict).key("check");
  if (result.checked) {
    const CheckResult& check = result.check;
    json.begin_object().member("compared", static_cast<long long>(check.compared));
    json.member("sampled", check.sampled);
    json.member("mismatches", static_cast<long long>(check.mismatches));
    json.member("nans", static_cast<long long>(check.nans));
    json.member("worst_index", static_cast<long long>(check.worst_index));
    json.member("worst_got", check.worst_got).member("worst_reference", check.worst_reference);
    json.member("worst_abs_error", check.worst_abs_error);
    json.member("worst_allowed_error", check.worst_allowed_error);
    json.member("summary", check.summary(result.output_columns)).end_object();
  } else {
    json.null();
  }
  json.end_object();
  return json.text();
}

std::string csv_header() {
  return "device,chapter,edition,problem,variant,sizes,median_ms,min_ms,max_ms,runs,rate,"
         "rate_unit,peak_percent,previous_ms,speedup,kernel,registers,static_shared_bytes,"
         "dynamic_shared_bytes,local_bytes,threads_per_block,blocks_per_sm,status,compared,"
         "mismatches,nans,worst_abs_error";
}

std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos)
    return field;
  std::string quoted = "\"";
  for (char c : field) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_line(const RunResult& result) {
  std::ostringstream line;
  line.precision(6);
  const KernelResources main_kernel =
      result.kernels.empty() ? KernelResources{} : result.kernels.back();
  const char* status = !result.checked ? "UNCHECKED" : (result.check.passed ? "PASS" : "FAIL");
  line << csv_field(result.device) << "," << result.chapter << ","
       << (result.solution ? "solution" : "student") << "," << problem_name(result.problem) << ","
       << csv_field(result.variant) << "," << csv_field(result.sizes) << ","
       << result.timing.median_ms << "," << result.timing.min_ms << "," << result.timing.max_ms
       << "," << result.timing.runs << ",";
  // A result that failed its check has no figures: empty fields, so that no reader of the CSV
  // takes them for measurements (status says why).
  if (result.ok())
    line << result.rate;
  line << "," << result.rate_unit << ",";
  if (result.ok())
    line << result.peak_percent;
  line << "," << result.previous_ms << ",";
  if (result.ok())
    line << result.speedup();
  line << "," << csv_field(main_kernel.name) << "," << main_kernel.registers << ","
       << main_kernel.static_shared << "," << main_kernel.dynamic_shared << ","
       << main_kernel.local_bytes << "," << main_kernel.threads_per_block << ","
       << main_kernel.blocks_per_sm << "," << status << "," << result.check.compared << ","
       << result.check.mismatches << "," << result.check.nans << ","
       << result.check.worst_abs_error;
  return line.str();
}

}  // namespace course
