// Chapter 3's buffer arithmetic on the CPU: alignment, the bytes each kernel's layout needs, the
// 48 KB opt-in threshold, the refusal of a buffer beyond the device's limit, and the launchers'
// refusal of sizes the kernels do not take. Only host code runs; no GPU is needed.
#include "solutions/03_dynamic_shared_buffer/kernels.cuh"

#include "catch.hpp"
#include "rejection.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

using course::testing::rejection;

constexpr std::size_t kFloat = sizeof(float);

// The byte offset of @p pointer from @p base.
std::size_t offset_of(const void* pointer, const unsigned char* base) {
  return static_cast<std::size_t>(static_cast<const unsigned char*>(pointer) - base);
}

}  // namespace

// The arithmetic is constexpr: the compiler checks these before any test runs.
static_assert(ch03::align_up(0, 16) == 0);
static_assert(ch03::align_up(20, 16) == 32);
static_assert(ch03::product_shared_bytes(32) == (32 * 32 + 32 * ch03::kBPitch) * kFloat);
static_assert(ch03::conv2d_shared_bytes(32, 63, 63) == (63 * 64 + 94 * 94) * kFloat);
static_assert(ch03::conv1d_shared_bytes(127) == (128 + 1024 + 128) * kFloat);

TEST_CASE("align_up rounds an offset up to a multiple of a power of two", "[ch03][buffer]") {
  CHECK(ch03::align_up(0, 16) == 0);
  CHECK(ch03::align_up(1, 16) == 16);
  CHECK(ch03::align_up(15, 16) == 16);
  CHECK(ch03::align_up(16, 16) == 16);
  CHECK(ch03::align_up(17, 16) == 32);
  CHECK(ch03::align_up(5, 4) == 8);
  CHECK(ch03::align_up(7, 1) == 7);
  CHECK(ch03::round_up_to_quad(1) == 4);
  CHECK(ch03::round_up_to_quad(4) == 4);
  CHECK(ch03::round_up_to_quad(13) == 16);
  CHECK(ch03::round_up_to_quad(63) == 64);
}

TEST_CASE("a measuring carver adds up aligned arrays and returns no memory", "[ch03][buffer]") {
  ch03::SharedCarver sizing;
  CHECK(sizing.take<float>(3) == nullptr);  // bytes 0 .. 12
  CHECK(sizing.bytes() == 12);
  CHECK(sizing.take<float4>(2) == nullptr);  // starts at 16, not 12: bytes 16 .. 48
  CHECK(sizing.bytes() == 48);
  CHECK(sizing.take<float>(1) == nullptr);  // floats need only 4-byte alignment: 48 .. 52
  CHECK(sizing.bytes() == 52);
  CHECK(sizing.take<float>(4, ch03::kQuadAlignment) == nullptr);  // asked for 16: 64 .. 80
  CHECK(sizing.bytes() == 80);
  CHECK(sizing.take<double>(1) == nullptr);  // 80 is a multiple of 8 already
  CHECK(sizing.bytes() == 88);
  CHECK(sizing.take<float>(0) == nullptr);  // an empty array moves nothing
  CHECK(sizing.bytes() == 88);
}

TEST_CASE("a carver over a buffer hands out aligned arrays inside it, and no more",
          "[ch03][buffer]") {
  alignas(16) unsigned char buffer[64] = {};
  ch03::SharedCarver carver(buffer, sizeof(buffer));
  const float* three = carver.take<float>(3);
  const float4* quads = carver.take<float4>(2);
  REQUIRE(three != nullptr);
  REQUIRE(quads != nullptr);
  CHECK(offset_of(three, buffer) == 0);
  CHECK(offset_of(quads, buffer) == 16);
  CHECK(reinterpret_cast<std::uintptr_t>(quads) % alignof(float4) == 0);
  const float* last = carver.take<float>(4);  // 48 .. 64: exactly fills the buffer
  REQUIRE(last != nullptr);
  CHECK(offset_of(last, buffer) == 48);
  CHECK(carver.bytes() == 64);
  CHECK(carver.take<float>(1) == nullptr);  // would end at 68, past the 64 bytes
}

TEST_CASE(
    "the product's buffer is a tile x tile A tile, 16-byte aligned, and tile B rows of "
    "kBPitch floats",
    "[ch03][buffer]") {
  for (int tile = ch03::kQuad; tile <= ch03::kMaxTile; tile += ch03::kQuad) {
    INFO("tile " << tile);
    const std::size_t a_bytes = static_cast<std::size_t>(tile) * tile * kFloat;
    const std::size_t b_bytes = static_cast<std::size_t>(tile) * ch03::kBPitch * kFloat;
    CHECK(ch03::product_shared_bytes(tile) == a_bytes + b_bytes);
    alignas(16) static unsigned char buffer[(32 * 32 + 32 * ch03::kBPitch) * sizeof(float)];
    ch03::SharedCarver carver(buffer, ch03::product_shared_bytes(tile));
    const ch03::ProductBuffer tiles = ch03::carve_product_buffer(carver, tile);
    REQUIRE(tiles.complete());
    CHECK(offset_of(tiles.a_tile, buffer) == 0);
    CHECK(offset_of(tiles.b_tile, buffer) == a_bytes);
    // Every row of the A tile is read as float4: each starts on a 16-byte boundary.
    CHECK((tile * kFloat) % ch03::kQuadAlignment == 0);
    CHECK_FALSE(ch03::needs_opt_in(ch03::product_shared_bytes(tile)));
  }
  // A B row holds the widest tile's row: the constant distance the kernel's loads encode.
  CHECK(ch03::kBPitch >= ch03::kMaxTile);
  // At T = 16 a warp stores two B rows: kBPitch floats apart, they must fall in other banks.
  CHECK(ch03::kBPitch % 32 == 16);
  CHECK(ch03::product_shared_bytes(32) == 4096 + 6144);
  CHECK(ch03::product_shared_bytes(16) == 1024 + 3072);
  CHECK(ch03::product_shared_bytes(8) == 256 + 1536);
}

TEST_CASE("conv2d's buffer holds the mask in 16-byte rows and the tile with its halo",
          "[ch03][buffer]") {
  // 13 x 13 with 32 x 32 blocks: 13 rows of 16 floats, then a 44 x 44 tile.
  CHECK(ch03::conv2d_shared_bytes(32, 13, 13) == (13 * 16 + 44 * 44) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(32, 13, 13) == 8576);
  // 3 x 5: 3 rows of 8 floats, a 34 x 36 tile. 1 x 1: one row of 4, a 32 x 32 tile.
  CHECK(ch03::conv2d_shared_bytes(32, 3, 5) == (3 * 8 + 34 * 36) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(32, 1, 1) == (4 + 32 * 32) * kFloat);
  CHECK(ch03::conv2d_shared_bytes(8, 5, 3) == (5 * 4 + 12 * 10) * kFloat);
  // The largest mask: (32 + 62)^2 * 4 + 63 * 64 * 4 = 51472 bytes, above 48 KB.
  CHECK(ch03::conv2d_shared_bytes(32, 63, 63) == 51472);
  CHECK(ch03::needs_opt_in(ch03::conv2d_shared_bytes(32, 63, 63)));
  CHECK(ch03::needs_opt_in(ch03::conv2d_shared_bytes(32, 61, 61)));
  CHECK_FALSE(ch03::needs_opt_in(ch03::conv2d_shared_bytes(32, 59, 59)));
  CHECK_FALSE(ch03::needs_opt_in(ch03::conv2d_shared_bytes(16, 63, 63)));

  alignas(16) static unsigned char buffer[51472];
  for (int side : {1, 3, 5, 13, 31, 63}) {
    for (int cols : {1, 3, 7, 63}) {
      INFO("mask " << side << "x" << cols);
      const std::size_t bytes = ch03::conv2d_shared_bytes(32, side, cols);
      REQUIRE(bytes <= sizeof(buffer));
      ch03::SharedCarver carver(buffer, bytes);
      const ch03::Conv2dBuffer arrays = ch03::carve_conv2d_buffer(carver, 32, side, cols);
      REQUIRE(arrays.complete());
      CHECK(offset_of(arrays.mask_tile, buffer) == 0);
      const std::size_t pitch = static_cast<std::size_t>(ch03::mask_pitch(cols));
      CHECK(pitch % ch03::kQuad == 0);  // every mask row starts on a 16-byte boundary
      CHECK(pitch >= static_cast<std::size_t>(cols));
      CHECK(pitch < static_cast<std::size_t>(cols) + ch03::kQuad);
      CHECK(offset_of(arrays.tile, buffer) == side * pitch * kFloat);
      CHECK(bytes == (side * pitch + (32 + side - 1) * (32 + cols - 1)) * kFloat);
    }
  }
}

TEST_CASE("conv1d's buffer follows the mask length and stays under 48 KB", "[ch03][buffer]") {
  CHECK(ch03::conv1d_shared_bytes(1) == (4 + 1024 + 4) * kFloat);
  CHECK(ch03::conv1d_shared_bytes(10) == (12 + 1024 + 12) * kFloat);
  CHECK(ch03::conv1d_shared_bytes(127) == 5120);
  CHECK(ch03::conv1d_shared_bytes(1023) == (1024 + 1024 + 1024) * kFloat);
  CHECK(ch03::conv1d_shared_bytes(ch03::kMaxTaps) == 36864);
  CHECK_FALSE(ch03::needs_opt_in(ch03::conv1d_shared_bytes(ch03::kMaxTaps)));
  alignas(16) static unsigned char buffer[36864];
  for (int m : {1, 2, 3, 4, 5, 10, 127, 1023, ch03::kMaxTaps}) {
    INFO("m " << m);
    const std::size_t bytes = ch03::conv1d_shared_bytes(m);
    ch03::SharedCarver carver(buffer, bytes);
    const ch03::Conv1dBuffer arrays = ch03::carve_conv1d_buffer(carver, m);
    REQUIRE(arrays.complete());
    const std::size_t taps = static_cast<std::size_t>(ch03::round_up_to_quad(m));
    CHECK(offset_of(arrays.mask_tile, buffer) == 0);
    CHECK(offset_of(arrays.segment, buffer) == taps * kFloat);
    CHECK(offset_of(arrays.segment, buffer) % ch03::kQuadAlignment == 0);
    // The segment covers the run and its halo of m - 1 inputs, and the last thread's last float4.
    CHECK(ch03::segment_length(m) >= ch03::kConv1dRun + m - 1);
    CHECK(ch03::segment_length(m) % ch03::kQuad == 0);
    CHECK(bytes == (taps + ch03::segment_length(m)) * kFloat);
  }
}

TEST_CASE("above 48 KB a launch must opt in", "[ch03][limits]") {
  CHECK(ch03::kDefaultSharedLimit == 49152);
  CHECK_FALSE(ch03::needs_opt_in(0));
  CHECK_FALSE(ch03::needs_opt_in(49152));
  CHECK(ch03::needs_opt_in(49153));
}

TEST_CASE("a buffer beyond the device's limit is refused, naming both numbers", "[ch03][limits]") {
  const std::size_t largest = ch03::conv2d_shared_bytes(32, 63, 63);
  // Hopper (227 KB per block with the opt-in) and Ampere A100 (163 KB) take it.
  CHECK_NOTHROW(ch03::require_shared_fits(largest, 232448, "conv2d"));
  CHECK_NOTHROW(ch03::require_shared_fits(largest, 166912, "conv2d"));
  CHECK_NOTHROW(ch03::require_shared_fits(largest, largest, "conv2d"));
  // A device whose blocks cannot have more than 48 KB refuses it, with both numbers.
  const std::string message =
      rejection([&] { ch03::require_shared_fits(largest, 49152, "conv2d with a 63x63 mask"); });
  INFO(message);
  CHECK(message.find("conv2d with a 63x63 mask") != std::string::npos);
  CHECK(message.find("51472") != std::string::npos);
  CHECK(message.find("49152") != std::string::npos);
  CHECK_FALSE(rejection([&] { ch03::require_shared_fits(largest, largest - 1, "x"); }).empty());
}

TEST_CASE("the launchers refuse sizes the kernels do not take, before touching the GPU",
          "[ch03][limits]") {
  const auto product_with_tile = [](int tile) {
    return rejection([&] { ch03::matmul(nullptr, nullptr, nullptr, 8, 8, 8, nullptr, tile); });
  };
  for (int tile : {-4, 0, 1, 2, 6, 33, 36, 64}) {
    INFO("tile " << tile);
    CHECK_FALSE(product_with_tile(tile).empty());
  }
  CHECK_FALSE(
      rejection([] { ch03::minplus(nullptr, nullptr, nullptr, 0, 8, 8, nullptr); }).empty());

  const auto conv2d_with = [](int mk, int ml, int block) {
    return rejection(
        [&] { ch03::conv2d(nullptr, 8, 8, nullptr, mk, ml, nullptr, nullptr, block); });
  };
  for (const auto& mask : {std::pair<int, int>{4, 3}, {3, 4}, {0, 1}, {65, 3}, {3, 65}, {-1, 1}}) {
    INFO("mask " << mask.first << "x" << mask.second);
    CHECK_FALSE(conv2d_with(mask.first, mask.second, ch03::kBlocks[0]).empty());
  }
  for (int block : {-1, 0, 33, 64}) {
    INFO("block " << block);
    CHECK_FALSE(conv2d_with(3, 3, block).empty());
  }

  const auto conv1d_with = [](int n, int m) {
    return rejection([&] { ch03::conv1d(nullptr, n, nullptr, m, nullptr, nullptr); });
  };
  CHECK_FALSE(conv1d_with(100, 0).empty());
  CHECK_FALSE(conv1d_with(0, 10).empty());
  const std::string too_long = conv1d_with(100, ch03::kMaxTaps + 1);
  INFO(too_long);
  CHECK(too_long.find(std::to_string(ch03::kMaxTaps)) != std::string::npos);
}
