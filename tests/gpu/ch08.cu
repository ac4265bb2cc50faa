// Chapter 8 kernels against the CPU reference, with the TF32 tolerance (course/check.hpp), every
// step of the lesson (registers, persistent, cluster). Built twice: against the solution
// (label "solutions") and against your kernels (label "ch08"). On a GPU other than a Hopper
// (compute capability 9.0) every case that runs the kernels is skipped: matmul() refuses it.
#include <kernels.cuh>
#include "chapters/08_persistent_clusters/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// Every step's launcher, checked as the TF32 product it is.
testing::Choices every_step() {
  return testing::matmul_each_step(ch08::kSteps, ch08::matmul, ch08::matmul_arithmetic());
}

}  // namespace

TEST_CASE("ch08 matmul matches the reference at the course's sizes, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products_at_course_sizes(every_step(), {{300, 200, 100}});
}

TEST_CASE("ch08 matmul matches the reference around every tile boundary, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // Around the stage (32 k-steps), B's slab (32 columns), the warpgroup's share (64 columns),
  // the short tile (64 rows) and the block tile (256 rows, 128 columns); n or k not a multiple of 4
  // sends B or A through the pre-pass. The base is two tiles wide, so that step 3 runs its
  // clusters (a product one tile wide runs without them) as m and k move.
  testing::check_products_around(
      every_step(), {256, 256, 64},
      {1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 385});
}

TEST_CASE("ch08 matmul with one to six batches: fewer than, as many as and more than the stages",
          "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products(
      every_step(), testing::along_k(131, 263, {1, 2, 32, 33, 64, 96, 97, 128, 129, 160, 192}), 9);
}

TEST_CASE("ch08 matmul with fewer tiles than the GPU has SMs: split-K and lone tiles", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // One tile (fewer than a cluster), k long enough to cut into slices; a skinny product of a
  // few rows (a model's decode step); a narrow one; one whose last slice is short.
  testing::check_products_with_long_k(every_step());
  testing::check_products(every_step(), {{16, 1000, 3000}}, 11);
  testing::check_products(every_step(), {{700, 24, 2600}}, 12);
  testing::check_products(every_step(), {{256, 128, 8 * 32 * 3 + 1}}, 13);
}

TEST_CASE("ch08 matmul writes odd widths and unaligned rows one float at a time", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::check_products(every_step(), testing::along_n(65, {1, 3, 127, 129, 255, 257}, 40), 8);
}

TEST_CASE("ch08 matmul with more units than blocks: the persistent walk and the clusters",
          "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // 10 x 19 tiles (more than one wave: each persistent block takes two units or more), an odd
  // count of tile columns (the last cluster has a tile past C), a last group of 2 tile rows,
  // neither m nor n a multiple of its tile, k prime.
  testing::check_products(every_step(), {{2333, 2401, 211}}, 10);
}
