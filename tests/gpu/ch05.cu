// Chapter 5 kernels against the CPU reference: the course's awkward sizes, sizes just below, at
// and above multiples of the 128 x 128 tile and of the 16-step batch, one and two batches, k much
// larger than m and n, and non-square shapes.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch05").
#include <kernels.cuh>
#include "chapters/05_warp_tiling_pipeline/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;

namespace {

// Around the 128-wide tile (and half of it, a warp tile's boundary in n) and the 16-step batch.
constexpr int kTileEdges[] = {15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};

}  // namespace

TEST_CASE("ch05 products match the reference at the course's sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  testing::check_products_at_course_sizes(ch05::matmul, ch05::minplus);
  testing::check_products(ch05::matmul, ch05::minplus, 300, 200, 100, 2);
}

TEST_CASE("ch05 products match the reference around multiples of the tile and the batch", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int s : kTileEdges) {
    testing::check_products(ch05::matmul, ch05::minplus, s, 128, 48, 3);   // m around the tile
    testing::check_products(ch05::matmul, ch05::minplus, 128, s, 48, 4);   // n around the tile
    testing::check_products(ch05::matmul, ch05::minplus, 128, 128, s, 5);  // k around the batch
  }
}

TEST_CASE("ch05 products match the reference when k is much larger than m and n", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Many trips through the two stages, and blocks that are mostly padding.
  testing::check_products(ch05::matmul, ch05::minplus, 3, 5, 5000, 6);
  testing::check_products(ch05::matmul, ch05::minplus, 129, 130, 4099, 7);
  testing::check_products(ch05::matmul, ch05::minplus, 1, 1, 65537, 8);
}
