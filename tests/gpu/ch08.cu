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

// The checks of every TF32 Hopper chapter (tests/gpu_support.hpp lists them: the course's sizes,
// around every tile boundary, one to six batches, k much larger than m and n, odd widths, more
// tiles than run at once), at this chapter's sizes.
TEST_CASE("ch08 matmul matches the reference in every TF32 Hopper check, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::Tf32HopperSizes sizes;
  // Around the stage (32 k-steps), B's slab (32 columns), the warpgroup's share (64 columns), the
  // short tile (64 rows) and the block tile (256 rows, 128 columns); n or k not a multiple of 4
  // sends B or A through the pre-pass. The base is two tiles wide, so that step 3 runs its
  // clusters (a product one tile wide runs without them) as m and k move.
  sizes.tile_base = {256, 256, 64};
  sizes.around_tile = {1,  3,  4,  5,   15,  16,  17,  31,  32,  33,
                       63, 64, 65, 127, 128, 129, 255, 256, 257, 385};
  sizes.odd_widths = {1, 3, 127, 129, 255, 257};
  // More units than blocks: 10 x 19 tiles (more than one wave: each persistent block takes two
  // units or more), an odd count of tile columns (the last cluster has a tile past C), a last
  // group of 2 tile rows, neither m nor n a multiple of its tile, k prime.
  sizes.more_tiles = {2333, 2401, 211};
  testing::check_tf32_hopper_products(every_step(), sizes);
}

TEST_CASE("ch08 matmul with fewer tiles than the GPU has SMs: split-K and lone tiles", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  // A skinny product of a few rows (a model's decode step); a narrow one; one whose last slice
  // is short. One tile (fewer than a cluster) with k long enough to cut into slices, 3 x 5 x 5000,
  // is a case of "k much larger than m and n" above.
  testing::check_products(every_step(), {{16, 1000, 3000}}, 11);
  testing::check_products(every_step(), {{700, 24, 2600}}, 12);
  testing::check_products(every_step(), {{256, 128, 8 * 32 * 3 + 1}}, 13);
}
