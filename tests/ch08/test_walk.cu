// Chapter 8 on the CPU, against the kernels.cuh this test is built with (the solution's, or yours
// under COURSE_CHECK=ch08). Exercise 8.1: slab_offset() is compared with the place where TMA's
// 128-byte swizzle writes each float of a slab, and slab_column() must give the two warps of a
// slab 32 different columns, read as 8-byte pairs that a half-warp takes from 32 different banks.
// Exercise 8.2: unit_walk() must hand every unit to exactly one cluster, the same units to both
// blocks of a cluster, for many sizes of the work and of the grid. Exercise 8.3: the shares of
// A's tile that multicast_share() gives the blocks of a cluster must fill every block's copy of
// the tile, each row once. Exercise 8.4: empty_arrivals() and release_blocks() drive a model of
// the empty barriers of a cluster: a phase that completes while a warp still reads the stage, or
// never, fails the test. Only host code runs; no GPU is needed.
#include <kernels.cuh>

#include "catch.hpp"
#include "chapter_request.hpp"

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Checks exercise @p exercise ("8.2") through @p functions of the kernels.cuh this test is built
// with: @p failure is what they got wrong, "" when nothing; a failure names the file and the hints.
void check_exercise(const char* exercise, const char* functions, const std::string& failure) {
  INFO("exercise " << exercise << ", " << functions << " in " COURSE_KERNELS_FILE
                   << "; hints: scripts/hint.sh " << exercise);
  INFO(failure);
  CHECK(failure.empty());
}

// ---------------------------------------------------------------------------------------------
// Exercise 8.1: the slab, as TMA lays it out.
// ---------------------------------------------------------------------------------------------

constexpr int kBanks = 32;  // 4-byte banks of shared memory
constexpr int kSlabRowBytes = ch08::kSlabCols * static_cast<int>(sizeof(float));
constexpr int kChunkBytes = 16;  // the swizzle moves 16-byte chunks

// The float at which TMA writes row @p k, column @p col of a slab (a box of 128-byte rows that
// starts on a swizzle atom). The 128-byte swizzle takes the byte offset inside each 1024 bytes:
// bits 4-6 (the chunk within the row) are XORed with bits 7-9 (the row within 8 rows).
int swizzled_float(int k, int col) {
  const int byte = k * kSlabRowBytes + col * static_cast<int>(sizeof(float));
  const int row_in_atom = (byte / ch08::kSwizzleBytes) % 8;
  return (byte ^ (row_in_atom * kChunkBytes)) / static_cast<int>(sizeof(float));
}

using Offset = int (*)(int k, int col);
using Column = int (*)(int g, int odd);

// The first (k, col) where @p offset differs from the layout TMA writes; "" if none.
std::string offset_failure(Offset offset) {
  for (int k = 0; k < ch08::kBatch; ++k) {
    for (int col = 0; col < ch08::kSlabCols; ++col) {
      if (offset(k, col) != swizzled_float(k, col)) {
        std::ostringstream out;
        out << "row k = " << k << ", column " << col << ": slab_offset() gives float "
            << offset(k, col) << ", TMA wrote it at float " << swizzled_float(k, col);
        return out.str();
      }
    }
  }
  return "";
}

// What is wrong with @p column: rows that read outside the slab or the same column, a pair that
// is not one aligned 8-byte load, or a half-warp's loads that share a bank. "" if nothing.
std::string column_failure(Column column) {
  std::vector<int> reader(ch08::kSlabCols, -1);  // which (half, g) reads each column
  for (int odd = 0; odd < 2; ++odd) {
    for (int g = 0; g < 8; ++g) {
      const int col = column(g, odd);
      std::ostringstream who;
      who << "warp half " << odd << ", row g = " << g << " reads columns " << col << " and "
          << col + 1;
      if (col < 0 || col + 1 >= ch08::kSlabCols)
        return who.str() + ": outside the slab's " + std::to_string(ch08::kSlabCols) + " columns";
      if (col % 2 != 0 || swizzled_float(0, col) + 1 != swizzled_float(0, col + 1))
        return who.str() + ": not one 8-byte-aligned pair after the swizzle (a float2 load)";
      for (int c : {col, col + 1}) {
        if (reader[c] >= 0)
          return who.str() + ": column " + std::to_string(c) + " is read by warp half " +
                 std::to_string(reader[c] / 8) + ", row g = " + std::to_string(reader[c] % 8) +
                 " too";
        reader[c] = odd * 8 + g;
      }
    }
  }
  // A warp's lanes 16h .. 16h + 15 (g = 4h .. 4h + 3, t = 0..3) load their pair at k-steps
  // 8q + t and 8q + t + 4: each such load of the half-warp must take two banks no other takes.
  for (int odd = 0; odd < 2; ++odd) {
    for (int half = 0; half < 2; ++half) {
      for (int k0 = 0; k0 < ch08::kBatch; k0 += 4) {
        std::vector<int> lane_of(kBanks, -1);
        for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
          const int k = k0 + lane % 4;
          const int first = swizzled_float(k, column(lane / 4, odd));
          for (int bank : {first % kBanks, (first + 1) % kBanks}) {
            if (lane_of[bank] >= 0) {
              std::ostringstream out;
              out << "warp half " << odd << ", k-steps " << k0 << ".." << k0 + 3 << ": lanes "
                  << lane_of[bank] << " and " << lane << " both load from bank " << bank
                  << " (a bank conflict)";
              return out.str();
            }
            lane_of[bank] = lane;
          }
        }
      }
    }
  }
  return "";
}

}  // namespace

TEST_CASE("ch08 exercise 8.1: slab_offset() finds each float where TMA's swizzle wrote it",
          "[ch08][slab]") {
  COURSE_REQUIRE_EDITION("ch08");
  check_exercise("8.1", "slab_offset()", offset_failure(ch08::slab_offset));
}

TEST_CASE("ch08 exercise 8.1: slab_column() reads 32 columns, conflict-free", "[ch08][slab]") {
  COURSE_REQUIRE_EDITION("ch08");
  check_exercise("8.1", "slab_column()", column_failure(ch08::slab_column));
}

// ---------------------------------------------------------------------------------------------
// Exercise 8.2: the walk of persistent blocks over the units.
// ---------------------------------------------------------------------------------------------

namespace {

using WalkOf = ch08::Walk (*)(int block, int blocks, int cluster, int units, bool persistent);

// What goes wrong when @p grid blocks in clusters of @p cluster walk @p units units with
// @p walk_of; "" if nothing. A persistent grid has at most one block per unit and block.
std::string walk_failure(WalkOf walk_of, int units, int grid, int cluster, bool persistent) {
  std::ostringstream where;
  where << units << " units, " << grid << " blocks in clusters of " << cluster
        << (persistent ? ", persistent" : ", one unit per cluster");
  const int clusters = grid / cluster;
  std::vector<std::vector<int>> walked(grid);
  for (int block = 0; block < grid; ++block) {
    const ch08::Walk walk = walk_of(block, grid, cluster, units, persistent);
    if (walk.first < units && walk.step <= 0)
      return where.str() + ": block " + std::to_string(block) + " never moves on (step " +
             std::to_string(walk.step) + ")";
    if (walk.first < 0)
      return where.str() + ": block " + std::to_string(block) + " starts at unit " +
             std::to_string(walk.first);
    for (int u = walk.first; u < units; u += walk.step)
      walked[block].push_back(u);
  }
  for (int block = 0; block < grid; ++block) {
    const int lead = block - block % cluster;  // the cluster's first block
    if (walked[block] != walked[lead])
      return where.str() + ": blocks " + std::to_string(lead) + " and " + std::to_string(block) +
             " of one cluster walk different units (they share A's tile)";
  }
  std::vector<int> taken(units, -1);
  for (int c = 0; c < clusters; ++c) {
    for (std::size_t i = 0; i < walked[c * cluster].size(); ++i) {
      const int u = walked[c * cluster][i];
      if (taken[u] >= 0)
        return where.str() + ": unit " + std::to_string(u) + " is taken by clusters " +
               std::to_string(taken[u]) + " and " + std::to_string(c);
      taken[u] = c;
      // Round i: the clusters work on the next `clusters` units together, neighbours in the
      // order that shares L2.
      if (u / clusters != static_cast<int>(i))
        return where.str() + ": cluster " + std::to_string(c) + " takes unit " + std::to_string(u) +
               " as its unit number " + std::to_string(i) + ", outside the units " +
               std::to_string(i * clusters) + ".." + std::to_string((i + 1) * clusters - 1) +
               " the clusters take together";
    }
  }
  for (int u = 0; u < units; ++u) {
    if (taken[u] < 0)
      return where.str() + ": no cluster takes unit " + std::to_string(u);
  }
  return "";
}

// The first failure of @p walk_of over many sizes; "" if none.
std::string walks_failure(WalkOf walk_of) {
  for (int cluster : {2, 1}) {
    for (int units = 1; units <= 300; units += units < 20 ? 1 : 7) {
      std::string failure = walk_failure(walk_of, units, units * cluster, cluster, false);
      if (!failure.empty())
        return failure;
      // Persistent: as many clusters as fit at once (the H200's 132 SMs, and others), never more
      // than there are units.
      for (int fit : {1, 2, 3, 7, 16, 66, 114, 132}) {
        const int clusters = std::min(fit, units);
        failure = walk_failure(walk_of, units, clusters * cluster, cluster, true);
        if (!failure.empty())
          return failure;
      }
    }
  }
  return "";
}

}  // namespace

TEST_CASE("ch08 exercise 8.2: the blocks' walks take every unit once, a cluster together",
          "[ch08][walk]") {
  COURSE_REQUIRE_EDITION("ch08");
  check_exercise("8.2", "unit_walk()", walks_failure(ch08::unit_walk));
}

// ---------------------------------------------------------------------------------------------
// Exercise 8.3: the multicast of A's tile.
// ---------------------------------------------------------------------------------------------

namespace {

using ShareOf = ch08::Share (*)(unsigned rank, int cluster);

// What goes wrong when the blocks of a cluster of @p cluster copy A's tile with the shares of
// @p share_of, each a box of kTileRows / cluster rows (the host's tensor map of A); "" if nothing.
std::string share_failure(ShareOf share_of, int cluster) {
  const int box = ch08::kTileRows / cluster;
  // landed[b][row]: how many copies of the tile's row reached block b's stage.
  std::vector<std::vector<int>> landed(cluster, std::vector<int>(ch08::kTileRows, 0));
  for (int rank = 0; rank < cluster; ++rank) {
    const ch08::Share share = share_of(static_cast<unsigned>(rank), cluster);
    std::ostringstream who;
    who << "cluster of " << cluster << ", block " << rank << " copies rows " << share.row << ".."
        << share.row + box - 1 << " of the tile";
    if (share.row < 0 || share.row + box > ch08::kTileRows)
      return who.str() + ": outside the tile's " + std::to_string(ch08::kTileRows) + " rows";
    for (int b = 0; b < 16; ++b) {
      if (!(share.blocks >> b & 1))
        continue;
      if (b >= cluster)
        return who.str() + " to block " + std::to_string(b) + ", which the cluster has not";
      for (int row = share.row; row < share.row + box; ++row)
        ++landed[b][row];
    }
  }
  for (int b = 0; b < cluster; ++b) {
    for (int row = 0; row < ch08::kTileRows; ++row) {
      if (landed[b][row] != 1)
        return "cluster of " + std::to_string(cluster) + ": row " + std::to_string(row) +
               " of A's tile reaches block " + std::to_string(b) + " " +
               std::to_string(landed[b][row]) +
               " times (once is right: its full barrier waits for the whole tile)";
    }
  }
  return "";
}

std::string shares_failure(ShareOf share_of) {
  for (int cluster : {1, 2, 4, 8}) {
    const std::string failure = share_failure(share_of, cluster);
    if (!failure.empty())
      return failure;
  }
  return "";
}

}  // namespace

TEST_CASE("ch08 exercise 8.3: the blocks' shares fill every block's tile of A, each row once",
          "[ch08][multicast]") {
  COURSE_REQUIRE_EDITION("ch08");
  check_exercise("8.3", "multicast_share()", shares_failure(ch08::multicast_share));
}

// ---------------------------------------------------------------------------------------------
// Exercise 8.4: the empty barriers of a cluster, modelled.
// ---------------------------------------------------------------------------------------------

namespace {

using ArrivalsOf = unsigned (*)(int cluster);
using ReleasesOf = unsigned (*)(unsigned rank, int cluster);

constexpr int kConsumerWarps = ch08::kConsumers * ch08::kWarpgroupThreads / ch08::kWarpSize;
constexpr unsigned kMostArrivals = (1u << 20) - 1;  // the largest count an mbarrier takes

// One stage of every block of a cluster of @p cluster blocks, used @p uses times: each use, every
// block's producer copies its share of A into the stage of every block (exercise 8.3), so every
// consumer warp of the cluster reads what each producer wrote. The warps finish with the stage in
// an order drawn from @p seed and release it as @p releases_of says (a block alone: on its own
// barrier); a block's empty barrier completes a phase after @p arrivals_of arrivals. A phase must
// complete once per use, and not before the last warp of the cluster is done. "" or what went
// wrong.
std::string empty_failure(ArrivalsOf arrivals_of, ReleasesOf releases_of, int cluster, int uses,
                          unsigned seed) {
  const std::string where = "cluster of " + std::to_string(cluster) + " block(s)";
  const unsigned arrivals = arrivals_of(cluster);
  if (arrivals < 1 || arrivals > kMostArrivals)
    return where + ": an mbarrier counts 1 to " + std::to_string(kMostArrivals) +
           " arrivals, not " + std::to_string(arrivals);
  std::minstd_rand random(seed);
  std::vector<unsigned> pending(cluster, arrivals);
  for (int use = 0; use < uses; ++use) {
    std::vector<int> warps;  // block * kConsumerWarps + warp, in the order they finish
    for (int w = 0; w < cluster * kConsumerWarps; ++w)
      warps.push_back(w);
    std::shuffle(warps.begin(), warps.end(), random);
    std::vector<int> completed(cluster, 0);
    for (std::size_t done = 0; done < warps.size(); ++done) {
      const int block = warps[done] / kConsumerWarps;
      const unsigned targets =
          cluster > 1 ? releases_of(static_cast<unsigned>(block), cluster) : 1u;
      for (int b = 0; b < 32; ++b) {
        if (!(targets >> b & 1u))
          continue;
        if (b >= cluster)
          return where + ": a warp of block " + std::to_string(block) + " arrives on block " +
                 std::to_string(b) + ", which the cluster has not";
        if (--pending[b] > 0)
          continue;
        pending[b] = arrivals;
        ++completed[b];
        const std::size_t still = warps.size() - done - 1;
        if (still > 0)
          return where + ", use " + std::to_string(use) + ": block " + std::to_string(b) +
                 "'s empty barrier completes while " + std::to_string(still) +
                 " consumer warp(s) of the cluster still read the stage its producer refills";
        if (completed[b] > 1)
          return where + ", use " + std::to_string(use) + ": block " + std::to_string(b) +
                 "'s empty barrier completes twice for one use of the stage";
      }
    }
    for (int b = 0; b < cluster; ++b) {
      if (completed[b] != 1)
        return where + ", use " + std::to_string(use) + ": every consumer warp is done, yet " +
               "block " + std::to_string(b) + "'s empty barrier waits for " +
               std::to_string(pending[b]) + " more arrival(s): its producer's wait never ends";
    }
  }
  return "";
}

std::string empties_failure(ArrivalsOf arrivals_of, ReleasesOf releases_of) {
  for (int cluster : {1, 2, 4}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      const std::string failure = empty_failure(arrivals_of, releases_of, cluster, 5, seed);
      if (!failure.empty())
        return failure;
    }
  }
  return "";
}

}  // namespace

TEST_CASE("ch08 exercise 8.4: a stage is free once every consumer warp of the cluster is done",
          "[ch08][empty]") {
  COURSE_REQUIRE_EDITION("ch08");
  check_exercise("8.4", "empty_arrivals() and release_blocks()",
                 empties_failure(ch08::empty_arrivals, ch08::release_blocks));
}

#ifdef COURSE_SOLUTION_EDITION
TEST_CASE("the chapter 8 checks catch a student's likely mistakes", "[ch08]") {
  // 8.1: a slab read as if unswizzled; columns side by side (2g, 2g + 1), which share banks;
  // every row on one column.
  CHECK_FALSE(offset_failure([](int k, int col) { return k * ch08::kSlabCols + col; }).empty());
  CHECK(column_failure([](int g, int odd) { return 2 * g + 16 * odd; }).find("bank conflict") !=
        std::string::npos);
  CHECK(column_failure([](int, int) { return 0; }).find("read by") != std::string::npos);
  CHECK(column_failure([](int g, int) { return 4 * g + 1; }).find("8-byte") != std::string::npos);
  // 8.2: the blocks of a cluster on walks of their own; every block on unit 0; a persistent
  // block that stops after one unit; the first cluster doing all the work.
  CHECK(walks_failure([](int block, int, int, int, bool) {
          return ch08::Walk{block, 1};
        }).find("different units") != std::string::npos);
  CHECK(walks_failure([](int, int, int, int units, bool) {
          return ch08::Walk{0, units};
        }).find("is taken by clusters") != std::string::npos);
  CHECK(walks_failure([](int block, int, int cluster, int units, bool) {
          return ch08::Walk{block / cluster, units};
        }).find("no cluster takes unit") != std::string::npos);
  CHECK(walks_failure([](int block, int, int cluster, int, bool) {
          return ch08::Walk{block < cluster ? 0 : 1 << 30, 1};
        }).find("the clusters take together") != std::string::npos);
  // 8.3: each block's copy to itself alone; every block copying the same rows to all; a box
  // past the tile.
  CHECK(shares_failure([](unsigned rank, int) {
          return ch08::Share{0, static_cast<std::uint16_t>(1u << rank)};
        }).find(" 0 times") != std::string::npos);
  CHECK(shares_failure([](unsigned, int cluster) {
          return ch08::Share{0, static_cast<std::uint16_t>(cluster > 1 ? 3 : 1)};
        }).find(" 2 times") != std::string::npos);
  CHECK(shares_failure([](unsigned, int) {
          return ch08::Share{ch08::kTileRows, 1};
        }).find("outside the tile") != std::string::npos);
  // 8.4: releases to the own block only, its barrier counting its own warps (a refill while the
  // peer still reads) or more arrivals than ever come (a wait that never ends); no arrivals.
  const auto own = [](unsigned rank, int) { return 1u << rank; };
  CHECK(empties_failure([](int) { return static_cast<unsigned>(kConsumerWarps); }, own)
            .find("still read") != std::string::npos);
  CHECK(empties_failure([](int) { return 1000u; }, own).find("never ends") != std::string::npos);
  CHECK(empties_failure([](int) { return 0u; }, own).find("counts 1 to") != std::string::npos);
}
#endif
