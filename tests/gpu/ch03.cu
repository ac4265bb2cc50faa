// Chapter 3 kernels against the CPU reference, at the awkward sizes of the course design, for tile
// widths, block widths, mask sizes and mask lengths chosen at run time, the largest of each
// included, in both variants (plain, and dispatch to compiled kernels). Built twice: against the
// solution (label "solutions") and against your kernels (label "ch03").
#include <kernels.cuh>
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

#include "catch.hpp"
#include "gpu_support.hpp"

#include "course/device_info.hpp"

#include <string>
#include <vector>

namespace testing = course::testing;
using course::with_choice;

namespace {

// Tile widths: the three the chapter compiles and offers (ch03::kTiles, the first the default),
// and widths that no chapter compiles, which only a run-time width can have (odd ones: a warp
// spans parts of rows).
constexpr int kTileChoices[] = {32, 16, 8, 4, 12, 24, 13};

// conv2d block widths: the three the chapter offers (ch03::kBlocks, the first the default), and
// odd widths, where a warp spans parts of several tile rows.
constexpr int kBlockChoices[] = {32, 16, 8, 5, 13};

// The dynamic shared bytes of the last checked launch.
std::size_t last_launch_bytes() {
  const auto& log = course::launch_log();
  return log.empty() ? 0 : log.back().dynamic_shared_bytes;
}

// The readable name of the kernel of the last checked launch, e.g.
// "ch03::dispatch::product_kernel<course::PlusTimes, 32>".
std::string last_launch_kernel() {
  const auto& log = course::launch_log();
  return log.empty() ? std::string() : course::query_kernel(log.back()).name;
}

// A launcher that runs @p launcher and checks that the launch ran the kernel named @p kernel.
template <class Launcher>
auto expecting_kernel(Launcher launcher, std::string kernel) {
  return [launcher, kernel](auto... arguments) {
    launcher(arguments...);
    CHECK(last_launch_kernel() == kernel);
  };
}

// Both products with tile width @p tile, in the plain variant or, with @p dispatch, in the one that
// sends a width to the kernel compiled for it.
testing::Choices with_tile(int tile, bool dispatch = false) {
  if (dispatch) {
    return {{"tile " + std::to_string(tile) + ", dispatch",
             testing::products(with_choice(ch03::dispatch::matmul, tile),
                               with_choice(ch03::dispatch::minplus, tile))}};
  }
  return {{"tile " + std::to_string(tile),
           testing::products(with_choice(ch03::matmul, tile), with_choice(ch03::minplus, tile))}};
}

}  // namespace

TEST_CASE("ch03 matmul and minplus match the reference at the course's sizes, every tile",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices)
    testing::check_products_at_course_sizes(with_tile(tile));
}

TEST_CASE("ch03 matmul and minplus, both variants, match the reference for k around a step's depth",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices) {
    const int depth = ch03::product_depth(tile);
    INFO("depth " << depth);
    testing::check_products(with_tile(tile), testing::shapes_around_depth(tile, depth), 3);
    testing::check_products(with_tile(tile, true), testing::shapes_around_depth(tile, depth), 4);
  }
}

TEST_CASE("ch03 products launch with the buffer their tile width needs", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : {32, 16, 8, 4, 13}) {
    const auto matmul = [tile](auto... arguments) {
      ch03::matmul(arguments..., tile);
      CHECK(last_launch_bytes() == ch03::product_shared_bytes(tile));
      // The A tile (tile x 2 tile floats), then the B tile (2 tile x tile).
      CHECK(last_launch_bytes() == 4 * std::size_t(tile) * tile * sizeof(float));
    };
    testing::check_products({{"tile " + std::to_string(tile), testing::products(matmul, {})}},
                            {{70, 45, 99}}, 5);
  }
}

TEST_CASE("ch03 conv2d matches the reference for run-time masks and blocks", "[gpu]") {
  COURSE_REQUIRE_GPU();
  const auto images = testing::shapes(testing::kImageShapes, testing::kBlockEdgeImages);
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
  REQUIRE(course::needs_opt_in(bytes));
  INFO("block 32, " << bytes << " bytes");
  const auto conv2d = [&](auto... arguments) {
    ch03::conv2d(arguments..., ch03::kMaxBlock);
    CHECK(last_launch_bytes() == bytes);
  };
  testing::check_conv2d(conv2d, {{150, 200}}, {{side, side}});
}

TEST_CASE("ch03 conv1d matches the reference, from 1 tap to the largest mask", "[gpu]") {
  COURSE_REQUIRE_GPU();
  constexpr int kBlock = ch03::kConv1dThreads;  // outputs per block
  constexpr int kMost = ch03::kMaxTaps;
  // Beyond the design's list: outputs that end one short of, on, and one past a block; a halo of
  // exactly one block and one past it (m = 257, 258); primes; several blocks; and the largest mask
  // on short and long signals (m > n, m = n).
  // clang-format off
  const std::vector<testing::Conv1dShape> more = {
      {kBlock, 1}, {kBlock + 1, 1}, {kBlock - 9, 10}, {kBlock - 1, 2}, {2, kBlock},
      {31, kBlock + 1}, {kBlock, kBlock + 2}, {3 * kBlock + 17, 127}, {1009, 13}, {20000, 10},
      {1, kMost}, {2, kMost - 1}, {kMost, kMost}, {kMost - 1, kMost}, {9000, kMost}};
  // clang-format on
  // Each shape's launch must use the buffer its mask length needs.
  const course::Conv1dLauncher conv1d = [](const float* a, int n, const float* b, int m, float* y,
                                           cudaStream_t stream) {
    ch03::conv1d(a, n, b, m, y, stream);
    CHECK(last_launch_bytes() == ch03::conv1d_shared_bytes(m));
  };
  testing::check_conv1d(conv1d, testing::shapes(testing::kConv1dShapes, more));
}

TEST_CASE("ch03 dispatch matmul and minplus match the reference at the course's sizes, every tile",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (int tile : kTileChoices)
    testing::check_products_at_course_sizes(with_tile(tile, true));
}

TEST_CASE("ch03 dispatch conv2d matches the reference, compiled masks and the others", "[gpu]") {
  COURSE_REQUIRE_GPU();
  const auto images = testing::shapes(testing::kImageShapes, testing::kBlockEdgeImages);
  // Square masks beyond the course's: every side the dispatch compiles, one it does not, and the
  // largest.
  const auto masks = testing::shapes(
      testing::kMaskShapes,
      {{5, 5}, {7, 7}, {9, 9}, {11, 11}, {15, 15}, {course::kMaxMaskSide, course::kMaxMaskSide}});
  for (int block : {32, 16, 13}) {
    INFO("block " << block << ", dispatch");
    testing::check_conv2d(with_choice(ch03::dispatch::conv2d, block), images, masks);
  }
}

TEST_CASE("ch03 dispatch runs the kernel compiled for a size, and the plain one for the others",
          "[gpu]") {
  COURSE_REQUIRE_GPU();
  // The kernels are named as the report names them: widths 32, 16 and 8 have their own.
  for (int tile : {32, 16, 8, 12, 5}) {
    const bool compiled = tile == 32 || tile == 16 || tile == 8;
    const std::string width = compiled ? ", " + std::to_string(tile) : "";
    const std::string kernel = compiled ? "ch03::dispatch::product_kernel" : "ch03::product_kernel";
    const auto set =
        testing::products(expecting_kernel(with_choice(ch03::dispatch::matmul, tile),
                                           kernel + "<course::PlusTimes" + width + ">"),
                          expecting_kernel(with_choice(ch03::dispatch::minplus, tile),
                                           kernel + "<course::MinPlus" + width + ">"));
    testing::check_products({{"tile " + std::to_string(tile), set}}, {{70, 45, 99}}, 7);
  }
  const struct {
    int block, mk, ml;
    const char* kernel;
  } convolutions[] = {
      {32, 13, 13, "ch03::dispatch::conv2d_kernel<32, 13>"},
      {32, 1, 1, "ch03::dispatch::conv2d_kernel<32, 1>"},
      {32, 5, 5, "ch03::dispatch::conv2d_kernel<32, 5>"},
      {32, 5, 3, "ch03::conv2d_kernel"},
      {32, 15, 15, "ch03::conv2d_kernel"},
      {16, 13, 13, "ch03::conv2d_kernel"},
  };
  for (const auto& expected : convolutions) {
    INFO("block " << expected.block);
    testing::check_conv2d(
        expecting_kernel(with_choice(ch03::dispatch::conv2d, expected.block), expected.kernel),
        {{45, 70}}, {{expected.mk, expected.ml}});
  }
}
