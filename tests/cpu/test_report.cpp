// Launch geometry, device arithmetic, timing summaries, and the report and the CSV line: a result
// that failed its check shows no rate, no share of the peak and no speedup, in either form; a
// result that passed shows all three. All host-side.
#include "catch.hpp"
#include "csv_fields.hpp"

#include "course/device_info.hpp"
#include "course/launch.cuh"
#include "course/report.hpp"
#include "course/timing.hpp"

#include <cmath>
#include <optional>
#include <sstream>
#include <stdexcept>
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

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace

TEST_CASE("grid_2d rounds up and refuses grids beyond the device limits", "[launch]") {
  const dim3 grid = course::grid_2d(65, 33, dim3(32, 8));
  CHECK(grid.x == 3);
  CHECK(grid.y == 5);
  CHECK(grid.z == 1);
  const dim3 exact = course::grid_2d(64, 64, dim3(32, 8));
  CHECK(exact.x == 2);
  CHECK(exact.y == 8);
  CHECK(course::grid_2d(1, 65535LL * 8, dim3(32, 8)).y == 65535);
  CHECK_THROWS_AS(course::grid_2d(1, 65535LL * 8 + 1, dim3(32, 8)), std::invalid_argument);
  CHECK(course::grid_1d(257, 256).x == 2);
  CHECK_THROWS_AS(course::grid_1d(1LL << 50, 256), std::invalid_argument);
}

TEST_CASE("FP32 peak is SMs x lanes x clock x 2", "[device]") {
  course::DeviceInfo h100;
  h100.sms = 132;
  h100.fp32_lanes = course::fp32_lanes_per_sm(9, 0);
  h100.clock_khz = 1980000;
  CHECK(h100.fp32_lanes == 128);
  CHECK(h100.fp32_peak_flops() == Approx(66.9e12).epsilon(0.001));
  CHECK(h100.minplus_peak_steps() == Approx(16.7e12).epsilon(0.002));
  CHECK(course::fp32_lanes_per_sm(8, 0) == 64);
  CHECK(course::fp32_lanes_per_sm(8, 6) == 128);
  CHECK(course::fp32_lanes_per_sm(7, 0) == 64);
  CHECK(course::fp32_lanes_per_sm(3, 5) == 0);
  CHECK(course::DeviceInfo{}.fp32_peak_flops() == 0);
}

TEST_CASE("the TF32 peak of an H100 or H200 SXM is the datasheet's 494.7 TFLOP/s", "[device]") {
  course::DeviceInfo hopper;
  hopper.major = 9;
  hopper.sms = 132;
  hopper.clock_khz = 1980000;
  CHECK(hopper.tf32_peak_flops() == Approx(494.7e12).epsilon(0.001));
  course::DeviceInfo a100;  // rated at its own clock
  a100.major = 8;
  a100.sms = 108;
  a100.clock_khz = 1410000;
  CHECK(a100.tf32_peak_flops() == Approx(155.9e12).epsilon(0.001));
  CHECK(course::DeviceInfo{}.tf32_peak_flops() == 0);
}

TEST_CASE("timing summaries take the median", "[timing]") {
  const auto odd = course::summarize({5, 1, 3});
  CHECK(odd.median_ms == 3);
  CHECK(odd.min_ms == 1);
  CHECK(odd.max_ms == 5);
  CHECK(odd.runs == 3);
  CHECK(course::summarize({4, 1, 2, 3}).median_ms == 2.5);
  CHECK_THROWS_AS(course::summarize({}), std::invalid_argument);
}

TEST_CASE("rates and peak shares follow from sizes and time", "[report]") {
  course::DeviceInfo device;
  device.sms = 132;
  device.fp32_lanes = 128;
  device.clock_khz = 1980000;
  const auto product = course::product_workload(course::Problem::matmul, 4096, 4096, 4096);
  course::RunResult result;
  result.timing.median_ms = 10;
  course::fill_rate(result, device, product);
  CHECK(result.rate == Approx(2.0 * 4096 * 4096 * 4096 / 1e-2 / 1e12));
  CHECK(result.rate_unit == "TFLOP/s");
  CHECK(result.peak_percent == Approx(100 * result.rate * 1e12 / device.fp32_peak_flops()));
  CHECK(result.peak_name == "FP32 peak");
  device.major = 9;  // a Hopper: the TF32 product is measured against the tensor cores' peak
  course::fill_rate(result, device, product, course::Arithmetic::tf32);
  CHECK(result.peak_percent == Approx(100 * result.rate * 1e12 / device.tf32_peak_flops()));
  CHECK(result.peak_name == "TF32 tensor peak");
  CHECK(result.peak_key == "tf32");
  course::fill_rate(result, device,
                    course::product_workload(course::Problem::minplus, 4096, 4096, 4096));
  CHECK(result.rate_unit == "Tstep/s");
  CHECK(result.peak_percent ==
        Approx(100 * 4096.0 * 4096 * 4096 / 1e-2 / device.minplus_peak_steps()));
  course::fill_rate(result, device, course::conv1d_workload(1000, 11));
  CHECK(result.rate == Approx(1010 / 1e-2 / 1e9));
  result.previous_ms = 25;
  CHECK(result.speedup() == 2.5);
}

TEST_CASE("CSV fields are quoted when needed and lines match the header", "[report]") {
  CHECK(course::csv_field("plain") == "plain");
  CHECK(course::csv_field("a,b") == "\"a,b\"");
  CHECK(course::csv_field("say \"x\"") == "\"say \"\"x\"\"\"");
  course::RunResult result;
  result.device = "GPU, model 1";
  result.kernels.push_back(course::KernelResources{});
  result.kernels.back().name = "kernel<a, b>";
  const std::string line = course::csv_line(result);
  CHECK(split_csv(line).size() == split_csv(course::csv_header()).size());
  CHECK(contains(line, "UNCHECKED"));
}

TEST_CASE("a failed result's report names no rate, peak share or speedup", "[report]") {
  const std::string text = report_of(absurd_result(false));
  INFO(text);
  CHECK(contains(text, "rate     not reported (the result failed its check)"));
  CHECK(contains(text, "speedup  not reported (the result failed its check)"));
  for (const char* figure : {"2950", "4410", "TFLOP/s", "% of the", "x over chapter"}) {
    INFO("shown: " << figure);
    CHECK_FALSE(contains(text, figure));
  }
  CHECK(contains(text, "check    FAIL"));
}

TEST_CASE("a passed result's report shows its rate, peak share and speedup", "[report]") {
  const std::string text = report_of(absurd_result(true));
  INFO(text);
  CHECK(contains(text, "rate     2951 TFLOP/s, 4410.3% of the FP32 peak"));
  CHECK(contains(text, "x over chapter 1"));
  CHECK_FALSE(contains(text, "not reported"));
}

TEST_CASE("the speedup names the kernels it is over: the solution or the student's own",
          "[report]") {
  course::RunResult result = absurd_result(true);
  result.previous_chapter = 4;
  result.previous_solution = true;
  CHECK(contains(report_of(result), "x over chapter 4 (solution, 21.500 ms on the same inputs)"));
  result.previous_solution = false;
  const std::string own = report_of(result);
  INFO(own);
  CHECK(contains(own, "x over chapter 4 (your kernels, 21.500 ms on the same inputs)"));
  CHECK_FALSE(contains(own, "solution"));
}

TEST_CASE("no speedup over a previous chapter that failed its check", "[report]") {
  // The student's own chapter 4, unfinished: it was checked, failed, and was not timed.
  course::RunResult result = absurd_result(true);
  result.previous_chapter = 4;
  result.previous_ms = 0;
  result.previous_failed = true;
  const std::string text = report_of(result);
  INFO(text);
  CHECK(contains(text,
                 "speedup  not reported (chapter 4, your kernels, fails its check on these "
                 "inputs)"));
  CHECK_FALSE(contains(text, "x over chapter"));
  CHECK(result.speedup() == 0);
  const std::string header = course::csv_header();
  CHECK(field(header, course::csv_line(result), "previous_ms") == "0");
}

TEST_CASE("an unchecked result's rate says that it was not checked", "[report]") {
  course::RunResult result = absurd_result(true);
  result.checked = false;
  const std::string text = report_of(result);
  INFO(text);
  CHECK(contains(text, "TFLOP/s"));
  CHECK(contains(text, "unchecked"));
}

TEST_CASE("a failed result's CSV line leaves rate, peak share and speedup empty", "[report]") {
  const std::string header = course::csv_header();
  const std::string failed = course::csv_line(absurd_result(false));
  INFO(failed);
  CHECK(split_csv(failed).size() == split_csv(header).size());
  CHECK(field(header, failed, "status") == "FAIL");
  for (const char* figure : {"rate", "peak_percent", "speedup"}) {
    INFO("column " << figure);
    CHECK(field(header, failed, figure).empty());
  }
  CHECK(field(header, failed, "rate_unit") == "TFLOP/s");  // a name, not a figure: kept
  CHECK(field(header, failed, "mismatches") == "4096");
  const std::string passed = course::csv_line(absurd_result(true));
  INFO(passed);
  CHECK(field(header, passed, "status") == "PASS");
  CHECK(field(header, passed, "rate") == "2950.85");
  CHECK(field(header, passed, "peak_percent") == "4410.3");
  CHECK_FALSE(field(header, passed, "speedup").empty());
}

TEST_CASE("a failed result's JSON has null rate, peak share and speedup", "[report]") {
  const std::string failed = course::result_json(absurd_result(false));
  INFO(failed);
  for (const char* figure : {"rate", "rate_text", "peak_percent", "speedup", "speedup_text"})
    CHECK(failed.find("\"" + std::string(figure) + "\":null") != std::string::npos);
  CHECK(failed.find("\"verdict\":\"FAIL\"") != std::string::npos);
  CHECK(failed.find("\"mismatches\":4096") != std::string::npos);
  const std::string passed = course::result_json(absurd_result(true));
  INFO(passed);
  CHECK(passed.find("\"rate\":2950.85") != std::string::npos);
  CHECK(passed.find("\"verdict\":\"PASS\"") != std::string::npos);
  CHECK(passed.find("\"speedup\":null") == std::string::npos);
}

TEST_CASE("a result's JSON gives its launch choices as data as well as in words", "[report]") {
  course::RunResult result = absurd_result(true);
  CHECK(course::result_json(result).find("\"choices\":{}") != std::string::npos);
  result.variant = "lanes=16 variant=fused";
  result.choices = {{"lanes", "16"}, {"variant", "fused"}};
  const std::string json = course::result_json(result);
  INFO(json);
  CHECK(json.find("\"variant\":\"lanes=16 variant=fused\"") != std::string::npos);
  CHECK(json.find("\"choices\":{\"lanes\":\"16\",\"variant\":\"fused\"}") != std::string::npos);
}

TEST_CASE("the JSON carries a run's arithmetic and its peak, whatever the verdict", "[report]") {
  course::DeviceInfo hopper;
  hopper.major = 9;
  hopper.sms = 132;
  hopper.fp32_lanes = 128;
  hopper.clock_khz = 1980000;
  course::RunResult result = absurd_result(false);
  course::fill_rate(result, hopper,
                    course::product_workload(course::Problem::matmul, 4096, 4096, 4096),
                    course::Arithmetic::tf32);
  CHECK(result.peak_flops == hopper.tf32_peak_flops());
  const std::string failed = course::result_json(result);
  INFO(failed);
  CHECK(failed.find("\"flops\":1.37439e+11") != std::string::npos);       // 2 x 4096^3
  CHECK(failed.find("\"peak_flops\":4.94715e+14") != std::string::npos);  // the TF32 tensor peak
  CHECK(failed.find("\"peak\":\"tf32\"") != std::string::npos);
  CHECK(course::result_json(course::RunResult{}).find("\"peak_flops\":null") != std::string::npos);
}

TEST_CASE("the JSON counts the arithmetic in the FMA pipe's operations: FLOPs, or min-plus steps",
          "[report]") {
  course::DeviceInfo hopper;
  hopper.sms = 132;
  hopper.fp32_lanes = 128;
  hopper.clock_khz = 1980000;
  course::RunResult result = absurd_result(true);
  course::fill_rate(result, hopper,
                    course::product_workload(course::Problem::minplus, 4096, 4096, 4096));
  const std::string steps = course::result_json(result);
  INFO(steps);
  CHECK(steps.find("\"operation\":\"step\",\"operations\":6.87195e+10,"  // 4096^3 steps
                   "\"operations_per_fma_slot\":0.5") != std::string::npos);
  // The min-plus peak is the FMA pipe's slots at that many steps each.
  CHECK(hopper.minplus_peak_steps() == hopper.fma_slots_per_second() * 0.5);
  course::fill_rate(result, hopper, course::conv1d_workload(1000, 11));
  const std::string flops = course::result_json(result);
  INFO(flops);
  CHECK(flops.find("\"operation\":\"FLOP\",\"operations\":22000,"  // 2 x 1000 x 11
                   "\"operations_per_fma_slot\":2") != std::string::npos);
  CHECK(course::result_json(course::RunResult{})
            .find("\"operation\":\"\",\"operations\":null,\"operations_per_fma_slot\":null") !=
        std::string::npos);
}

TEST_CASE("the JSON names each kernel readably and by its symbol", "[report]") {
  course::RunResult result = absurd_result(true);
  course::KernelResources kernel;
  kernel.name = "ch04::product_kernel<course::PlusTimes>";
  kernel.symbol = "_Z14product_kernelIN6course9PlusTimesEEvPKfS3_Pfiii";
  result.kernels.push_back(kernel);
  const std::string json = course::result_json(result);
  INFO(json);
  CHECK(json.find("{\"name\":\"ch04::product_kernel<course::PlusTimes>\",\"symbol\":\"_Z14product_"
                  "kernelIN6course9PlusTimesEEvPKfS3_Pfiii\",\"registers\":0,") !=
        std::string::npos);
}

TEST_CASE("the JSON gives the rate and the speedup as every view shows them", "[report]") {
  const std::string passed = course::result_json(absurd_result(true));
  INFO(passed);
  CHECK(passed.find("\"rate_text\":\"2951\"") != std::string::npos);
  CHECK(passed.find("\"speedup_text\":\"461.37x\"") != std::string::npos);
  course::RunResult alone = absurd_result(true);
  alone.previous_ms = 0;  // no previous chapter ran: no speedup to show
  CHECK(course::result_json(alone).find("\"speedup_text\":null") != std::string::npos);
}

TEST_CASE("a compiled kernel name reads as the reports name it, with the problems it computes",
          "[report]") {
  const std::string product =
      course::kernel_name_json("_ZN4ch0914product_kernelIN6course7MinPlusEEEvPKfS4_Pfiiiii");
  CHECK(product ==
        "{\"symbol\":\"_ZN4ch0914product_kernelIN6course7MinPlusEEEvPKfS4_Pfiiiii\","
        "\"name\":\"ch09::product_kernel<course::MinPlus>\",\"problems\":[\"minplus\"]}");
  CHECK(course::kernel_name_json("_ZN4ch0913conv2d_kernelILi0ELi0EEEvPKfiiS2_iiPf")
            .find("\"name\":\"ch09::conv2d_kernel<0, 0>\",\"problems\":[\"conv2d\"]") !=
        std::string::npos);
  // A helper that names no problem serves every one; a name that does not demangle stays as it is.
  CHECK(course::kernel_name_json("_Z10pad_kernelPf") ==
        "{\"symbol\":\"_Z10pad_kernelPf\",\"name\":\"pad_kernel\",\"problems\":"
        "[\"matmul\",\"minplus\",\"conv2d\",\"conv1d\"]}");
  CHECK(course::kernel_name_json("not_mangled").find("\"name\":\"not_mangled\"") !=
        std::string::npos);
}

TEST_CASE("a rate is graded against a reference: a star at 50, 80 and 95%, two to pass",
          "[report][grade]") {
  struct Case {
    double rate;
    int stars;
  };
  // Each grade from its threshold on, not before it.
  for (const Case c : {Case{94.9, 2}, Case{95, 3}, Case{120, 3}, Case{79.9, 1}, Case{80, 2},
                       Case{49.9, 0}, Case{50, 1}}) {
    INFO("rate " << c.rate << " against 100");
    const std::optional<course::RateGrade> grade = course::grade_rate(c.rate, 100);
    REQUIRE(grade.has_value());
    CHECK(std::fabs(grade->share - c.rate / 100) < 1e-12);
    CHECK(grade->stars == c.stars);
    CHECK(grade->passes() == (c.stars >= 2));
  }
  CHECK_FALSE(course::grade_rate(10, 0).has_value());
  CHECK_FALSE(course::grade_rate(0, 10).has_value());
}

TEST_CASE("the JSON and the report give the grade against --against; a failed result has none",
          "[report][grade]") {
  course::RunResult result = absurd_result(true);
  CHECK(course::result_json(result).find("\"grade\":null") != std::string::npos);
  result.against = 3500;  // 2950.85 of 3500: 84%, two stars
  const std::string json = course::result_json(result);
  INFO(json);
  CHECK(json.find("\"against_text\":\"3500\"") != std::string::npos);
  CHECK(json.find("\"share_text\":\"84%\"") != std::string::npos);
  CHECK(json.find("\"stars\":2,\"stars_text\":\"**\"") != std::string::npos);
  CHECK(json.find("\"needed_text\":\"80%\",\"passes\":true") != std::string::npos);
  CHECK(contains(report_of(result), "grade    ** 84% of 3500 TFLOP/s (--against): passes"));
  result.against = 6000;  // 49%: no star
  CHECK(course::result_json(result).find("\"stars_text\":\"-\"") != std::string::npos);
  CHECK(course::result_json(result).find("\"passes\":false") != std::string::npos);
  CHECK(contains(report_of(result), "grade    - 49% of 6000 TFLOP/s (--against): does not pass"));
  course::RunResult failed = absurd_result(false);
  failed.against = 3500;
  CHECK(course::result_json(failed).find("\"grade\":null") != std::string::npos);
  CHECK_FALSE(contains(report_of(failed), "grade"));
}
