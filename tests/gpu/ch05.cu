// Chapter 5 kernels against the CPU reference, every step of the product. Built twice: against
// the solution (label "solutions") and against your kernels (label "ch05").
#include <kernels.cuh>
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// Both products at every step.
testing::Choices every_step() {
  return testing::products_each_step(ch05::kSteps, ch05::matmul, ch05::minplus);
}

}  // namespace

TEST_CASE("ch05 products match the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(every_step(), {{300, 200, 100}});
}

TEST_CASE(
    "ch05 products match the reference around multiples of the tile and the batch, every step",
    "[gpu]") {
  COURSE_REQUIRE_GPU();
  // m and n around the 128-wide tile and the warp tiles (32 rows, 64 columns), k around the
  // 16-step batch.
  testing::check_products_around(
      every_step(), {128, 128, 48},
      {15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257});
}

TEST_CASE("ch05 products match the reference when k is much larger than m and n, every step",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Many trips through the stages, and blocks that are mostly padding.
  testing::check_products(every_step(), {{3, 5, 5000}}, 6);
  testing::check_products(every_step(), {{129, 130, 4099}}, 7);
  testing::check_products(every_step(), {{1, 1, 65537}}, 8);
  // Primes in every dimension, none a multiple of anything in the kernel; several blocks.
  testing::check_products(every_step(), {{131, 263, 1031}}, 9);
}

TEST_CASE("ch05 products are the solution's by default", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // The launchers called without a step (as the ladder and chapter 6 call them) run the pipeline.
  CHECK(ch05::kSteps[0].step == ch05::Step::pipeline);
  const auto matmul = [](auto... arguments) { ch05::matmul(arguments...); };
  const auto minplus = [](auto... arguments) { ch05::minplus(arguments...); };
  testing::check_products({{"no step given", testing::products(matmul, minplus)}}, {{129, 65, 33}},
                          10);
}

TEST_CASE("ch05 refuses products too large to pad before allocating anything", "[gpu]") {
  // The pre-pass rounds m and n up to the 128-wide tile and k up to the 16-step batch; a size whose
  // rounding passes INT_MAX is refused with an exception, before any memory is allocated or any
  // kernel launched (so no GPU is needed; the pointers are never read).
  float dummy = 0.0f;
  float* p = &dummy;
  const int too_large = 2147483647;
  for (const ch05::StepName& step : ch05::kSteps) {
    INFO(course::kVariantFlag << " " << step.name);
    CHECK_THROWS_AS(ch05::matmul(p, p, p, too_large, 1, 1, nullptr, step.step),
                    std::invalid_argument);
    CHECK_THROWS_AS(ch05::minplus(p, p, p, 1, too_large, 1, nullptr, step.step),
                    std::invalid_argument);
    CHECK_THROWS_AS(ch05::matmul(p, p, p, 1, 1, too_large, nullptr, step.step),
                    std::invalid_argument);
  }
  CHECK(course::round_up_checked(2147483520, ch05::kTile, "m") == 2147483520);  // 2^31 - 128
  CHECK_THROWS_AS(course::round_up_checked(2147483521, ch05::kTile, "m"), std::invalid_argument);
  CHECK_THROWS_AS(course::round_up_checked(2147483633, ch05::kBatch, "k"), std::invalid_argument);
}
