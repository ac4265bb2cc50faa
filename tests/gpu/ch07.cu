// Chapter 7 kernels against the CPU reference, with the TF32 tolerance (course/check.hpp), every
// step of the lesson (tma, pipeline, specialized, grouped). Built twice: against the solution
// (label "solutions") and against your kernels (label "ch07"). On a GPU other than a Hopper
// (compute capability 9.0) every case that runs the kernels is skipped: matmul() refuses it.
#include <kernels.cuh>
#include "chapters/07_tma_wgmma/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// Every step's launcher, checked as the TF32 product it is.
testing::Choices every_step() {
  return testing::matmul_each_step(ch07::kSteps, ch07::matmul, ch07::matmul_arithmetic());
}

}  // namespace

TEST_CASE("ch07 matmul matches the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products_at_course_sizes(every_step(), {{300, 200, 100}});
}

TEST_CASE("ch07 matmul matches the reference around every tile boundary, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // Around the stage (32 k-steps, 128-byte rows), the wgmma (64 rows) and the block tile (128
  // rows, 256 columns); k not a multiple of 4 sends A through the pre-pass.
  testing::check_products_around(
      every_step(), {128, 256, 64},
      {1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 385});
}

TEST_CASE("ch07 matmul with one to six batches: fewer than, as many as and more than the stages",
          "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products(
      every_step(), testing::along_k(131, 263, {1, 2, 32, 33, 64, 96, 97, 128, 129, 160, 192}), 9);
}

TEST_CASE("ch07 matmul matches the reference when k is much larger than m and n", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products_with_long_k(every_step());
}

TEST_CASE("ch07 matmul writes odd widths and unaligned rows one float at a time", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products(every_step(), testing::along_n(65, {1, 3, 255, 257}, 40), 8);
}

TEST_CASE("ch07 matmul with more tiles than run at once, in both block orders", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // 19 x 5 tiles (more than one wave on any Hopper), a last group of 3 tile rows for the grouped
  // order, neither m nor n a multiple of its tile, k prime.
  testing::check_products(every_step(), {{2333, 1201, 211}}, 10);
}
