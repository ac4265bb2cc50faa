// Chapter 3's buffer arithmetic on the CPU: the bytes of the product's and conv2d's layouts at the
// sizes the lesson quotes, the 48 KB opt-in threshold, the refusal of a buffer beyond the device's
// limit, and the launchers' refusal of sizes the kernels do not take, in both variants. Only host
// code runs; no GPU is needed. The exercises' carving (BufferPlan::place, conv1d's layout) is
// checked against your code by test_ch03_carving.cu.
#include "solutions/03_dynamic_shared_buffer/kernels.cuh"
#include "chapters/03_dynamic_shared_buffer/launch.cuh"

#include "catch.hpp"
#include "rejection.hpp"

#include <functional>
#include <string>
#include <utility>

namespace {

using course::testing::rejection;

constexpr std::size_t kFloat = sizeof(float);

}  // namespace

// The arithmetic is constexpr: the compiler checks these before any test runs.
static_assert(ch03::product_shared_bytes(32) == 2 * 32 * 64 * kFloat);
static_assert(ch03::conv2d_shared_bytes(32, 63, 63) == (63 * 63 + 94 * 94) * kFloat);

TEST_CASE("the product's buffer is a tile x depth tile and a depth x tile tile", "[ch03][buffer]") {
  for (int tile = 1; tile <= ch03::kMaxTile; ++tile) {
    INFO("tile " << tile);
    // Chapter 2's step: two tile widths of k.
    CHECK(ch03::product_depth(tile) == 2 * tile);
    CHECK(ch03::product_shared_bytes(tile) ==
          2 * static_cast<std::size_t>(tile) * ch03::product_depth(tile) * kFloat);
    CHECK(ch03::product_shared_bytes(tile) == 4 * static_cast<std::size_t>(tile) * tile * kFloat);
    CHECK_FALSE(course::needs_opt_in(ch03::product_shared_bytes(tile)));
  }
  // The A tile of T x 2T floats, then the B tile of 2T x T.
  CHECK(ch03::product_shared_bytes(32) == 16384);
  CHECK(ch03::product_shared_bytes(16) == 4096);
  CHECK(ch03::product_shared_bytes(8) == 1024);
  CHECK(ch03::product_shared_bytes(1) == 16);
}

TEST_CASE("conv2d's buffer holds the mask and the tile with its halo", "[ch03][buffer]") {
  // 13 x 13 with 32 x 32 blocks: 13 x 13 mask entries, then a 44 x 44 tile.
  CHECK(ch03::conv2d_shared_bytes(32, 13, 13) == (13 * 13 + 44 * 44) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(32, 13, 13) == 8420);
  // 3 x 5: a 34 x 36 tile. 1 x 1: a 32 x 32 tile.
  CHECK(ch03::conv2d_shared_bytes(32, 3, 5) == (3 * 5 + 34 * 36) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(32, 1, 1) == (1 + 32 * 32) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(8, 5, 3) == (5 * 3 + 12 * 10) * kFloat);
  // The largest mask: (63 * 63 + 94 * 94) * 4 = 51220 bytes, above 48 KB; 61 x 61 fits under it.
  CHECK(ch03::conv2d_shared_bytes(32, 63, 63) == 51220);
  CHECK(course::needs_opt_in(ch03::conv2d_shared_bytes(32, 63, 63)));
  CHECK(course::needs_opt_in(ch03::conv2d_shared_bytes(32, 63, 61)));
  CHECK_FALSE(course::needs_opt_in(ch03::conv2d_shared_bytes(32, 61, 61)));
  CHECK_FALSE(course::needs_opt_in(ch03::conv2d_shared_bytes(32, 59, 59)));
  CHECK_FALSE(course::needs_opt_in(ch03::conv2d_shared_bytes(16, 63, 63)));
  for (int side : {1, 3, 5, 13, 31, 63}) {
    for (int cols : {1, 3, 7, 63}) {
      INFO("mask " << side << "x" << cols);
      for (int block : {1, 5, 8, 32}) {
        INFO("block " << block);
        CHECK(ch03::conv2d_shared_bytes(block, side, cols) ==
              (static_cast<std::size_t>(side) * cols +
               static_cast<std::size_t>(block + side - 1) * (block + cols - 1)) *
                  kFloat);
      }
    }
  }
}

TEST_CASE("above 48 KB a launch must opt in", "[ch03][limits]") {
  CHECK(course::kDefaultSharedLimit == 49152);
  CHECK_FALSE(course::needs_opt_in(0));
  CHECK_FALSE(course::needs_opt_in(49152));
  CHECK(course::needs_opt_in(49153));
}

TEST_CASE("a buffer beyond the device's limit is refused, naming both numbers", "[ch03][limits]") {
  const std::size_t largest = ch03::conv2d_shared_bytes(32, 63, 63);
  REQUIRE(largest == 51220);
  // Hopper (227 KB per block with the opt-in) and Ampere A100 (163 KB) take it.
  CHECK_NOTHROW(course::require_shared_fits(largest, 232448, "conv2d"));
  CHECK_NOTHROW(course::require_shared_fits(largest, 166912, "conv2d"));
  CHECK_NOTHROW(course::require_shared_fits(largest, largest, "conv2d"));
  // A device whose blocks cannot have more than 48 KB refuses it, with both numbers.
  const std::string message =
      rejection([&] { course::require_shared_fits(largest, 49152, "conv2d with a 63x63 mask"); });
  INFO(message);
  CHECK(message.find("conv2d with a 63x63 mask") != std::string::npos);
  CHECK(message.find("51220") != std::string::npos);
  CHECK(message.find("49152") != std::string::npos);
  CHECK_FALSE(rejection([&] { course::require_shared_fits(largest, largest - 1, "x"); }).empty());
}

TEST_CASE("the dispatch compiles the default sizes of the main part", "[ch03][dispatch]") {
  CHECK(ch03::dispatch::kBlock == ch03::kBlocks[0]);
  CHECK(ch03::dispatch::kMaskSides[0] == 13);  // the executable's default mask
  for (int side : ch03::dispatch::kMaskSides) {
    INFO("side " << side);
    CHECK(side % 2 == 1);
    CHECK(side <= course::kMaxMaskSide);
  }
  // A square mask of the list with the default block has its own kernel; anything else none.
  CHECK(ch03::dispatch::compiled_conv2d_kernel(13) != nullptr);
  CHECK(ch03::dispatch::compiled_conv2d_kernel(1) != nullptr);
  CHECK(ch03::dispatch::compiled_conv2d_kernel(13) != ch03::dispatch::compiled_conv2d_kernel(11));
  CHECK(ch03::dispatch::compiled_conv2d_kernel(15) == nullptr);
  CHECK(ch03::dispatch::compiled_conv2d_kernel(63) == nullptr);
}

TEST_CASE("the dispatch sends the offered tile widths to their compiled kernels",
          "[ch03][dispatch]") {
  using ch03::dispatch::compiled_product_kernel;
  using course::MinPlus;
  using course::PlusTimes;
  const ch03::ProductKernel plain_matmul = ch03::product_kernel<PlusTimes>;
  const ch03::ProductKernel plain_minplus = ch03::product_kernel<MinPlus>;
  CHECK(compiled_product_kernel<PlusTimes>(32) == ch03::dispatch::product_kernel<PlusTimes, 32>);
  CHECK(compiled_product_kernel<PlusTimes>(16) == ch03::dispatch::product_kernel<PlusTimes, 16>);
  CHECK(compiled_product_kernel<PlusTimes>(8) == ch03::dispatch::product_kernel<PlusTimes, 8>);
  CHECK(compiled_product_kernel<MinPlus>(32) == ch03::dispatch::product_kernel<MinPlus, 32>);
  for (int tile : ch03::kTiles) {
    INFO("tile " << tile);
    CHECK(compiled_product_kernel<PlusTimes>(tile) != plain_matmul);
    CHECK(compiled_product_kernel<MinPlus>(tile) != plain_minplus);
  }
  // Every other width runs the kernel of the main part.
  for (int tile : {1, 4, 5, 12, 13, 24, 31}) {
    INFO("tile " << tile);
    CHECK(compiled_product_kernel<PlusTimes>(tile) == plain_matmul);
    CHECK(compiled_product_kernel<MinPlus>(tile) == plain_minplus);
  }
}

TEST_CASE("the launchers refuse sizes the kernels do not take, before touching the GPU",
          "[ch03][limits]") {
  using Product =
      std::function<void(const float*, const float*, float*, int, int, int, cudaStream_t, int)>;
  using Conv2d = std::function<void(const float*, int, int, const float*, int, int, float*,
                                    cudaStream_t, int)>;
  const std::pair<const char*, Product> products[] = {
      {"plain matmul", ch03::matmul},
      {"plain minplus", ch03::minplus},
      {"dispatch matmul", ch03::dispatch::matmul},
      {"dispatch minplus", ch03::dispatch::minplus}};
  for (const auto& named : products) {
    INFO(named.first);
    const Product& product = named.second;
    const auto refusal = [&](int m, int k, int tile) {
      return rejection([&] { product(nullptr, nullptr, nullptr, m, 8, k, nullptr, tile); });
    };
    for (int tile : {-4, -1, 0, 33, 36, 64}) {
      INFO("tile " << tile);
      CHECK_FALSE(refusal(8, 8, tile).empty());
    }
    CHECK_FALSE(refusal(0, 8, 32).empty());
    CHECK_FALSE(refusal(8, -1, 32).empty());
    // The loop over k runs a step's depth past k: the k for which that would pass INT_MAX is
    // refused, whatever the tile width.
    for (int tile : {32, 16, 8, 5, 1}) {
      INFO("tile " << tile);
      const int too_deep = INT_MAX - ch03::product_depth(tile) + 1;
      const std::string message = refusal(8, too_deep, tile);
      CHECK(message.find("too large") != std::string::npos);
      CHECK(message.find(std::to_string(INT_MAX - ch03::product_depth(tile))) != std::string::npos);
    }
  }

  const std::pair<const char*, Conv2d> convolutions[] = {
      {"plain conv2d", ch03::conv2d}, {"dispatch conv2d", ch03::dispatch::conv2d}};
  for (const auto& named : convolutions) {
    INFO(named.first);
    const Conv2d& conv2d = named.second;
    const auto conv2d_with = [&](int mk, int ml, int block) {
      return rejection([&] { conv2d(nullptr, 8, 8, nullptr, mk, ml, nullptr, nullptr, block); });
    };
    for (const auto& mask :
         {std::pair<int, int>{4, 3}, {3, 4}, {0, 1}, {65, 3}, {3, 65}, {-1, 1}, {14, 14}}) {
      INFO("mask " << mask.first << "x" << mask.second);
      CHECK_FALSE(conv2d_with(mask.first, mask.second, ch03::kBlocks[0]).empty());
    }
    for (int block : {-1, 0, 33, 64}) {
      INFO("block " << block);
      CHECK_FALSE(conv2d_with(3, 3, block).empty());
    }
    CHECK_FALSE(
        rejection([&] { conv2d(nullptr, 0, 8, nullptr, 3, 3, nullptr, nullptr, 32); }).empty());
  }

  const auto conv1d_with = [](int n, int m) {
    return rejection([&] { ch03::conv1d(nullptr, n, nullptr, m, nullptr, nullptr); });
  };
  CHECK_FALSE(conv1d_with(100, 0).empty());
  CHECK_FALSE(conv1d_with(0, 10).empty());
  CHECK_FALSE(conv1d_with(-3, 10).empty());
  const std::string too_long = conv1d_with(100, ch03::kMaxTaps + 1);
  INFO(too_long);
  CHECK(too_long.find(std::to_string(ch03::kMaxTaps)) != std::string::npos);
  // The output's length n + m - 1 must stay an int.
  CHECK_FALSE(conv1d_with(INT_MAX, 2).empty());
  CHECK_FALSE(conv1d_with(INT_MAX - 10, 12).empty());
}
