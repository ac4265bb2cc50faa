// Chapter 2 kernels against the CPU reference, at the awkward sizes of the course design, for every
// compiled tile width and mask size. Built twice: against the solution (label "solutions") and
// against your kernels (label "ch02").
#include <kernels.cuh>

#include "catch.hpp"
#include "gpu_sizes.hpp"
#include "gpu_support.hpp"
#include "rejection.hpp"

#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

using course::Problem;
using course::testing::rejection;
using course::testing::run_conv2d;
using course::testing::run_product;
using course::testing::test_seed;

namespace {

// The tile widths to test: 0 (the launcher's default) and every compiled width.
std::vector<int> tile_choices() {
  std::vector<int> tiles = {0};
  tiles.insert(tiles.end(), std::begin(ch02::kTiles), std::end(ch02::kTiles));
  return tiles;
}

// Images beyond the design's list: several blocks in both directions, and shapes one short of and
// one past a 32 x 32 block, so every edge of a tile and of its halo is exercised.
constexpr course::testing::ImageShape kMoreImageShapes[] = {{31, 33}, {64, 65}, {97, 70}};

}  // namespace

TEST_CASE("ch02 matmul and minplus match the reference at awkward square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : ch02::kTiles) {
    course::LaunchOptions options;
    options.tile = tile;
    for (int s : course::testing::kAwkwardSizes) {
      const auto seed = test_seed({1, s});
      INFO("size " << s << ", tile " << tile << ", seed " << seed);
      const auto product = run_product(ch02::matmul, Problem::matmul, s, s, s, seed, options);
      INFO(product.summary(s));
      CHECK(product.passed);
      const auto paths = run_product(ch02::minplus, Problem::minplus, s, s, s, seed, options);
      INFO(paths.summary(s));
      CHECK(paths.passed);
    }
  }
}

TEST_CASE("ch02 products match the reference at non-square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : tile_choices()) {
    course::LaunchOptions options;
    options.tile = tile;
    for (const auto& shape : course::testing::kNonSquareShapes) {
      const auto seed = test_seed({2, shape.m, shape.n, shape.k});
      INFO("m " << shape.m << " n " << shape.n << " k " << shape.k << ", tile " << tile << ", seed "
                << seed);
      const auto product =
          run_product(ch02::matmul, Problem::matmul, shape.m, shape.n, shape.k, seed, options);
      INFO(product.summary(shape.n));
      CHECK(product.passed);
      const auto paths =
          run_product(ch02::minplus, Problem::minplus, shape.m, shape.n, shape.k, seed, options);
      INFO(paths.summary(shape.n));
      CHECK(paths.passed);
    }
  }
}

TEST_CASE("ch02 conv2d matches the reference for every compiled mask, small images included",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  std::vector<course::testing::ImageShape> images(std::begin(course::testing::kImageShapes),
                                                  std::end(course::testing::kImageShapes));
  images.insert(images.end(), std::begin(kMoreImageShapes), std::end(kMoreImageShapes));
  for (const auto& image : images) {
    for (int side : ch02::kMaskSides) {
      const auto seed = test_seed({3, image.h, image.w, side, side});
      INFO("image " << image.h << "x" << image.w << " mask " << side << "x" << side << ", seed "
                    << seed);
      const auto result = run_conv2d(ch02::conv2d, image.h, image.w, side, side, seed);
      INFO(result.summary(image.w));
      CHECK(result.passed);
    }
  }
}

// Needs no GPU: the launchers refuse before launching anything.
TEST_CASE("ch02 launchers refuse the tiles and masks that chapter 2 does not compile", "[gpu]") {
  const auto product_with_tile = [](int tile) {
    course::LaunchOptions options;
    options.tile = tile;
    return rejection([&] { ch02::matmul(nullptr, nullptr, nullptr, 8, 8, 8, nullptr, options); });
  };
  const auto conv_with_mask = [](int mk, int ml) {
    return rejection([&] { ch02::conv2d(nullptr, 8, 8, nullptr, mk, ml, nullptr, nullptr, {}); });
  };
  for (int tile : {8, 24, 64}) {
    INFO("tile " << tile);
    const std::string message = product_with_tile(tile);
    CHECK(message.find("chapter 3") != std::string::npos);
    CHECK(message.find("(it has 32, 16)") != std::string::npos);
  }
  for (const auto& mask :
       {course::testing::MaskShape{3, 5}, course::testing::MaskShape{5, 3},
        course::testing::MaskShape{15, 15}, course::testing::MaskShape{63, 63}}) {
    INFO("mask " << mask.mk << "x" << mask.ml);
    CHECK(conv_with_mask(mask.mk, mask.ml).find("chapter 3") != std::string::npos);
  }
  CHECK_FALSE(conv_with_mask(4, 4).empty());
  course::LaunchOptions sixteen;
  sixteen.block = 16;
  CHECK_FALSE(rejection([&] {
                ch02::conv2d(nullptr, 8, 8, nullptr, 3, 3, nullptr, nullptr, sixteen);
              }).empty());
}
