#include "course/report.hpp"

#include "course/ceiling.hpp"

#include <ostream>
#include <sstream>

namespace course {

double RunResult::speedup() const {
  return previous_ms > 0 && timing.median_ms > 0 ? previous_ms / timing.median_ms : 0;
}

void fill_rate(RunResult& result, const DeviceInfo& device, const Workload& workload,
               Arithmetic arithmetic) {
  const double seconds = result.timing.median_ms * 1e-3;
  result.flops = flops_per_run(workload);
  result.rate = work_per_run(workload) / seconds / rate_scale(workload.problem);
  result.rate_unit = rate_unit(workload.problem);
  const Peak peak = arithmetic_peak(workload.problem, device, arithmetic);
  result.peak_name = peak.name;
  result.peak_percent = peak.flops > 0 ? 100.0 * result.flops / seconds / peak.flops : 0;
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
  text.precision(2);
  if (!result.ok()) {
    text << "  rate     " << kFiguresNotReported << "\n";
    if (result.previous_ms > 0 || result.previous_failed)
      text << "  speedup  " << kFiguresNotReported << "\n";
  } else {
    text << "  rate     " << result.rate << " " << result.rate_unit;
    if (result.peak_percent > 0)
      text << ", " << result.peak_percent << "% of the " << result.peak_name;
    if (!result.checked)
      text << " (of an unchecked result)";
    text << "\n";
    if (result.previous_ms > 0) {
      text << "  speedup  " << result.speedup() << "x over chapter " << result.previous_chapter
           << " (" << previous_source(result) << ", " << result.previous_ms
           << " ms on the same inputs)\n";
    } else if (result.previous_failed) {
      text << "  speedup  not reported (chapter " << result.previous_chapter << ", "
           << previous_source(result) << ", fails its check on these inputs)\n";
    }
  }
  if (result.checked) {
    text << "  check    " << result.check.summary(result.output_columns) << "\n";
  } else {
    text << "  check    skipped (--no-check)\n";
  }
  out << text.str();
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
