// Chapter 5 on the CPU: the results each thread keeps (thread_tile(), exercise 5.1), checked
// without a GPU. Built twice: against the solution (labels cpu, solutions) and against your
// kernels (labels cpu, ch05; run on request: COURSE_CHECK=ch05 ctest --test-dir build -L cpu).
//
// A thread's 8 x 8 results are two groups of 4 rows, kRowGroupStride apart, times two groups of 4
// columns, kColGroupStride apart, from the corner that thread_tile() returns (as multiply_batch()
// and store_block() use it). The checks: the 256 threads cover the 128 x 128 block tile, each
// element once, and the 32 lanes of each warp cover one 32 x 64 rectangle of it, a warp tile.
#include <kernels.cuh>

#include "catch.hpp"
#include "chapter_request.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace {

// The element (row, column) of the block tile that result (i, j) of a thread with corner @p tile
// stands for.
int result_row(ch05::ThreadTile tile, int i) {
  return tile.row + (i / ch05::kQuad) * ch05::kRowGroupStride + i % ch05::kQuad;
}
int result_col(ch05::ThreadTile tile, int j) {
  return tile.col + (j / ch05::kQuad) * ch05::kColGroupStride + j % ch05::kQuad;
}

std::string at(int row, int col) {
  return "(" + std::to_string(row) + ", " + std::to_string(col) + ")";
}

// The first element of the block tile that no thread or two threads compute (or a result outside
// the tile), in words; empty when the threads cover the tile exactly once.
template <class F>
std::string coverage_problem(F thread_tile) {
  std::vector<int> owner(ch05::kTile * ch05::kTile, -1);
  for (int thread = 0; thread < ch05::kProductThreads; ++thread) {
    const ch05::ThreadTile tile = thread_tile(thread);
    for (int i = 0; i < ch05::kRegisterBlock; ++i) {
      for (int j = 0; j < ch05::kRegisterBlock; ++j) {
        const int row = result_row(tile, i);
        const int col = result_col(tile, j);
        if (row < 0 || row >= ch05::kTile || col < 0 || col >= ch05::kTile)
          return "thread " + std::to_string(thread) + " keeps element " + at(row, col) +
                 ", outside the 128 x 128 tile";
        int& first = owner[row * ch05::kTile + col];
        if (first >= 0)
          return "element " + at(row, col) + " is kept by threads " + std::to_string(first) +
                 " and " + std::to_string(thread);
        first = thread;
      }
    }
  }
  const auto none = std::find(owner.begin(), owner.end(), -1);
  if (none != owner.end()) {
    const int index = static_cast<int>(none - owner.begin());
    return "no thread keeps element " + at(index / ch05::kTile, index % ch05::kTile);
  }
  return {};
}

// The first warp whose 32 lanes do not keep one 32 x 64 rectangle on the grid of warp tiles, in
// words; empty when every warp does (with coverage_problem() empty, its 2048 results fill it).
template <class F>
std::string warp_problem(F thread_tile) {
  for (int warp = 0; warp < ch05::kProductThreads / ch05::kWarpSize; ++warp) {
    int top = ch05::kTile, left = ch05::kTile, bottom = -1, right = -1;
    for (int lane = 0; lane < ch05::kWarpSize; ++lane) {
      const ch05::ThreadTile tile = thread_tile(warp * ch05::kWarpSize + lane);
      for (int i : {0, ch05::kRegisterBlock - 1}) {
        top = std::min(top, result_row(tile, i));
        bottom = std::max(bottom, result_row(tile, i));
        left = std::min(left, result_col(tile, i));
        right = std::max(right, result_col(tile, i));
      }
    }
    if (bottom - top + 1 != ch05::kWarpTileRows || right - left + 1 != ch05::kWarpTileCols ||
        top % ch05::kWarpTileRows != 0 || left % ch05::kWarpTileCols != 0)
      return "warp " + std::to_string(warp) + "'s lanes keep rows " + std::to_string(top) + ".." +
             std::to_string(bottom) + " and columns " + std::to_string(left) + ".." +
             std::to_string(right) + ", not one 32 x 64 warp tile";
  }
  return {};
}

}  // namespace

TEST_CASE("5.1: the 256 threads keep every element of the block tile once", "[ch05]") {
  COURSE_REQUIRE_EDITION("ch05");
  const std::string problem = coverage_problem(ch05::thread_tile);
  INFO(problem << " (scripts/hint.sh 5.1)");
  CHECK(problem.empty());
}

TEST_CASE("5.1: the 32 lanes of each warp keep one 32 x 64 warp tile", "[ch05]") {
  COURSE_REQUIRE_EDITION("ch05");
  const std::string problem = warp_problem(ch05::thread_tile);
  INFO(problem << " (scripts/hint.sh 5.1)");
  CHECK(problem.empty());
}

#ifdef COURSE_SOLUTION_EDITION
TEST_CASE("the warp-tile checks reject overlapping threads and warps spread over the tile",
          "[ch05]") {
  // Every thread on one corner; two neighbouring threads on one block.
  CHECK_FALSE(coverage_problem([](int) { return ch05::ThreadTile{0, 0}; }).empty());
  CHECK_FALSE(coverage_problem([](int t) { return ch05::thread_tile(t & ~1); }).empty());
  // The solution with the thread's warp and lane read the wrong way round (warp t % 8, lane
  // t / 8): every element once, but each warp's lanes spread over all the warp tiles.
  const auto swapped = [](int t) { return ch05::thread_tile((t % 8) * 32 + t / 8); };
  CHECK(coverage_problem(swapped).empty());
  CHECK_FALSE(warp_problem(swapped).empty());
}
#endif
