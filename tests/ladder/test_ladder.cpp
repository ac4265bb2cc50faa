// CPU tests of the performance ladder's host code: sizes and labels, ceilings, the ratio
// arithmetic, the goals, and the CSV writer (scripts/ladder/results.hpp, goals.hpp); its command
// line is tested in test_ladder_options.cpp.
#include "catch.hpp"
#include "csv_fields.hpp"

#include "goals.hpp"
#include "options.hpp"
#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using course::testing::field;
using course::testing::split_csv;

using course::Problem;
using course::Workload;
using ladder::Row;
using ladder::Status;

// A device with round numbers: 100 SMs x 128 lanes x 2 GHz x 2 = 51.2 TFLOP/s FP32, 12.8 T
// min-plus steps/s, and 2 x 1 GHz x 4096 bits / 8 = 1.024 TB/s.
course::DeviceInfo round_device() {
  course::DeviceInfo device;
  device.name = "Round GPU";
  device.sms = 100;
  device.fp32_lanes = 128;
  device.clock_khz = 2000000;
  device.memory_clock_khz = 1000000;
  device.memory_bus_bits = 4096;
  return device;
}

// A row of `implementation` on `workload` that took `median_ms`, with the rate that implies. A
// label with a space after the chapter ("ch03 dispatch") is that chapter's variant.
Row make_row(const Workload& workload, const std::string& implementation, int chapter,
             double median_ms, Status status = Status::pass) {
  Row row;
  row.date = "2025-01-15";
  row.workload = workload;
  row.implementation = implementation;
  row.chapter = chapter;
  const std::size_t space = implementation.find(' ');
  if (chapter > 0 && space != std::string::npos)
    row.variant = implementation.substr(space + 1);
  row.status = status;
  row.result.timing = {median_ms, median_ms, median_ms, 10};
  row.result.rate =
      course::work_per_run(workload) / (median_ms * 1e-3) / course::rate_scale(workload.problem);
  row.ceiling = course::ceiling(workload, round_device());
  if (status == Status::fail)
    row.message = "FAIL: 3 elements outside the tolerance";
  return row;
}

// A ratio's value, or NaN (equal to nothing, Approx included) where it has none.
double value(const std::optional<double>& ratio) {
  return ratio.value_or(std::nan(""));
}

// The lines of the results CSV of `rows`, the header first.
std::vector<std::string> csv_lines(const std::vector<Row>& rows, const std::string& device) {
  std::ostringstream csv;
  ladder::write_csv(csv, rows, device);
  std::istringstream in(csv.str());
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// Checks what a goal measured (nothing where `measured` is empty) and its verdict.
void check_goal(const ladder::GoalResult& result, std::optional<double> measured,
                const std::string& verdict) {
  INFO(result.goal.description);
  if (measured) {
    CHECK(value(result.measured) == Approx(*measured));
  } else {
    CHECK_FALSE(result.measured);
  }
  CHECK(result.verdict() == verdict);
}

const Workload kMatmul4096 = course::product_workload(Problem::matmul, 4096, 4096, 4096);
const Workload kConv2d = course::conv2d_workload(8192, 8192, 13, 13);
const Workload kConv1d = course::conv1d_workload(1 << 24, 127);

}  // namespace

TEST_CASE("size labels are short and tell workloads apart", "[ladder]") {
  const std::pair<Workload, std::string> cases[] = {
      {kMatmul4096, "4096"},
      {course::product_workload(Problem::minplus, 300, 200, 100), "300x200x100"},
      {kConv2d, "8192x8192, 13x13 mask"},
      {kConv1d, "2^24, 127 taps"},
      {course::conv1d_workload(10007, 127), "10007, 127 taps"},
  };
  for (const auto& [workload, label] : cases)
    CHECK(ladder::size_label(workload) == label);
  // Rows are matched by workload: the problem and its own sizes, whatever the other fields hold.
  Workload with_other_fields = kMatmul4096;
  with_other_fields.height = 7;
  with_other_fields.taps = 3;
  CHECK((with_other_fields == kMatmul4096));
  CHECK_FALSE((kMatmul4096 == course::product_workload(Problem::minplus, 4096, 4096, 4096)));
  CHECK_FALSE((kMatmul4096 == course::product_workload(Problem::matmul, 4096, 4096, 2048)));
  CHECK_FALSE((kConv2d == course::conv2d_workload(8192, 8192, 13, 11)));
  CHECK_FALSE((kConv1d == course::conv1d_workload(1 << 24, 63)));
}

TEST_CASE("the default plan holds the benchmark sizes the goals are measured on", "[ladder]") {
  const std::vector<Workload> plan = ladder::default_workloads();
  for (const ladder::Goal& goal : ladder::performance_goals()) {
    INFO(goal.description);
    CHECK(std::find(plan.begin(), plan.end(), goal.workload) != plan.end());
  }
}

TEST_CASE("ceilings: the arithmetic peak or the memory bound, whichever is lower", "[ladder]") {
  const course::DeviceInfo device = round_device();
  REQUIRE(device.fp32_peak_flops() == Approx(51.2e12));
  REQUIRE(device.memory_bandwidth() == Approx(1.024e12));

  const course::Ceiling matmul = course::ceiling(kMatmul4096, device);
  CHECK(matmul.name == "FP32 peak");
  CHECK(matmul.rate == Approx(51.2));  // TFLOP/s
  // A matrix product of 4096 is arithmetic bound by far.
  CHECK(matmul.memory_rate > 10 * matmul.compute_rate);

  const course::Ceiling minplus =
      course::ceiling(course::product_workload(Problem::minplus, 4096, 4096, 4096), device);
  CHECK(minplus.name == "min-plus peak");
  CHECK(minplus.rate == Approx(12.8));  // Tstep/s: half the FMA rate

  // conv2d with a 13 x 13 mask: 338 FLOP per pixel, so 51.2e12 / 338 pixels/s from arithmetic;
  // 8 bytes per pixel at 1.024 TB/s gives 128 Gpixel/s from memory, which is tighter.
  const course::Ceiling conv2d = course::ceiling(kConv2d, device);
  CHECK(conv2d.compute_rate == Approx(51.2e12 / 338 / 1e9));
  CHECK(conv2d.memory_rate == Approx(128.0).epsilon(1e-4));
  CHECK(conv2d.name == "memory bound");
  CHECK(conv2d.rate == Approx(conv2d.memory_rate));

  // bytes: inputs read once and the output written once.
  CHECK(course::bytes_per_run(kMatmul4096) == Approx(3.0 * 4096 * 4096 * 4));
  CHECK(course::bytes_per_run(kConv1d) == Approx(4.0 * ((1 << 24) + 127 + (1 << 24) + 126)));

  course::DeviceInfo unknown = device;
  unknown.fp32_lanes = 0;
  unknown.memory_bus_bits = 0;
  CHECK(course::ceiling(kMatmul4096, unknown).rate == 0);

  // The same peak as every executable's report: a TF32 run's is the tensor cores' (a Hopper's
  // 2048 dense TF32 FLOP per SM and cycle, at the 1830 MHz its datasheet rates them at).
  CHECK(course::arithmetic_peak(Problem::matmul, device).flops == Approx(51.2e12));
  course::DeviceInfo hopper = device;
  hopper.major = 9;
  const course::Ceiling tf32 = course::ceiling(kMatmul4096, hopper, course::Arithmetic::tf32);
  CHECK(tf32.name == "TF32 tensor peak");
  CHECK(tf32.rate == Approx(100 * 2048 * 1.83e9 / 1e12));
}

TEST_CASE("ratios: speedup over the previous chapter, shares of cuBLAS and the best", "[ladder]") {
  std::vector<Row> rows = {
      make_row(kMatmul4096, "ch01", 1, 40.0),
      make_row(kMatmul4096, "ch02", 2, 20.0),
      make_row(kMatmul4096, "ch03", 3, 16.0, Status::fail),
      make_row(kMatmul4096, "ch04", 4, 5.0),
      make_row(kMatmul4096, ladder::kCublasLabel, 0, 4.0),
      make_row(kConv1d, "ch01", 1, 3.0),
      make_row(kConv1d, "ch03", 3, 1.0),
  };
  ladder::compute_ratios(rows);

  CHECK_FALSE(rows[0].speedup);  // chapter 1 has no previous chapter
  CHECK(value(rows[1].speedup) == Approx(2.0));
  CHECK_FALSE(rows[2].speedup);  // a FAIL gets no ratios at all
  CHECK_FALSE(rows[2].cublas_percent);
  CHECK_FALSE(rows[2].ceiling_percent);
  CHECK_FALSE(rows[3].speedup);  // its previous chapter failed: never a reference

  CHECK(value(rows[3].cublas_percent) == Approx(80.0));
  CHECK(value(rows[0].cublas_percent) == Approx(10.0));
  CHECK_FALSE(rows[4].cublas_percent);  // the baseline against itself says nothing
  CHECK_FALSE(rows[4].best_percent);
  CHECK(rows[4].ceiling_percent);

  CHECK(value(rows[3].best_percent) == Approx(100.0));
  CHECK(value(rows[1].best_percent) == Approx(25.0));

  // 2 x 4096^3 FLOP in 5 ms is 27.49 TFLOP/s, of a 51.2 TFLOP/s peak.
  CHECK(rows[3].result.rate == Approx(27.4878).epsilon(1e-4));
  CHECK(value(rows[3].ceiling_percent) == Approx(100.0 * 27.4878 / 51.2).epsilon(1e-4));

  // conv1d: chapter 2 does not carry it, so chapter 3 is compared with chapter 1.
  CHECK(value(rows[6].speedup) == Approx(3.0));
  CHECK_FALSE(rows[6].cublas_percent);
}

TEST_CASE("a chapter's variant is its best: the next chapter's speedup is over it", "[ladder]") {
  std::vector<Row> rows = {
      make_row(kMatmul4096, "ch02", 2, 20.0),
      make_row(kMatmul4096, "ch03", 3, 25.0),
      make_row(kMatmul4096, "ch03 dispatch", 3, 21.0),
      make_row(kMatmul4096, "ch04", 4, 7.0),
      make_row(kConv2d, "ch02", 2, 6.0),
      make_row(kConv2d, "ch03 dispatch", 3, 6.5, Status::fail),
      make_row(kConv2d, "ch03", 3, 7.0),
      make_row(kConv2d, "ch04", 4, 2.0),
      make_row(kConv1d, "ch01", 1, 3.0),
      make_row(kConv1d, "ch03", 3, 1.0),
  };
  ladder::compute_ratios(rows);
  // Both chapter-3 rows are compared with chapter 2.
  CHECK(value(rows[1].speedup) == Approx(0.8));
  CHECK(value(rows[2].speedup) == Approx(20.0 / 21.0));
  // Chapter 4 is compared with chapter 3's variant, not its main kernels.
  CHECK(value(rows[3].speedup) == Approx(3.0));
  // The variant failed its check: no reference, whatever the main kernels did.
  CHECK_FALSE(rows[7].speedup);
  // A chapter without a variant row for a workload is compared with its main row.
  CHECK(value(rows[9].speedup) == Approx(3.0));
  CHECK(ladder::implementation_label(3, "dispatch") == "ch03 dispatch");
  CHECK(ladder::implementation_label(3, "") == "ch03");
}

TEST_CASE("goals: met, missed, or not measured", "[ladder]") {
  const Workload minplus = course::product_workload(Problem::minplus, 4096, 4096, 4096);
  std::vector<Row> rows = {
      make_row(kMatmul4096, "ch01", 1, 30.0),
      make_row(kMatmul4096, "ch02", 2, 15.0),
      make_row(kMatmul4096, "ch03", 3, 18.0),
      make_row(kMatmul4096, "ch03 dispatch", 3, 16.0),
      make_row(kMatmul4096, "ch04", 4, 5.0),
      make_row(kMatmul4096, ladder::kCublasLabel, 0, 4.0),
      make_row(minplus, "ch04", 4, 10.0),
      make_row(kConv2d, "ch02", 2, 6.0),
      make_row(kConv2d, "ch03", 3, 6.2),
      make_row(kConv2d, "ch03 dispatch", 3, 7.0),
      make_row(kConv2d, "ch04", 4, 2.5, Status::fail),
  };
  rows[6].result.peak_percent = 69.0;
  ladder::compute_ratios(rows);
  const std::vector<ladder::GoalResult> goals =
      ladder::evaluate_goals(ladder::performance_goals(), rows);
  REQUIRE(goals.size() == 22);
  check_goal(goals[0], 2.0, "met");
  // Chapter 3 dispatch against chapter 2: the variant's row, not the main kernels' (0.83x).
  check_goal(goals[1], 15.0 / 16.0, "met");
  check_goal(goals[2], 80.0, "met");
  check_goal(goals[3], 69.0, "missed");
  check_goal(goals[4], 6.0 / 7.0, "missed");
  check_goal(goals[5], std::nullopt, "not measured");  // chapter 4's conv2d failed its check
  for (std::size_t i = 6; i < goals.size(); ++i)
    check_goal(goals[i], std::nullopt, "not measured");  // no chapter 5, 6, 7 or 8 rows

  std::ostringstream csv;
  ladder::write_goals_csv(csv, goals);
  const std::string text = csv.str();
  CHECK(text.rfind("goal,target,measured,unit,verdict,measured_text\n", 0) == 0);
  CHECK(text.find(",met,2.00x\n") != std::string::npos);  // as the tables show it
  CHECK(text.find("\"conv2d 8192x8192, 13x13 mask: chapter 4 at least 3x chapter 2\",3,,x,"
                  "not measured") != std::string::npos);
}

TEST_CASE("a missed goal never reads as its target", "[ladder]") {
  ladder::Goal speedup = ladder::performance_goals().front();
  speedup.kind = ladder::Goal::Kind::speedup_over_chapter;
  speedup.target = 1.05;
  CHECK(ladder::measured_text({speedup, 1.04695}) == "1.047x");
  CHECK(ladder::measured_text({speedup, 1.04999}) == "1.0500x");  // as far as two more decimals
  CHECK(ladder::measured_text({speedup, 1.05}) == "1.05x");       // met: as the tables show it
  CHECK(ladder::measured_text({speedup, 1.2}) == "1.20x");
  CHECK(ladder::measured_text({speedup, std::nullopt}).empty());
  ladder::Goal share = speedup;
  share.kind = ladder::Goal::Kind::percent_of_cublas;
  share.target = 100;
  CHECK(ladder::measured_text({share, 99.97}) == "99.97%");
  CHECK(ladder::measured_text({share, 98.0}) == "98.0%");
}

TEST_CASE("the tensor-core chapter is measured against cuBLAS with tensor cores", "[ladder]") {
  const Workload matmul = course::product_workload(Problem::matmul, 8192, 8192, 8192);
  std::vector<Row> rows = {
      make_row(matmul, "ch04", 4, 24.0),
      make_row(matmul, "ch05", 5, 22.0),
      make_row(matmul, "ch06", 6, 6.0),
      make_row(matmul, ladder::kCublasLabel, 0, 21.0),
      make_row(matmul, ladder::kCublasTf32Label, 0, 3.0),
      make_row(matmul, "ch07", 7, 3.2),
      make_row(matmul, "ch08", 8, 3.1),
  };
  for (std::size_t tf32 : {2, 4, 5, 6})
    rows[tf32].arithmetic = course::Arithmetic::tf32;
  ladder::compute_ratios(rows);
  CHECK(value(rows[1].cublas_percent) == Approx(100.0 * 21.0 / 22.0));  // FP32 against FP32
  CHECK(value(rows[2].cublas_percent) == Approx(50.0));  // TF32 against TF32: 3 ms / 6 ms
  CHECK_FALSE(rows[3].cublas_percent);                   // the baselines are not compared
  CHECK_FALSE(rows[4].cublas_percent);
  CHECK(value(rows[5].cublas_percent) == Approx(100.0 * 3.0 / 3.2));

  const std::vector<ladder::GoalResult> goals =
      ladder::evaluate_goals(ladder::performance_goals(), rows);
  const auto goal = [&](const std::string& description) {
    const auto found = std::find_if(goals.begin(), goals.end(), [&](const auto& result) {
      return result.goal.description == description;
    });
    REQUIRE(found != goals.end());
    return *found;
  };
  check_goal(goal("matmul 8192: chapter 6 at least 60% of cuBLAS TF32"), 50.0, "missed");
  check_goal(goal("matmul 8192: chapter 6 at least 3x chapter 4"), 4.0, "met");
  check_goal(goal("matmul 8192: chapter 5 at least 100% of cuBLAS"), 100.0 * 21.0 / 22.0, "missed");
  check_goal(goal("matmul 8192: chapter 7 at least 90% of cuBLAS TF32"), 100.0 * 3.0 / 3.2, "met");
  check_goal(goal("matmul 8192: chapter 7 at least 2x chapter 6"), 6.0 / 3.2, "missed");
  check_goal(goal("matmul 4096: chapter 7 at least 90% of cuBLAS TF32"), std::nullopt,
             "not measured");
  // Chapter 8: against cuBLAS TF32 (3 ms / 3.1 ms) and against chapter 7 (3.2 ms / 3.1 ms).
  check_goal(goal("matmul 8192: chapter 8 at least 100% of cuBLAS TF32"), 100.0 * 3.0 / 3.1,
             "missed");
  check_goal(goal("matmul 8192: chapter 8 at least 1.05x chapter 7"), 3.2 / 3.1, "missed");

  const std::vector<std::string> lines = csv_lines(rows, "Example GPU");
  std::vector<std::string> references;
  for (std::size_t i = 1; i < lines.size(); ++i)
    references.push_back(field(lines[0], lines[i], "cublas_reference"));
  CHECK(references == std::vector<std::string>{"cuBLAS", "cuBLAS", "cuBLAS TF32", "", "",
                                               "cuBLAS TF32", "cuBLAS TF32"});
}

TEST_CASE("the CSV writer: one field per column, FAILs without figures", "[ladder]") {
  std::vector<Row> rows = {
      make_row(kMatmul4096, "ch01", 1, 40.0),
      make_row(kMatmul4096, "ch02", 2, 20.0, Status::fail),
      make_row(kMatmul4096, ladder::kCublasLabel, 0, 4.0),
      make_row(kConv1d, "ch01", 1, 3.0),
  };
  course::KernelResources kernel;
  kernel.name = "ch01::product_kernel<course::PlusTimes, (ch01::ThreadMapping)0>";
  kernel.registers = 40;
  kernel.static_shared = 1024;
  kernel.dynamic_shared = 512;
  kernel.blocks_per_sm = 6;
  kernel.threads_per_block = 256;
  kernel.local_bytes = 16;
  rows[0].result.kernels = {kernel};
  rows[0].result.timing.min_ms = 39.5;
  rows[0].result.timing.max_ms = 41;
  rows[0].result.peak_percent = 6.5;
  rows[0].result.peak_name = "FP32 peak";
  ladder::compute_ratios(rows);

  const std::vector<std::string> lines = csv_lines(rows, "Round GPU, rev \"B\"");
  const std::string& header = lines[0];
  CHECK(header == ladder::csv_header());
  REQUIRE(lines.size() == rows.size() + 1);
  for (const std::string& line : lines)
    CHECK(split_csv(line).size() == split_csv(header).size());

  // The fields of a line, by column, as the CSV writer writes them.
  using Fields = std::vector<std::pair<const char*, std::string>>;
  const auto check_fields = [&](const std::string& line, const Fields& fields) {
    for (const auto& [name, text] : fields) {
      INFO("column " << name);
      CHECK(field(header, line, name) == text);
    }
  };
  // Every column of a PASS line, each value different from its neighbours', so that two columns
  // written in each other's place are caught. 2 x 4096^3 FLOP in 40 ms is 3.43597 TFLOP/s: 10% of
  // cuBLAS's 4 ms, 6.71089% of the 51.2 TFLOP/s ceiling, the best chapter (ch02 failed).
  const Fields pass = {{"device", "Round GPU, rev \"B\""},
                       {"date", "2025-01-15"},
                       {"problem", "matmul"},
                       {"sizes", "4096"},
                       {"chapter", "1"},
                       {"implementation", "ch01"},
                       {"status", "PASS"},
                       {"median_ms", "40"},
                       {"min_ms", "39.5"},
                       {"max_ms", "41"},
                       {"runs", "10"},
                       {"rate", "3.43597"},
                       {"rate_unit", "TFLOP/s"},
                       {"peak_percent", "6.5"},
                       {"peak_name", "FP32 peak"},
                       {"cublas_percent", "10"},
                       {"cublas_reference", "cuBLAS"},
                       {"best_percent", "100"},
                       {"speedup", ""},
                       {"ceiling_rate", "51.2"},
                       {"ceiling_name", "FP32 peak"},
                       {"ceiling_percent", "6.71089"},
                       {"registers", "40"},
                       {"shared_bytes", "1536"},
                       {"blocks_per_sm", "6"},
                       {"threads_per_block", "256"},
                       {"local_bytes", "16"},
                       {"kernel", kernel.name},
                       {"message", ""},
                       {"rate_text", "3.44"},
                       {"cell", "3.44"},
                       {"share", "10% of cuBLAS"},
                       {"ceiling_text", "51.2 TFLOP/s (FP32 peak)"}};
  CHECK(pass.size() == split_csv(header).size());
  check_fields(lines[1], pass);
  check_fields(lines[2], {{"status", "FAIL"},
                          {"median_ms", ""},
                          {"min_ms", ""},
                          {"max_ms", ""},
                          {"runs", ""},
                          {"rate", ""},
                          {"peak_percent", ""},
                          {"cublas_percent", ""},
                          {"best_percent", ""},
                          {"speedup", ""},
                          {"ceiling_percent", ""},
                          {"message", "FAIL: 3 elements outside the tolerance"},
                          {"rate_text", ""},
                          {"cell", "FAIL"},
                          {"share", ""}});
  check_fields(lines[3], {{"chapter", ""}, {"implementation", "cuBLAS"}, {"registers", ""}});
  check_fields(lines[4], {{"sizes", "2^24, 127 taps"}});
}

TEST_CASE("the committed sample CSV has the writer's columns", "[ladder]") {
  std::ifstream sample(COURSE_LADDER_SAMPLE_CSV);
  REQUIRE(sample.good());
  std::string header;
  std::getline(sample, header);
  CHECK(header == ladder::csv_header());
}

TEST_CASE("rates print with three significant digits", "[ladder]") {
  const std::pair<double, std::string> cases[] = {
      {41.23, "41.2"}, {5.214, "5.21"}, {0.8531, "0.853"}, {203.4, "203"}};
  for (const auto& [rate, text] : cases)
    CHECK(course::format_rate(rate) == text);
}
