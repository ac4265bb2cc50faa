// Chapter 6 kernels against the CPU reference, with the TF32 tolerance (course/check.hpp): the
// course's awkward sizes, sizes just below, at and above multiples of the 128 x 256 block tile,
// of the 16 x 8 instruction tile and of the 32-step batch, and k much larger than m and n.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch06").
#include <kernels.cuh>
#include "chapters/06_tensor_cores/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// The chapter's one launcher, checked as the TF32 product it is.
course::ProblemSet tensor_core_product() {
  course::ProblemSet set;
  set.matmul = ch06::matmul;
  set.arithmetic = ch06::matmul_arithmetic();
  return set;
}

// Around the instruction tile (16 x 8 x 8), the warp tile (64), the batch (32) and the block tile
// (128 rows, 256 columns).
constexpr int kEdges[] = {7,  8,   9,   15,  16,  17,  31,  32,  33,  63, 64,
                          65, 127, 128, 129, 255, 256, 257, 383, 384, 385};

}  // namespace

TEST_CASE("ch06 matmul matches the reference at the course's sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(tensor_core_product());
  testing::check_products(tensor_core_product(), 300, 200, 100, 2);
}

TEST_CASE("ch06 matmul matches the reference around every tile boundary", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int s : kEdges) {
    testing::check_products(tensor_core_product(), s, 256, 64, 3);   // m
    testing::check_products(tensor_core_product(), 128, s, 64, 4);   // n
    testing::check_products(tensor_core_product(), 128, 256, s, 5);  // k
  }
}

TEST_CASE("ch06 matmul matches the reference when k is much larger than m and n", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products(tensor_core_product(), 3, 5, 5000, 6);
  testing::check_products(tensor_core_product(), 129, 257, 4099, 7);
}

TEST_CASE("ch06 matmul writes odd widths and unaligned rows one float at a time", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // n odd: no float2 stores; the last column of every row is a lone element.
  for (int n : {1, 3, 255, 257})
    testing::check_products(tensor_core_product(), 65, n, 40, 8);
}
