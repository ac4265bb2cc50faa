// Exercises 3.1 (BufferPlan::place) and 3.3 (conv1d_layout) on the CPU, and the layouts of the
// product and conv2d that place() plans. Built against your kernels.cuh (label ch03: run with
// COURSE_CHECK=ch03) and against the solution's. Every check is a property a carving must have:
// each array starts at a multiple of its type's alignment, after the arrays placed before it and
// no further than that alignment requires; it holds what the kernel indexes; the buffer ends
// where the last array ends.
#include <kernels.cuh>

#include "catch.hpp"
#include "chapter_request.hpp"

#include "course/launch.cuh"

#include <cstddef>
#include <cstdint>

namespace {

// One array of a layout: where it starts, how many bytes it takes, how it must be aligned.
struct Span {
  const char* name;
  std::size_t offset;
  std::size_t bytes;
  std::size_t alignment;
};

// Checks that @p arrays, placed in this order, are aligned, apart, in order and packed as tightly
// as their alignment allows, and that @p total ends where the last one ends.
template <std::size_t N>
void check_carving(const Span (&arrays)[N], std::size_t total) {
  std::size_t end = 0;  // where the array before ends
  for (const Span& array : arrays) {
    INFO(array.name << " at byte " << array.offset << " (its type needs a multiple of "
                    << array.alignment << "), " << array.bytes << " bytes; the array before it "
                    << "ends at byte " << end);
    CHECK(array.offset % array.alignment == 0);   // its type may start there
    CHECK(array.offset >= end);                   // it does not overlap the one before
    CHECK(array.offset < end + array.alignment);  // no gap beyond what the alignment needs
    end = array.offset + array.bytes;
  }
  INFO("the arrays end at byte " << end);
  CHECK(total == end);  // the launch asks for exactly the bytes the arrays take
}

}  // namespace

TEST_CASE("exercise 3.1: place() puts each array at the first offset its type allows",
          "[ch03][carving]") {
  COURSE_REQUIRE_EDITION("ch03");
  SECTION("one array of floats starts at the beginning") {
    ch03::BufferPlan plan;
    const std::size_t a = plan.place<float>(10);
    check_carving({Span{"10 floats", a, 10 * sizeof(float), alignof(float)}}, plan.bytes);
  }
  SECTION("a float4 after an odd number of floats moves on to a multiple of 16 bytes") {
    for (std::size_t odd : {1, 3, 5, 127, 383}) {
      INFO(odd << " floats, then 2 float4");
      ch03::BufferPlan plan;
      const std::size_t floats = plan.place<float>(odd);
      const std::size_t quads = plan.place<float4>(2);
      check_carving({Span{"floats", floats, odd * sizeof(float), alignof(float)},
                     Span{"float4s", quads, 2 * sizeof(float4), alignof(float4)}},
                    plan.bytes);
    }
  }
  SECTION("arrays of many types, in an order where most of them must move on") {
    ch03::BufferPlan plan;
    const std::size_t c = plan.place<char>(3);
    const std::size_t f = plan.place<float>(5);
    const std::size_t q = plan.place<float4>(2);
    const std::size_t h = plan.place<std::int16_t>(7);
    const std::size_t d = plan.place<double>(1);
    const std::size_t b = plan.place<unsigned char>(1);
    const std::size_t u = plan.place<std::uint64_t>(4);
    const std::size_t e = plan.place<float4>(0);  // an empty array still starts aligned
    check_carving(
        {Span{"3 char", c, 3, alignof(char)}, Span{"5 float", f, 5 * sizeof(float), alignof(float)},
         Span{"2 float4", q, 2 * sizeof(float4), alignof(float4)},
         Span{"7 int16", h, 7 * sizeof(std::int16_t), alignof(std::int16_t)},
         Span{"1 double", d, sizeof(double), alignof(double)},
         Span{"1 unsigned char", b, 1, alignof(unsigned char)},
         Span{"4 uint64", u, 4 * sizeof(std::uint64_t), alignof(std::uint64_t)},
         Span{"0 float4", e, 0, alignof(float4)}},
        plan.bytes);
  }
}

TEST_CASE("exercise 3.1: the product's and conv2d's layouts, planned by place()",
          "[ch03][carving]") {
  COURSE_REQUIRE_EDITION("ch03");
  for (int tile = 1; tile <= ch03::kMaxTile; ++tile) {
    INFO("tile " << tile);
    // The loops index a_tile[ty * depth + p] and b_tile[p * tile + tx]: tile x depth floats each.
    const std::size_t tile_bytes = std::size_t(tile) * ch03::product_depth(tile) * sizeof(float);
    const ch03::ProductLayout layout = ch03::product_layout(tile);
    check_carving({Span{"a_tile", layout.a_tile, tile_bytes, alignof(float)},
                   Span{"b_tile", layout.b_tile, tile_bytes, alignof(float)}},
                  layout.bytes);
    CHECK(ch03::product_shared_bytes(tile) == layout.bytes);
    CHECK_FALSE(course::needs_opt_in(layout.bytes));
  }
  for (int block : {1, 5, 8, 13, 32}) {
    for (int mk : {1, 3, 13, 63}) {
      for (int ml : {1, 5, 63}) {
        INFO("block " << block << ", mask " << mk << "x" << ml);
        // The sum reads mask_tile[p * ml + q] and tile[r * tile_cols + c], r < block + mk - 1,
        // c < tile_cols = block + ml - 1.
        const std::size_t mask_bytes = std::size_t(mk) * ml * sizeof(float);
        const std::size_t tile_bytes =
            std::size_t(block + mk - 1) * (block + ml - 1) * sizeof(float);
        const ch03::Conv2dLayout layout = ch03::conv2d_layout(block, mk, ml);
        check_carving({Span{"mask_tile", layout.mask_tile, mask_bytes, alignof(float)},
                       Span{"tile", layout.tile, tile_bytes, alignof(float)}},
                      layout.bytes);
        CHECK(ch03::conv2d_shared_bytes(block, mk, ml) == layout.bytes);
      }
    }
  }
  // The largest mask with the widest block is the one that needs the opt-in.
  CHECK(course::needs_opt_in(ch03::conv2d_shared_bytes(ch03::kMaxBlock, 63, 63)));
  CHECK_FALSE(course::needs_opt_in(ch03::conv2d_shared_bytes(ch03::kMaxBlock, 61, 61)));
}

TEST_CASE("exercise 3.3: conv1d's segment, then its taps as float4", "[ch03][carving]") {
  COURSE_REQUIRE_EDITION("ch03");
  for (int m = 1; m <= ch03::kMaxTaps; m += (m < 40 ? 1 : 97)) {
    INFO("m " << m << " taps");
    const int span = ch03::tap_span(m);
    REQUIRE(span % ch03::kQuad == 0);
    REQUIRE(span >= m);
    // conv1d_block() reads segment[t + halo - j] for every thread t < kConv1dThreads and every
    // tap j < span, with halo = span - 1, and taps[q] for every q < span / 4.
    const std::size_t largest_input = (ch03::kConv1dThreads - 1) + (span - 1);
    const std::size_t segment_bytes = (largest_input + 1) * sizeof(float);
    const std::size_t taps_bytes = std::size_t(span / ch03::kQuad) * sizeof(float4);
    const ch03::Conv1dLayout layout = ch03::conv1d_layout(m);
    check_carving({Span{"segment", layout.segment, segment_bytes, alignof(float)},
                   Span{"taps", layout.taps, taps_bytes, alignof(float4)}},
                  layout.bytes);
    CHECK(ch03::conv1d_shared_bytes(m) == layout.bytes);
    CHECK_FALSE(course::needs_opt_in(layout.bytes));  // every tap count runs without the opt-in
  }
}
