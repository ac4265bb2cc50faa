// Chapter 7 kernels against the CPU reference, with the TF32 tolerance (course/check.hpp), every
// step of the lesson (tma, pipeline, specialized, grouped). Built twice: against the solution
// (label "solutions") and against your kernels (label "ch07"). On a GPU other than a Hopper
// (compute capability 9.0) every case that runs the kernels is skipped: matmul() refuses it.
#include <kernels.cuh>
#include "chapters/07_tma_wgmma/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

// The checks of every TF32 Hopper chapter (tests/gpu_support.hpp lists them: the course's sizes,
// around every tile boundary, one to six batches, k much larger than m and n, odd widths, more
// tiles than run at once), at this chapter's sizes.
TEST_CASE("ch07 matmul matches the reference in every TF32 Hopper check, every step", "[gpu]") {
  COURSE_REQUIRE_COMPUTE_CAPABILITY(course::kHopperMajor);
  testing::Tf32HopperSizes sizes;
  // Around the stage (32 k-steps, 128-byte rows), the wgmma (64 rows) and the block tile (128
  // rows, 256 columns); k not a multiple of 4 sends A through the pre-pass.
  sizes.tile_base = {128, 256, 64};
  sizes.around_tile = {1, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 385};
  sizes.odd_widths = {1, 3, 255, 257};
  // 19 x 5 tiles (more than one wave on any Hopper), a last group of 3 tile rows for the grouped
  // order, neither m nor n a multiple of its tile, k prime: both block orders.
  sizes.more_tiles = {2333, 1201, 211};
  testing::check_tf32_hopper_products(
      testing::matmul_each_step(ch07::kSteps, ch07::matmul, ch07::matmul_arithmetic()), sizes);
}
