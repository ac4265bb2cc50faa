// Launch geometry, device arithmetic, timing summaries and report formatting: all host-side.
#include "catch.hpp"

#include "course/device_info.hpp"
#include "course/launch.cuh"
#include "course/report.hpp"
#include "course/timing.hpp"

#include <stdexcept>

TEST_CASE("ceil_div covers partial blocks", "[launch]") {
  CHECK(course::ceil_div(1, 32) == 1);
  CHECK(course::ceil_div(32, 32) == 1);
  CHECK(course::ceil_div(33, 32) == 2);
  CHECK(course::ceil_div(64, 32) == 2);
  CHECK(course::ceil_div(65, 32) == 3);
  CHECK(course::ceil_div(4294967296LL, 256) == 16777216);
}

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

TEST_CASE("argument checks stay in release builds", "[launch]") {
  CHECK_THROWS_AS(course::require(false, "message"), std::invalid_argument);
  CHECK_NOTHROW(course::require(true, "message"));
  CHECK_THROWS_WITH(course::require_positive(0, "m"), "m must be at least 1, got 0");
  CHECK_THROWS_AS(course::require_positive(-3, "k"), std::invalid_argument);
  CHECK_NOTHROW(course::require_positive(1, "n"));
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
  course::DeviceInfo unknown;
  CHECK(unknown.fp32_peak_flops() == 0);
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
  course::RunResult result;
  result.timing.median_ms = 10;
  course::fill_rate(result, device,
                    course::product_workload(course::Problem::matmul, 4096, 4096, 4096));
  CHECK(result.rate == Approx(2.0 * 4096 * 4096 * 4096 / 1e-2 / 1e12));
  CHECK(result.rate_unit == "TFLOP/s");
  CHECK(result.peak_percent == Approx(100 * result.rate * 1e12 / device.fp32_peak_flops()));
  CHECK(result.peak_name == "FP32 peak");
  const double fp32_percent = result.peak_percent;
  course::fill_rate(result, device,
                    course::product_workload(course::Problem::matmul, 4096, 4096, 4096),
                    course::Arithmetic::tf32);
  CHECK(result.peak_percent == Approx(fp32_percent));  // the same comparison, named for TF32
  CHECK(result.peak_name.find("tensor cores") != std::string::npos);
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
  auto count_fields = [](const std::string& text) {
    int fields = 1;
    bool quoted = false;
    for (char c : text) {
      if (c == '"')
        quoted = !quoted;
      if (c == ',' && !quoted)
        ++fields;
    }
    return fields;
  };
  CHECK(count_fields(line) == count_fields(course::csv_header()));
  CHECK(line.find("UNCHECKED") != std::string::npos);
}
