// Chapter 4 kernels against the CPU reference: every step of the product, every conv2d path, and
// conv1d around its strips, runs and float4 taps. Built twice: against the solution (label
// "solutions") and against your kernels (label "ch04").
#include <kernels.cuh>
#include "chapters/04_register_blocking/launch.cuh"
#include "chapters/04_register_blocking/bug_hunt.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace testing = course::testing;

namespace {

// Both products at every step.
testing::Choices every_step() {
  return testing::products_each_step(ch04::kSteps, ch04::matmul, ch04::minplus);
}

}  // namespace

TEST_CASE("ch04 products match the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(every_step(), {{300, 200, 100}});
}

TEST_CASE("ch04 products match the reference around multiples of the tile, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // m and n around the 64-wide tile, k around the 4-wide batch.
  testing::check_products_around(every_step(), {64, 64, 64},
                                 {4, 5, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, 193});
}

TEST_CASE("ch04 products are the solution's by default", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // The launchers called without a step (as the ladder calls them) run the first step offered.
  CHECK(ch04::kSteps[0].step == ch04::Step::prefetch);
  const auto matmul = [](auto... arguments) { ch04::matmul(arguments...); };
  const auto minplus = [](auto... arguments) { ch04::minplus(arguments...); };
  testing::check_products({{"no step given", testing::products(matmul, minplus)}}, {{129, 65, 33}},
                          6);
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
    const auto named = std::find_if(std::begin(ch04::kSteps), std::end(ch04::kSteps),
                                    [step](const ch04::StepName& s) { return s.step == step; });
    INFO(course::kVariantFlag << " " << named->name);
    CHECK_THROWS_AS(ch04::matmul(p, p, p, too_large, 1, 1, nullptr, step), std::invalid_argument);
    CHECK_THROWS_AS(ch04::minplus(p, p, p, 1, too_large, 1, nullptr, step), std::invalid_argument);
    CHECK_THROWS_AS(ch04::matmul(p, p, p, 1, 1, too_large, nullptr, step), std::invalid_argument);
  }
  CHECK(course::round_up_checked(2147483584, 64, "m") == 2147483584);  // 2^31 - 64 still fits
  CHECK(course::round_up_checked(2147483644, 4, "k") == 2147483644);
  CHECK_THROWS_AS(course::round_up_checked(2147483585, 64, "m"), std::invalid_argument);
  CHECK_THROWS_AS(course::round_up_checked(2147483645, 4, "k"), std::invalid_argument);
}

TEST_CASE("ch04 conv1d matches the reference, from 1 tap to the largest mask", "[gpu]") {
  COURSE_REQUIRE_GPU();
  constexpr int kRun = ch04::kConv1dRun;  // outputs per block
  constexpr int kMost = ch04::kMaxTaps;
  // Beyond the course's list: outputs that end one short of, on and one past a block's run or a
  // thread's strip of 4; tap counts around a float4 (1 to 9) with a halo of exactly a run and one
  // past; primes; and the largest mask on short and long signals (m > n, m = n).
  // clang-format off
  const std::vector<testing::Conv1dShape> more = {
      {kRun, 1}, {kRun + 1, 1}, {kRun - 1, 2}, {kRun - 3, 4}, {kRun - 4, 5}, {2, 3}, {3, 2},
      {5, 6}, {6, 8}, {11, 9}, {2, kRun + 1}, {31, kRun + 2}, {3 * kRun + 17, 127}, {1009, 13},
      {20011, 31}, {1, kMost}, {2, kMost - 1}, {kMost, kMost}, {kMost - 1, kMost},
      {9001, kMost - 3}};
  // clang-format on
  testing::check_conv1d(ch04::conv1d, testing::shapes(testing::kConv1dShapes, more));
}

TEST_CASE("ch04 conv1d refuses masks it cannot hold and outputs past INT_MAX", "[gpu]") {
  // Refused before anything is launched: no GPU needed, the pointers are never read.
  float dummy = 0.0f;
  float* p = &dummy;
  CHECK_THROWS_AS(ch04::conv1d(p, 100, p, ch04::kMaxTaps + 1, p, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(ch04::conv1d(p, 100, p, 0, p, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(ch04::conv1d(p, 2147483647, p, 2, p, nullptr), std::invalid_argument);
  // Every mask length up to the largest fits in the 48 KB a block may use without opting in.
  CHECK(ch04::conv1d_shared_bytes(ch04::kMaxTaps) <= course::kDefaultSharedLimit);
  CHECK(ch04::conv1d_shared_bytes(127) == (2 * 128 + ch04::kConv1dRun) * sizeof(float));
}

TEST_CASE("ch04 float4 step is right in any layout of the results, the bug hunt's included",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  // The bug hunt's layout changes which bank each thread reads, not what it computes.
  const auto side_by_side = [](auto semiring) {
    using Semiring = decltype(semiring);
    return [](const float* A, const float* B, float* C, int m, int n, int k, cudaStream_t s) {
      ch04::launch_padded<Semiring>(ch04::float4_product_kernel<Semiring, ch04::bug::SideBySide>, A,
                                    B, C, m, n, k, s);
    };
  };
  const auto set =
      testing::products(side_by_side(course::PlusTimes{}), side_by_side(course::MinPlus{}));
  testing::check_products({{"float4, side by side", set}}, {{129, 65, 33}}, 7);
}
