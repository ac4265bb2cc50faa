// Chapter 2 kernels against the CPU reference, at the awkward sizes of the course design, for every
// compiled tile width, mask size and tap count. Built twice: against the solution (label
// "solutions") and against your kernels (label "ch02").
#include <kernels.cuh>
#include "chapters/02_static_shared_tile/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"
#include "rejection.hpp"

#include <string>
#include <vector>

namespace testing = course::testing;
using testing::rejection;

namespace {

// Both products with tile width @p tile.
testing::Choices with_tile(int tile) {
  return {{"tile " + std::to_string(tile),
           testing::products(course::with_choice(ch02::matmul, tile),
                             course::with_choice(ch02::minplus, tile))}};
}

}  // namespace

TEST_CASE("ch02 matmul and minplus match the reference at the course's sizes, every tile",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : ch02::kTiles)
    testing::check_products_at_course_sizes(with_tile(tile));
}

TEST_CASE("ch02 matmul and minplus match the reference for k around a step's depth, every tile",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : ch02::kTiles) {
    const int depth = ch02::product_depth(tile);
    INFO("depth " << depth);
    testing::check_products(with_tile(tile), testing::shapes_around_depth(tile, depth), 3);
  }
}

TEST_CASE("ch02 conv2d matches the reference for every compiled mask, small images included",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  const auto images = testing::shapes(testing::kImageShapes, testing::kBlockEdgeImages);
  std::vector<testing::MaskShape> masks;
  for (int side : ch02::kMaskSides)
    masks.push_back({side, side});
  testing::check_conv2d(ch02::conv2d, images, masks);
}

TEST_CASE("ch02 conv1d matches the reference for every compiled tap count, at awkward lengths",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  std::vector<testing::Conv1dShape> shapes;
  for (int taps : ch02::kTapCounts) {
    // n = 1; n shorter than the halo; n around one block and a few blocks, so that the last
    // block is full, one output short or one past; a long signal of many blocks.
    const int block = ch02::kConv1dThreads;
    for (int n : {1, 2, taps - 1, taps, taps + 1, block - taps + 1, block - taps, block - taps + 2,
                  block, block + 1, 3 * block - 1, 100003}) {
      if (n >= 1)
        shapes.push_back({n, taps});
    }
  }
  // The course's shapes whose tap count is compiled here.
  for (const auto& shape : testing::kConv1dShapes) {
    for (int taps : ch02::kTapCounts) {
      if (shape.m == taps)
        shapes.push_back(shape);
    }
  }
  testing::check_conv1d(ch02::conv1d, shapes);
}

// Needs no GPU: the launchers refuse before launching anything.
TEST_CASE("ch02 launchers refuse the tiles and masks that chapter 2 does not compile", "[gpu]") {
  const auto product_with_tile = [](int tile, int k = 8) {
    return rejection([&] { ch02::matmul(nullptr, nullptr, nullptr, 8, 8, k, nullptr, tile); });
  };
  const auto conv_with_mask = [](int mk, int ml) {
    return rejection([&] { ch02::conv2d(nullptr, 8, 8, nullptr, mk, ml, nullptr, nullptr); });
  };
  for (int tile : {8, 24, 64}) {
    INFO("tile " << tile);
    const std::string message = product_with_tile(tile);
    CHECK(message.find("chapter 3") != std::string::npos);
    CHECK(message.find("(it has 32, 16)") != std::string::npos);
  }
  for (const auto& mask : {testing::MaskShape{3, 5}, testing::MaskShape{5, 3},
                           testing::MaskShape{15, 15}, testing::MaskShape{63, 63}}) {
    INFO("mask " << mask.mk << "x" << mask.ml);
    CHECK(conv_with_mask(mask.mk, mask.ml).find("chapter 3") != std::string::npos);
  }
  CHECK_FALSE(conv_with_mask(4, 4).empty());
  // The loop over k runs a step's depth past k: the k for which that would pass INT_MAX is
  // refused.
  for (int tile : ch02::kTiles) {
    INFO("tile " << tile);
    const int too_deep = 2147483647 - ch02::product_depth(tile) + 1;
    CHECK(product_with_tile(tile, too_deep).find("too large") != std::string::npos);
  }
}

// Needs no GPU: the launcher refuses before launching anything.
TEST_CASE("ch02 conv1d refuses the tap counts that chapter 2 does not compile, in one line",
          "[gpu]") {
  const auto conv1d_with_taps = [](int n, int taps) {
    return rejection([&] { ch02::conv1d(nullptr, n, nullptr, taps, nullptr, nullptr); });
  };
  for (int taps : {2, 5, 37, 64, 100, 126, 128, 1023}) {
    INFO("taps " << taps);
    const std::string message = conv1d_with_taps(1000, taps);
    CHECK(message.find("(it has 127, 1, 3, 7, 15, 31, 63)") != std::string::npos);
    CHECK(message.find("chapter 3") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK_FALSE(conv1d_with_taps(0, 127).empty());
  CHECK_FALSE(conv1d_with_taps(1000, 0).empty());
  // n + m - 1 must fit an int: the longest signal for 127 taps is accepted up to the launch,
  // one sample more is refused.
  CHECK_FALSE(conv1d_with_taps(2147483647 - 125, 127).empty());
}
