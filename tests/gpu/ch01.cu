// Chapter 1 kernels against the CPU reference, at the awkward sizes of the course design.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch01").
#include <kernels.cuh>
#include "chapters/01_global_memory/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

#include <stdexcept>
#include <string>

namespace testing = course::testing;

namespace {

// Both products in either mapping of the threads.
testing::Choices both_mappings() {
  using ch01::ThreadMapping;
  testing::Choices mappings;
  for (const auto mapping : {ThreadMapping::coalesced, ThreadMapping::transposed}) {
    const char* name = mapping == ThreadMapping::coalesced ? "coalesced" : "transposed";
    mappings.push_back({std::string("mapping ") + name,
                        testing::products(course::with_choice(ch01::matmul, mapping),
                                          course::with_choice(ch01::minplus, mapping))});
  }
  return mappings;
}

}  // namespace

TEST_CASE("ch01 matmul and minplus match the reference at the course's sizes, both mappings",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(both_mappings());
}

TEST_CASE(
    "ch01 products at the edges of a block and with k much larger than m and n, both "
    "mappings",
    "[gpu]") {
  COURSE_REQUIRE_GPU();
  // A block is kBlockX x kBlockY threads: one short of it, exactly it and one more along each
  // axis, with either mapping's x walking the rows or the columns; then long reductions.
  testing::check_products(
      both_mappings(),
      {{7, 31, 5}, {8, 32, 9}, {9, 33, 3}, {31, 7, 2}, {33, 9, 11}, {3, 5, 4099}, {1, 1, 10007}},
      11);
}

TEST_CASE("ch01 conv2d matches the reference, images smaller than the mask included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_conv2d(ch01::conv2d, testing::shapes(testing::kImageShapes),
                        testing::shapes(testing::kMaskShapes));
}

TEST_CASE("ch01 conv2d with masks at the largest side the executable takes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_conv2d(ch01::conv2d, {{1, 257}, {9, 33}, {70, 61}}, {{63, 63}, {1, 63}, {63, 1}});
}

TEST_CASE("ch01 conv1d matches the reference, more taps than samples included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_conv1d(ch01::conv1d,
                        testing::shapes(testing::kConv1dShapes,
                                        {{1, 1000}, {3, 4097}, {4099, 1}, {255, 257}, {257, 255}}));
}

TEST_CASE("ch01 launchers refuse sizes and masks the kernels cannot take, before launching",
          "[gpu]") {
  // The arguments are checked before any CUDA call, so no device is needed.
  CHECK_THROWS_AS(ch01::matmul(nullptr, nullptr, nullptr, 0, 4, 4, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(ch01::minplus(nullptr, nullptr, nullptr, 4, 4, -1, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::conv2d(nullptr, 8, 8, nullptr, 2, 3, nullptr, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::conv2d(nullptr, 0, 8, nullptr, 3, 3, nullptr, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::conv1d(nullptr, 5, nullptr, 0, nullptr, nullptr), std::invalid_argument);
}
