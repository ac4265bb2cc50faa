// Chapter 4 kernels against the CPU reference: the course's awkward sizes, sizes just below, at
// and above multiples of the 64 x 64 tile, non-square shapes, and every conv2d path.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch04").
#include <kernels.cuh>

#include "catch.hpp"
#include "gpu_sizes.hpp"
#include "gpu_support.hpp"

using course::Problem;
using course::testing::run_conv2d;
using course::testing::run_product;
using course::testing::test_seed;

namespace {

// Around the 64-wide tile and the 4-wide k batch.
constexpr int kTileEdges[] = {4, 5, 62, 63, 64, 65, 66, 127, 128, 129, 191, 192, 193};

void check_product(int m, int n, int k, long long salt) {
  const auto seed = test_seed({salt, m, n, k});
  INFO("m " << m << " n " << n << " k " << k << ", seed " << seed);
  const auto product = run_product(ch04::matmul, Problem::matmul, m, n, k, seed);
  INFO(product.summary(n));
  CHECK(product.passed);
  const auto paths = run_product(ch04::minplus, Problem::minplus, m, n, k, seed);
  INFO(paths.summary(n));
  CHECK(paths.passed);
}

}  // namespace

TEST_CASE("ch04 products match the reference at awkward square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int s : course::testing::kAwkwardSizes)
    check_product(s, s, s, 1);
}

TEST_CASE("ch04 products match the reference around multiples of the tile", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int s : kTileEdges) {
    check_product(s, 64, 64, 2);  // m around the tile
    check_product(64, s, 64, 3);  // n around the tile
    check_product(64, 64, s, 4);  // k around the batch
  }
}

TEST_CASE("ch04 products match the reference at non-square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto& shape : course::testing::kNonSquareShapes) {
    check_product(shape.m, shape.n, shape.k, 5);
  }
  check_product(300, 200, 100, 5);
}

TEST_CASE("ch04 conv2d matches the reference for every compiled mask and the generic path",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  struct Mask {
    int mk, ml;
  };
  // Compiled instances (1 to 13 square, 3 x 5) and the generic path (everything else, up to 63).
  constexpr Mask kMasks[] = {{1, 1}, {3, 3}, {5, 5},   {7, 7},  {9, 9},  {11, 11}, {13, 13},
                             {3, 5}, {5, 3}, {15, 15}, {1, 63}, {63, 1}, {21, 7},  {63, 63}};
  for (const auto& image : course::testing::kImageShapes) {
    for (const auto& mask : kMasks) {
      const auto seed = test_seed({6, image.h, image.w, mask.mk, mask.ml});
      INFO("image " << image.h << "x" << image.w << " mask " << mask.mk << "x" << mask.ml
                    << ", seed " << seed);
      const auto result = run_conv2d(ch04::conv2d, image.h, image.w, mask.mk, mask.ml, seed);
      INFO(result.summary(image.w));
      CHECK(result.passed);
    }
  }
}
