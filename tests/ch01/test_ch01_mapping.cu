// Exercise 1.5 on the CPU: every thread of the grid that launch_product() lays out asks
// owned_element() for its element of C, for both mappings and several shapes. Built against your
// kernels.cuh (label ch01: run with COURSE_CHECK=ch01) and against the solution's. The checks are
// what a mapping must do: every element of C is computed by exactly one thread, and the 32
// threads of a warp own neighbouring elements of one row (coalesced) or of one column
// (transposed).
#include <kernels.cuh>
#include "chapters/01_global_memory/launch.cuh"

#include "catch.hpp"
#include "chapter_request.hpp"

#include <vector>

namespace {

using ch01::ThreadMapping;

// Plays every thread of the product's grid for an m x n C through owned_element() and checks it.
void check_mapping(ThreadMapping mapping, int m, int n) {
  const dim3 block(ch01::kBlockX, ch01::kBlockY);
  // The grid of launch_product(): x covers the columns (coalesced) or the rows (transposed).
  const dim3 grid = mapping == ThreadMapping::coalesced ? course::grid_2d(n, m, block)
                                                        : course::grid_2d(m, n, block);
  std::vector<int> owners(static_cast<std::size_t>(m) * n, 0);
  int misplaced_warps = 0;
  for (unsigned by = 0; by < grid.y; ++by) {
    for (unsigned bx = 0; bx < grid.x; ++bx) {
      for (unsigned ty = 0; ty < block.y; ++ty) {
        // kBlockX is 32: each row of threads of a block is one warp, lane = tx.
        bool first = true;
        ch01::Element lane0{};
        for (unsigned tx = 0; tx < block.x; ++tx) {
          const ch01::Element e =
              ch01::owned_element(mapping, uint3{bx, by, 0}, uint3{tx, ty, 0}, block);
          if (e.row < 0 || e.row >= m || e.col < 0 || e.col >= n)
            continue;  // a thread of the rounded-up grid with nothing to compute
          ++owners[static_cast<std::size_t>(e.row) * n + e.col];
          const int lane = static_cast<int>(tx);
          if (first) {
            lane0 = {e.row - (mapping == ThreadMapping::transposed ? lane : 0),
                     e.col - (mapping == ThreadMapping::coalesced ? lane : 0)};
            first = false;
          }
          const bool neighbours = mapping == ThreadMapping::coalesced
                                      ? e.row == lane0.row && e.col == lane0.col + lane
                                      : e.col == lane0.col && e.row == lane0.row + lane;
          if (!neighbours)
            ++misplaced_warps;
        }
      }
    }
  }
  int unowned = 0;
  int shared = 0;
  for (int count : owners) {
    unowned += count == 0;
    shared += count > 1;
  }
  INFO("elements of C that no thread computes: " << unowned << " of " << owners.size());
  CHECK(unowned == 0);
  INFO("elements of C that several threads compute: " << shared);
  CHECK(shared == 0);
  INFO("threads whose element is not next to their warp neighbours' the way the mapping says: "
       << misplaced_warps);
  CHECK(misplaced_warps == 0);
}

}  // namespace

TEST_CASE("exercise 1.5: each element of C has one thread, and a warp owns neighbours",
          "[ch01][mapping]") {
  COURSE_REQUIRE_EDITION("ch01");
  const struct {
    int m, n;
  } shapes[] = {{1, 1}, {7, 5}, {32, 32}, {67, 45}, {45, 67}, {8, 257}, {257, 8}, {100, 33}};
  for (ThreadMapping mapping : {ThreadMapping::coalesced, ThreadMapping::transposed}) {
    for (const auto& shape : shapes) {
      INFO((mapping == ThreadMapping::coalesced ? "coalesced" : "transposed")
           << ", C is " << shape.m << " x " << shape.n);
      check_mapping(mapping, shape.m, shape.n);
    }
  }
}
