// Chapter 4 kernels against the CPU reference: every step of the product at the course's awkward
// sizes, sizes just below, at and above multiples of the 64 x 64 tile, non-square shapes, and
// every conv2d path. Built twice: against the solution (label "solutions") and against your
// kernels (label "ch04").
#include <kernels.cuh>
#include "chapters/04_register_blocking/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

#include <stdexcept>

namespace testing = course::testing;
using course::with_choice;

namespace {

// Around the 64-wide tile and the 4-wide k batch.
constexpr int kTileEdges[] = {4, 5, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, 193};

}  // namespace

TEST_CASE("ch04 products match the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const ch04::StepName& step : ch04::kSteps) {
    INFO("--step " << step.name);
    const auto matmul = with_choice(ch04::matmul, step.step);
    const auto minplus = with_choice(ch04::minplus, step.step);
    testing::check_products_at_course_sizes(matmul, minplus);
    testing::check_products(matmul, minplus, 300, 200, 100, 2);
  }
}

TEST_CASE("ch04 products match the reference around multiples of the tile, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const ch04::StepName& step : ch04::kSteps) {
    INFO("--step " << step.name);
    const auto matmul = with_choice(ch04::matmul, step.step);
    const auto minplus = with_choice(ch04::minplus, step.step);
    for (int s : kTileEdges) {
      testing::check_products(matmul, minplus, s, 64, 64, 3);  // m around the tile
      testing::check_products(matmul, minplus, 64, s, 64, 4);  // n around the tile
      testing::check_products(matmul, minplus, 64, 64, s, 5);  // k around the batch
    }
  }
}

TEST_CASE("ch04 products are the solution's by default", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // The launchers called without a step (as the ladder calls them) run the first step offered.
  CHECK(ch04::kSteps[0].step == ch04::Step::prefetch);
  testing::check_products([](auto... arguments) { ch04::matmul(arguments...); },
                          [](auto... arguments) { ch04::minplus(arguments...); }, 129, 65, 33, 6);
}

TEST_CASE("ch04 conv2d matches the reference for every compiled mask and the generic path",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Compiled instances (1 to 13 square, 3 x 5) and the generic path (everything else, up to 63).
  const std::vector<testing::MaskShape> masks = {{1, 1},   {3, 3},   {5, 5},  {7, 7},  {9, 9},
                                                 {11, 11}, {13, 13}, {3, 5},  {5, 3},  {15, 15},
                                                 {1, 63},  {63, 1},  {21, 7}, {63, 63}};
  testing::check_conv2d(ch04::conv2d, testing::shapes(testing::kImageShapes), masks);
}

TEST_CASE("ch04 refuses products too large to pad before allocating anything", "[gpu]") {
  // The pre-pass rounds m and n up to the 64-wide tile and k up to the 4-wide batch; a size whose
  // rounding passes INT_MAX is refused with an exception, before any memory is allocated or any
  // kernel launched (so no GPU is needed; the pointers are never read).
  float dummy = 0.0f;
  float* p = &dummy;
  const int too_large = 2147483647;
  for (ch04::Step step : {ch04::Step::float4, ch04::Step::prefetch}) {
    CHECK_THROWS_AS(ch04::matmul(p, p, p, too_large, 1, 1, nullptr, step), std::invalid_argument);
    CHECK_THROWS_AS(ch04::minplus(p, p, p, 1, too_large, 1, nullptr, step), std::invalid_argument);
    CHECK_THROWS_AS(ch04::matmul(p, p, p, 1, 1, too_large, nullptr, step), std::invalid_argument);
  }
  CHECK(course::round_up_checked(2147483584, 64, "m") == 2147483584);  // 2^31 - 64 still fits
  CHECK(course::round_up_checked(2147483644, 4, "k") == 2147483644);
  CHECK_THROWS_AS(course::round_up_checked(2147483585, 64, "m"), std::invalid_argument);
  CHECK_THROWS_AS(course::round_up_checked(2147483645, 4, "k"), std::invalid_argument);
}
