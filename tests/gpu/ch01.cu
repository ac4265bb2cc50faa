// Chapter 1 kernels against the CPU reference, at the awkward sizes of the course design.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch01").
#include <kernels.cuh>
#include "chapters/01_global_memory/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

TEST_CASE("ch01 matmul and minplus match the reference at the course's sizes, both mappings",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto mapping : {course::ThreadMapping::coalesced, course::ThreadMapping::transposed}) {
    INFO("mapping " << (mapping == course::ThreadMapping::coalesced ? "coalesced" : "transposed"));
    testing::check_products_at_course_sizes(course::with_choice(ch01::matmul, mapping),
                                            course::with_choice(ch01::minplus, mapping));
  }
}

TEST_CASE("ch01 conv2d matches the reference, images smaller than the mask included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_conv2d(ch01::conv2d, testing::shapes(testing::kImageShapes),
                        testing::shapes(testing::kMaskShapes));
}

TEST_CASE("ch01 conv1d matches the reference, more taps than samples included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_conv1d(ch01::conv1d, testing::shapes(testing::kConv1dShapes));
}
