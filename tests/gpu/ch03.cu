// Chapter 3 kernels against the CPU reference, at the awkward sizes of the course design, for tile
// widths, block widths, mask sizes and mask lengths chosen at run time, the largest of each
// included. Built twice: against the solution (label "solutions") and against your kernels
// (label "ch03").
#include <kernels.cuh>

#include "catch.hpp"
#include "gpu_support.hpp"

namespace testing = course::testing;
using course::Problem;
using course::with_choice;
using testing::test_seed;

namespace {

// Tile widths: the three that --tile offers (the first is the default), and widths that no
// chapter compiles, which only a run-time width can have.
constexpr int kTileChoices[] = {32, 16, 8, 4, 12, 24};

// conv2d block widths: the three that --block offers (the first is the default), and odd widths,
// where a warp spans parts of several tile rows.
constexpr int kBlockChoices[] = {32, 16, 8, 5, 13};

// The dynamic shared bytes of the last checked launch.
std::size_t last_launch_bytes() {
  const auto& log = course::launch_log();
  return log.empty() ? 0 : log.back().dynamic_shared_bytes;
}

}  // namespace

TEST_CASE("ch03 matmul and minplus match the reference at the course's sizes, every tile",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices) {
    INFO("tile " << tile);
    testing::check_products_at_course_sizes(with_choice(ch03::matmul, tile),
                                            with_choice(ch03::minplus, tile));
  }
}

TEST_CASE("ch03 products launch with the buffer their tile width needs", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : {32, 16, 8, 4}) {
    const auto seed = test_seed({5, tile});
    INFO("tile " << tile << ", seed " << seed);
    const auto product =
        testing::run_product(with_choice(ch03::matmul, tile), Problem::matmul, 70, 45, 99, seed);
    INFO(product.summary(45));
    CHECK(product.passed);
    CHECK(last_launch_bytes() == ch03::product_shared_bytes(tile));
    // The A tile, then tile rows of B, each kBPitch floats.
    CHECK(last_launch_bytes() == (tile * tile + tile * std::size_t{ch03::kBPitch}) * sizeof(float));
  }
}

TEST_CASE("ch03 conv2d matches the reference for run-time masks and blocks", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Images beyond the design's list: several blocks in both directions, and shapes one short of
  // and one past a 32 x 32 block, so every edge of a tile and of its halo is exercised.
  const auto images = testing::shapes(testing::kImageShapes, {{31, 33}, {64, 65}, {97, 70}});
  // Masks beyond the design's list: long and flat, larger than 13 and not square, and the largest
  // allowed (63 x 63, which needs the opt-in above 48 KB with 32 x 32 blocks).
  const auto masks = testing::shapes(
      testing::kMaskShapes,
      {{1, 9}, {9, 1}, {7, 15}, {31, 17}, {course::kMaxMaskSide, course::kMaxMaskSide}});
  for (int block : kBlockChoices) {
    INFO("block " << block);
    testing::check_conv2d(with_choice(ch03::conv2d, block), images, masks);
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
  const auto result =
      testing::run_conv2d(with_choice(ch03::conv2d, ch03::kMaxBlock), 150, 200, side, side, seed);
  INFO(result.summary(200));
  CHECK(result.passed);
  CHECK(last_launch_bytes() == bytes);
}

TEST_CASE("ch03 conv1d matches the reference, from 1 tap to the largest mask", "[gpu]") {
  COURSE_REQUIRE_GPU();
  // Beyond the design's list: several runs of kConv1dRun outputs, runs that end one short of and
  // one past a block, the largest mask on short and long signals (m > n, m = n).
  const auto shapes = testing::shapes(testing::kConv1dShapes, {{ch03::kConv1dRun, 1},
                                                               {ch03::kConv1dRun + 1, 1},
                                                               {ch03::kConv1dRun - 9, 10},
                                                               {3 * ch03::kConv1dRun + 17, 127},
                                                               {20000, 10},
                                                               {1, ch03::kMaxTaps},
                                                               {ch03::kMaxTaps, ch03::kMaxTaps},
                                                               {ch03::kMaxTaps - 1, ch03::kMaxTaps},
                                                               {9000, ch03::kMaxTaps}});
  // Each shape's launch must use the buffer its mask length needs.
  const course::Conv1dLauncher conv1d = [](const float* a, int n, const float* b, int m, float* y,
                                           cudaStream_t stream) {
    ch03::conv1d(a, n, b, m, y, stream);
    CHECK(last_launch_bytes() == ch03::conv1d_shared_bytes(m));
  };
  testing::check_conv1d(conv1d, shapes);
}
