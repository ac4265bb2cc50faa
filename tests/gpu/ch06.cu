// Chapter 6 kernels against the CPU reference, with the TF32 tolerance (course/check.hpp), every
// step of the lesson (mma, ldmatrix, pipeline, swizzle). Built twice: against the solution
// (label "solutions") and against your kernels (label "ch06").
#include <kernels.cuh>
#include "chapters/06_tensor_cores/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// Every step's launcher, checked as the TF32 product it is.
testing::Choices every_step() {
  return testing::matmul_each_step(ch06::kSteps, ch06::matmul, ch06::matmul_arithmetic());
}

}  // namespace

TEST_CASE("ch06 matmul matches the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(every_step(), {{300, 200, 100}});
}

TEST_CASE("ch06 matmul matches the reference around every tile boundary, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Around the instruction tile (16 x 8 x 8), the warp tile (64), the batch (32) and the block
  // tile (128 rows, 256 columns).
  testing::check_products_around(
      every_step(), {128, 256, 64},
      {7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 383, 384, 385});
}

TEST_CASE("ch06 matmul with one to four batches: fewer than, as many as and more than the stages",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products(every_step(),
                          testing::along_k(131, 263, {1, 32, 33, 64, 65, 96, 97, 128}), 9);
}

TEST_CASE("ch06 matmul matches the reference when k is much larger than m and n", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_with_long_k(every_step());
}

TEST_CASE("ch06 matmul writes odd widths and unaligned rows one float at a time", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // n odd: no float2 stores; the last column of every row is a lone element.
  testing::check_products(every_step(), testing::along_n(65, {1, 3, 255, 257}, 40), 8);
}

TEST_CASE("ch06 matmul takes several blocks in both directions, every step", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // 3 x 3 blocks, neither m nor n a multiple of its tile, k prime.
  testing::check_products(every_step(), {{293, 599, 211}}, 10);
}
