// Chapter 3 kernels against the CPU reference, at the awkward sizes of the course design, for tile
// widths, block widths, mask sizes and mask lengths chosen at run time, the largest of each
// included. Built twice: against the solution (label "solutions") and against your kernels
// (label "ch03").
#include <kernels.cuh>

#include "catch.hpp"
#include "gpu_sizes.hpp"
#include "gpu_support.hpp"

#include <iterator>
#include <vector>

using course::Problem;
using course::testing::run_conv1d;
using course::testing::run_conv2d;
using course::testing::run_product;
using course::testing::test_seed;

namespace {

// Tile widths: 0 (the launcher's default), the three that --tile offers, and widths that no
// chapter compiles, which only a run-time width can have.
constexpr int kTileChoices[] = {0, 8, 16, 32, 4, 12, 24};

// conv2d block widths: the default, the three that --block offers, and odd widths, where a warp
// spans parts of several tile rows.
constexpr int kBlockChoices[] = {0, 8, 16, 32, 5, 13};

// Masks beyond the design's list: long and flat, larger than 13 and not square, and the largest
// allowed (63 x 63, which needs the opt-in above 48 KB with 32 x 32 blocks).
constexpr course::testing::MaskShape kMoreMaskShapes[] = {
    {1, 9}, {9, 1}, {7, 15}, {31, 17}, {course::kMaxMaskSide, course::kMaxMaskSide}};

// Images beyond the design's list: several blocks in both directions, and shapes one short of and
// one past a 32 x 32 block, so every edge of a tile and of its halo is exercised.
constexpr course::testing::ImageShape kMoreImageShapes[] = {{31, 33}, {64, 65}, {97, 70}};

// conv1d sizes beyond the design's list: several runs of kConv1dRun outputs, runs that end one
// short of and one past a block, the largest mask on short and long signals (m > n, m = n).
constexpr course::testing::Conv1dShape kMoreConv1dShapes[] = {
    {ch03::kConv1dRun, 1},
    {ch03::kConv1dRun + 1, 1},
    {ch03::kConv1dRun - 9, 10},
    {3 * ch03::kConv1dRun + 17, 127},
    {20000, 10},
    {1, ch03::kMaxTaps},
    {ch03::kMaxTaps, ch03::kMaxTaps},
    {ch03::kMaxTaps - 1, ch03::kMaxTaps},
    {9000, ch03::kMaxTaps},
};

// The dynamic shared bytes of the last checked launch.
std::size_t last_launch_bytes() {
  const auto& log = course::launch_log();
  return log.empty() ? 0 : log.back().dynamic_shared_bytes;
}

}  // namespace

TEST_CASE("ch03 matmul and minplus match the reference at awkward square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices) {
    course::LaunchOptions options;
    options.tile = tile;
    for (int s : course::testing::kAwkwardSizes) {
      const auto seed = test_seed({1, s});
      INFO("size " << s << ", tile " << tile << ", seed " << seed);
      const auto product = run_product(ch03::matmul, Problem::matmul, s, s, s, seed, options);
      INFO(product.summary(s));
      CHECK(product.passed);
      const auto paths = run_product(ch03::minplus, Problem::minplus, s, s, s, seed, options);
      INFO(paths.summary(s));
      CHECK(paths.passed);
    }
  }
}

TEST_CASE("ch03 products match the reference at non-square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices) {
    course::LaunchOptions options;
    options.tile = tile;
    for (const auto& shape : course::testing::kNonSquareShapes) {
      const auto seed = test_seed({2, shape.m, shape.n, shape.k});
      INFO("m " << shape.m << " n " << shape.n << " k " << shape.k << ", tile " << tile << ", seed "
                << seed);
      const auto product =
          run_product(ch03::matmul, Problem::matmul, shape.m, shape.n, shape.k, seed, options);
      INFO(product.summary(shape.n));
      CHECK(product.passed);
      const auto paths =
          run_product(ch03::minplus, Problem::minplus, shape.m, shape.n, shape.k, seed, options);
      INFO(paths.summary(shape.n));
      CHECK(paths.passed);
    }
  }
}

TEST_CASE("ch03 products launch with the buffer their tile width needs", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : {32, 16, 8, 4}) {
    course::LaunchOptions options;
    options.tile = tile;
    const auto seed = test_seed({5, tile});
    INFO("tile " << tile << ", seed " << seed);
    const auto product = run_product(ch03::matmul, Problem::matmul, 70, 45, 99, seed, options);
    INFO(product.summary(45));
    CHECK(product.passed);
    CHECK(last_launch_bytes() == ch03::product_shared_bytes(tile));
    // The A tile, then tile rows of B, each kBPitch floats.
    CHECK(last_launch_bytes() == (tile * tile + tile * std::size_t{ch03::kBPitch}) * sizeof(float));
  }
}

TEST_CASE("ch03 conv2d matches the reference for run-time masks and blocks", "[gpu]") {
  COURSE_REQUIRE_GPU();
  std::vector<course::testing::ImageShape> images(std::begin(course::testing::kImageShapes),
                                                  std::end(course::testing::kImageShapes));
  images.insert(images.end(), std::begin(kMoreImageShapes), std::end(kMoreImageShapes));
  std::vector<course::testing::MaskShape> masks(std::begin(course::testing::kMaskShapes),
                                                std::end(course::testing::kMaskShapes));
  masks.insert(masks.end(), std::begin(kMoreMaskShapes), std::end(kMoreMaskShapes));
  for (int block : kBlockChoices) {
    course::LaunchOptions options;
    options.block = block;
    for (const auto& image : images) {
      for (const auto& mask : masks) {
        const auto seed = test_seed({3, image.h, image.w, mask.mk, mask.ml});
        INFO("image " << image.h << "x" << image.w << " mask " << mask.mk << "x" << mask.ml
                      << ", block " << block << ", seed " << seed);
        const auto result =
            run_conv2d(ch03::conv2d, image.h, image.w, mask.mk, mask.ml, seed, options);
        INFO(result.summary(image.w));
        CHECK(result.passed);
      }
    }
  }
}

TEST_CASE("ch03 conv2d opts in above 48 KB for the largest mask", "[gpu]") {
  COURSE_REQUIRE_GPU();
  const int side = course::kMaxMaskSide;
  const std::size_t bytes = ch03::conv2d_shared_bytes(ch03::kMaxBlock, side, side);
  REQUIRE(ch03::needs_opt_in(bytes));
  const auto seed = test_seed({6, side});
  INFO("image 150x200, mask " << side << "x" << side << ", block 32, " << bytes << " bytes, seed "
                              << seed);
  const auto result = run_conv2d(ch03::conv2d, 150, 200, side, side, seed);
  INFO(result.summary(200));
  CHECK(result.passed);
  CHECK(last_launch_bytes() == bytes);
}

TEST_CASE("ch03 conv1d matches the reference, from 1 tap to the largest mask", "[gpu]") {
  COURSE_REQUIRE_GPU();
  std::vector<course::testing::Conv1dShape> shapes(std::begin(course::testing::kConv1dShapes),
                                                   std::end(course::testing::kConv1dShapes));
  shapes.insert(shapes.end(), std::begin(kMoreConv1dShapes), std::end(kMoreConv1dShapes));
  for (const auto& sizes : shapes) {
    const auto seed = test_seed({4, sizes.n, sizes.m});
    INFO("n " << sizes.n << " m " << sizes.m << ", seed " << seed);
    const auto result = run_conv1d(ch03::conv1d, sizes.n, sizes.m, seed);
    INFO(result.summary());
    CHECK(result.passed);
    CHECK(last_launch_bytes() == ch03::conv1d_shared_bytes(sizes.m));
  }
}
