// The report and the CSV line: a result that failed its check shows no rate, no share of the peak
// and no speedup, in either form; a result that passed shows all three.
#include "catch.hpp"
#include "csv_fields.hpp"

#include "course/report.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace {

using course::testing::field;
using course::testing::split_csv;

// The chapter-1 student's matmul as shipped: every thread skips its output, so the kernel takes
// almost no time and the rate computed from that time is absurd.
course::RunResult absurd_result(bool passed) {
  course::RunResult result;
  result.device = "Example GPU";
  result.chapter = 1;
  result.problem = course::Problem::matmul;
  result.sizes = "m=4096 n=4096 k=4096";
  result.timing.median_ms = 0.0466;
  result.timing.min_ms = 0.0461;
  result.timing.max_ms = 0.0472;
  result.timing.runs = 10;
  result.rate = 2950.85;
  result.rate_unit = "TFLOP/s";
  result.peak_percent = 4410.30;
  result.peak_name = "FP32 peak";
  result.previous_ms = 21.5;
  result.previous_chapter = 1;
  result.checked = true;
  result.check.passed = passed;
  result.check.compared = 4096;
  result.check.mismatches = passed ? 0 : 4096;
  result.check.nans = passed ? 0 : 4096;
  return result;
}

std::string report_of(const course::RunResult& result) {
  std::ostringstream out;
  course::print_report(out, result);
  return out.str();
}

}  // namespace

TEST_CASE("a failed result's report names no rate, peak share or speedup", "[report]") {
  const std::string text = report_of(absurd_result(false));
  INFO(text);
  CHECK(text.find("rate     not reported (the result failed its check)") != std::string::npos);
  CHECK(text.find("speedup  not reported (the result failed its check)") != std::string::npos);
  CHECK(text.find("2950") == std::string::npos);
  CHECK(text.find("4410") == std::string::npos);
  CHECK(text.find("TFLOP/s") == std::string::npos);
  CHECK(text.find("% of the") == std::string::npos);
  CHECK(text.find("x over chapter") == std::string::npos);
  CHECK(text.find("check    FAIL") != std::string::npos);
}

TEST_CASE("a passed result's report shows its rate, peak share and speedup", "[report]") {
  const std::string text = report_of(absurd_result(true));
  INFO(text);
  CHECK(text.find("rate     2950.85 TFLOP/s, 4410.30% of the FP32 peak") != std::string::npos);
  CHECK(text.find("x over chapter 1") != std::string::npos);
  CHECK(text.find("not reported") == std::string::npos);
}

TEST_CASE("an unchecked result's rate says that it was not checked", "[report]") {
  course::RunResult result = absurd_result(true);
  result.checked = false;
  const std::string text = report_of(result);
  INFO(text);
  CHECK(text.find("TFLOP/s") != std::string::npos);
  CHECK(text.find("unchecked") != std::string::npos);
}

TEST_CASE("a failed result's CSV line leaves rate, peak share and speedup empty", "[report]") {
  const std::string header = course::csv_header();
  const std::string failed = course::csv_line(absurd_result(false));
  INFO(failed);
  CHECK(split_csv(failed).size() == split_csv(header).size());
  CHECK(field(header, failed, "status") == "FAIL");
  CHECK(field(header, failed, "rate").empty());
  CHECK(field(header, failed, "peak_percent").empty());
  CHECK(field(header, failed, "speedup").empty());
  CHECK(field(header, failed, "rate_unit") == "TFLOP/s");  // a name, not a figure: kept
  CHECK(field(header, failed, "mismatches") == "4096");

  const std::string passed = course::csv_line(absurd_result(true));
  INFO(passed);
  CHECK(field(header, passed, "status") == "PASS");
  CHECK(field(header, passed, "rate") == "2950.85");
  CHECK(field(header, passed, "peak_percent") == "4410.3");
  CHECK_FALSE(field(header, passed, "speedup").empty());
}
