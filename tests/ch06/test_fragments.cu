// Chapter 6's fragments on the CPU. ldmatrix and mma.sync spread matrices over the 32 lanes of a
// warp in fixed layouts (PTX ISA, "Matrix fragments for mma.m16n8k8" and "ldmatrix"); these tests
// simulate them lane by lane and check that the solution's accumulator_position(),
// operand_position() and ldmatrix_offset() give every lane the elements the instruction expects,
// and that step 1's 32-bit loads and each ldmatrix's 8 rows fall on 32 different banks. For the
// stage layouts (PaddedRows, step 4's SwizzledRows) they follow every chunk from copy_stage() to
// the ldmatrix lanes of every k8 step that read it. Only host code runs; no GPU is needed.
#include "solutions/06_tensor_cores/kernels.cuh"
#include "chapters/06_tensor_cores/launch.cuh"

#include "catch.hpp"
#include "rejection.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kLanes = ch06::kWarpSize;
constexpr int kBanks = 32;
constexpr int kFloatsPerLdmatrixRow = 4;  // one row of an 8 x 4 matrix of 32-bit values

// What ldmatrix.x4 puts in register @p reg of lane @p lane, read as 32-bit values: float
// lane % 4 (the 16-bit columns 2 (lane % 4) and 2 (lane % 4) + 1) of row lane / 4 of matrix reg,
// whose row r starts where lane 8 * reg + r points. Returns the float offset in the
// stage, given each lane's offset (ldmatrix_offset) from the fragment's corner.
int ldmatrix_element(bool for_a, int lane, int reg) {
  const int row_lane = 8 * reg + lane / 4;
  return ch06::ldmatrix_offset(row_lane, for_a) + lane % 4;
}

// The fragment table as the PTX ISA gives it, for lane (g, t): A register r is A[row][k], B
// register r is B[k][n] = B^T[n][k]; both as (row of the stage tile, k).
ch06::Position table_operand(int lane, int reg, bool for_a) {
  const int g = lane / 4;
  const int t = lane % 4;
  const ch06::Position a[4] = {{g, t}, {g + 8, t}, {g, t + 4}, {g + 8, t + 4}};
  const ch06::Position b[2] = {{g, t}, {g, t + 4}};
  return for_a ? a[reg] : b[reg];
}

constexpr int kBankGroups = 8;  // 16-byte groups of 4 banks: one row of ldmatrix reads one

// A stage as copy_stage() fills it: for each 16-byte place (float offset / kQuad), the row of the
// stage (A's rows 0..127, then B^T's rows 128..383) and the k of the chunk stored there, -1 if
// none.
struct CopiedStage {
  std::vector<int> row;
  std::vector<int> k;
  int misplaced = 0;  // chunks outside their row (or unaligned), or on a place already taken
};

// Records where copy_stage<Layout>() sends every chunk: thread t copies chunks q = t + i * threads,
// row q / kQuadsPerRow, chunk q % kQuadsPerRow, of the A tile and then of the B^T tile.
template <class Layout>
CopiedStage copy_stage_places() {
  CopiedStage stage;
  stage.row.assign(Layout::kStageFloats / ch06::kQuad, -1);
  stage.k.assign(stage.row.size(), -1);
  const auto copy = [&](int first_row, int rows) {  // the A tile, then the B^T tile after it
    const int tile_offset = first_row * Layout::kRowFloats;
    for (int thread = 0; thread < ch06::kProductThreads; ++thread) {
      for (int i = 0; i < rows * ch06::kQuadsPerRow / ch06::kProductThreads; ++i) {
        const int q = thread + i * ch06::kProductThreads;
        const int row = q / ch06::kQuadsPerRow;
        const int chunk = q % ch06::kQuadsPerRow;
        const int offset = tile_offset + Layout::chunk_offset(row, chunk);
        const int stage_row = first_row + row;
        if (offset % ch06::kQuad != 0 || offset / Layout::kRowFloats != stage_row ||
            stage.row[offset / ch06::kQuad] != -1) {
          ++stage.misplaced;
          continue;
        }
        stage.row[offset / ch06::kQuad] = stage_row;
        stage.k[offset / ch06::kQuad] = chunk * ch06::kQuad;
      }
    }
  };
  copy(0, ch06::kTileRows);
  copy(ch06::kTileRows, ch06::kTileCols);
  return stage;
}

// One row address of an ldmatrix.x4 in product_kernel<LdmatrixLoader<Layout>>: warp @p warp, k8
// step @p k8, instruction tile @p tile (A: 0..3; B^T: 0, 2, 4, 6, two tiles per instruction),
// lane @p lane. Returns the float offset from the stage's start, as the kernel computes it.
template <class Layout>
int ldmatrix_row_address(int warp, int k8, bool for_a, int tile, int lane) {
  const int warp_row = (warp / ch06::kWarpsAcross) * ch06::kWarpTile;
  const int warp_col = (warp % ch06::kWarpsAcross) * ch06::kWarpTile;
  return for_a ? warp_row * Layout::kRowFloats + tile * ch06::kMmaM * Layout::kRowFloats +
                     Layout::lane_offset(lane, true, k8)
               : (ch06::kTileRows + warp_col) * Layout::kRowFloats +
                     tile * ch06::kMmaN * Layout::kRowFloats + Layout::lane_offset(lane, false, k8);
}

// Calls @p visit(warp, k8, for_a, tile) for every ldmatrix.x4 of a batch: every warp, k8 step, A
// instruction tile (0..3) and pair of B^T instruction tiles (first tile 0, 2, 4, 6).
template <class Visit>
void every_ldmatrix(Visit visit) {
  for (int warp = 0; warp < ch06::kWarpsDown * ch06::kWarpsAcross; ++warp) {
    for (int k8 = 0; k8 < ch06::kBatch; k8 += ch06::kMmaK) {
      for (int tile = 0; tile < ch06::kMmaTilesDown; ++tile)
        visit(warp, k8, true, tile);
      for (int tile = 0; tile < ch06::kMmaTilesAcross; tile += 2)
        visit(warp, k8, false, tile);
    }
  }
}

// Counts the ldmatrix rows (every ldmatrix.x4 of a batch, every lane) that do not point at the
// chunk copy_stage() stored for them. By the fragment table, the row that lane 8j + r points at
// is received as register j by lanes 4r .. 4r + 3 (g = r, t = 0..3), so its first float must be
// element (g, 0) of fragment register j: for A a[j] of the tile, for B b[j % 2] of tile j / 2.
template <class Layout>
int misread_rows(const CopiedStage& stage) {
  int misread = 0;
  every_ldmatrix([&](int warp, int k8, bool for_a, int tile) {
    const int warp_row = (warp / ch06::kWarpsAcross) * ch06::kWarpTile;
    const int warp_col = (warp % ch06::kWarpsAcross) * ch06::kWarpTile;
    for (int lane = 0; lane < kLanes; ++lane) {
      const int j = lane / 8;
      const int g = lane % 8;
      const ch06::Position want =
          for_a ? table_operand(4 * g, j, true) : table_operand(4 * g, j % 2, false);
      const int want_row =
          for_a ? warp_row + tile * ch06::kMmaM + want.row
                : ch06::kTileRows + warp_col + (tile + j / 2) * ch06::kMmaN + want.row;
      const int address = ldmatrix_row_address<Layout>(warp, k8, for_a, tile, lane);
      const int place = address / ch06::kQuad;
      const bool inside =
          address >= 0 && address % ch06::kQuad == 0 && place < static_cast<int>(stage.row.size());
      if (!inside || stage.row[place] != want_row || stage.k[place] != k8 + want.col)
        ++misread;
    }
  });
  return misread;
}

// Counts the 8-lane phases of ldmatrix (8 rows of 16 bytes read together) whose rows do not fall
// on 8 different 16-byte bank groups: every warp, k8 step, instruction tile and matrix.
template <class Layout>
int conflicting_phases() {
  int conflicting = 0;
  every_ldmatrix([&](int warp, int k8, bool for_a, int tile) {
    for (int matrix = 0; matrix < 4; ++matrix) {
      std::set<int> groups;
      for (int r = 0; r < 8; ++r) {
        const int address = ldmatrix_row_address<Layout>(warp, k8, for_a, tile, 8 * matrix + r);
        groups.insert((address / ch06::kQuad) % kBankGroups);
      }
      if (groups.size() != static_cast<std::size_t>(kBankGroups))
        ++conflicting;
    }
  });
  return conflicting;
}

// Layouts that the checks above must reject. Rows of 32 floats with the chunks in order: read
// where they were written, but the same chunk of 8 rows shares 4 banks.
struct UnpaddedRows {
  static constexpr int kRowFloats = ch06::kBatch;
  static constexpr int kStageFloats = ch06::SwizzledRows::kStageFloats;
  static constexpr int chunk_offset(int row, int chunk) {
    return row * ch06::kBatch + chunk * ch06::kQuad;
  }
  static constexpr int lane_offset(int lane, bool for_a, int k8) {
    const int padded = ch06::ldmatrix_offset(lane, for_a);
    return chunk_offset(padded / ch06::kPitch, (padded % ch06::kPitch + k8) / ch06::kQuad);
  }
};
// Written swizzled, read as if not.
struct ReadUnswizzled : ch06::SwizzledRows {
  static constexpr int lane_offset(int lane, bool for_a, int k8) {
    return UnpaddedRows::lane_offset(lane, for_a, k8);
  }
};
// Every chunk of a row written to the row's first 16 bytes.
struct OneChunkPerRow : UnpaddedRows {
  static constexpr int chunk_offset(int row, int) { return row * ch06::kBatch; }
};

}  // namespace

TEST_CASE("every element of a 16 x 8 accumulator tile belongs to exactly one lane", "[ch06]") {
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int e = 0; e < 4; ++e) {
      const ch06::Position p = ch06::accumulator_position(lane, e);
      INFO("lane " << lane << " element " << e);
      CHECK(p.row >= 0);
      CHECK(p.row < ch06::kMmaM);
      CHECK(p.col >= 0);
      CHECK(p.col < ch06::kMmaN);
      CHECK(seen.insert({p.row, p.col}).second);
    }
  }
  CHECK(seen.size() == static_cast<std::size_t>(ch06::kMmaM * ch06::kMmaN));
  // The layout of the PTX ISA: lane (g, t) = (l / 4, l % 4) holds C[g][2t], C[g][2t + 1],
  // C[g + 8][2t], C[g + 8][2t + 1].
  CHECK(ch06::accumulator_position(5, 0).row == 1);
  CHECK(ch06::accumulator_position(5, 0).col == 2);
  CHECK(ch06::accumulator_position(5, 3).row == 9);
  CHECK(ch06::accumulator_position(5, 3).col == 3);
}

TEST_CASE("step 1 loads each operand register from the element the table names", "[ch06]") {
  for (bool for_a : {true, false}) {
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int reg = 0; reg < (for_a ? 4 : 2); ++reg) {
        INFO((for_a ? "A" : "B") << " lane " << lane << " register " << reg);
        const ch06::Position p = ch06::operand_position(lane, reg, for_a);
        CHECK(p.row == table_operand(lane, reg, for_a).row);
        CHECK(p.col == table_operand(lane, reg, for_a).col);
      }
    }
  }
}

TEST_CASE("step 1's 32-bit loads of one register fall on 32 different banks", "[ch06]") {
  // The warp loads register r of all 32 lanes with one instruction: 32 floats of one tile.
  for (bool for_a : {true, false}) {
    for (int reg = 0; reg < (for_a ? 4 : 2); ++reg) {
      std::set<int> banks;
      for (int lane = 0; lane < kLanes; ++lane) {
        const ch06::Position p = ch06::operand_position(lane, reg, for_a);
        banks.insert((p.row * ch06::kPitch + p.col) % kBanks);
      }
      INFO((for_a ? "A" : "B") << " register " << reg);
      CHECK(banks.size() == static_cast<std::size_t>(kBanks));
    }
  }
}

TEST_CASE("ldmatrix gives each lane its A fragment: A[g][t], A[g+8][t], A[g][t+4], A[g+8][t+4]",
          "[ch06]") {
  for (int lane = 0; lane < kLanes; ++lane) {
    const int g = lane / 4;
    const int t = lane % 4;
    const int expected[4] = {g * ch06::kPitch + t, (g + 8) * ch06::kPitch + t,
                             g * ch06::kPitch + t + 4, (g + 8) * ch06::kPitch + t + 4};
    for (int reg = 0; reg < 4; ++reg) {
      INFO("lane " << lane << " register " << reg);
      CHECK(ldmatrix_element(true, lane, reg) == expected[reg]);
    }
  }
}

TEST_CASE("ldmatrix gives each lane the B fragments of two tiles: B[t][g], B[t+4][g]", "[ch06]") {
  // B is stored transposed (row n, column k): B[k][n] is at n * kPitch + k.
  for (int lane = 0; lane < kLanes; ++lane) {
    const int g = lane / 4;
    const int t = lane % 4;
    const int expected[4] = {g * ch06::kPitch + t, g * ch06::kPitch + t + 4,
                             (8 + g) * ch06::kPitch + t, (8 + g) * ch06::kPitch + t + 4};
    for (int reg = 0; reg < 4; ++reg) {
      INFO("lane " << lane << " register " << reg);
      CHECK(ldmatrix_element(false, lane, reg) == expected[reg]);
    }
  }
}

TEST_CASE("the 8 rows of each ldmatrix read fall on 32 different banks", "[ch06]") {
  for (bool for_a : {true, false}) {
    for (int matrix = 0; matrix < 4; ++matrix) {
      std::set<int> banks;
      for (int r = 0; r < 8; ++r) {
        const int start = ch06::ldmatrix_offset(8 * matrix + r, for_a);
        CHECK(start % kFloatsPerLdmatrixRow == 0);  // 16-byte aligned rows
        for (int word = 0; word < kFloatsPerLdmatrixRow; ++word)
          banks.insert((start + word) % kBanks);
      }
      INFO((for_a ? "A" : "B") << " matrix " << matrix);
      CHECK(banks.size() == static_cast<std::size_t>(kBanks));
    }
  }
}

TEST_CASE("step 4's stages are 12.5% smaller than the padded ones", "[ch06]") {
  CHECK(ch06::product_shared_bytes<ch06::PaddedRows>(3) == 165888);
  CHECK(ch06::product_shared_bytes<ch06::SwizzledRows>(3) == 147456);
  CHECK(ch06::SwizzledRows::kRowFloats * sizeof(float) == 128);  // a row is one 128-byte line
}

TEST_CASE("copy_stage puts every chunk of a stage in a place of its own, inside its row",
          "[ch06]") {
  const CopiedStage padded = copy_stage_places<ch06::PaddedRows>();
  const CopiedStage swizzled = copy_stage_places<ch06::SwizzledRows>();
  CHECK(padded.misplaced == 0);
  CHECK(swizzled.misplaced == 0);
  // Every place of the swizzled stage is used: no padding.
  CHECK(std::count(swizzled.row.begin(), swizzled.row.end(), -1) == 0);
  // A row of the swizzled layout holds its own 8 chunks, in some order.
  for (int row = 0; row < 8; ++row) {
    std::set<int> chunks;
    for (int chunk = 0; chunk < ch06::kQuadsPerRow; ++chunk)
      chunks.insert(ch06::SwizzledRows::chunk_offset(row, chunk) - row * ch06::kBatch);
    INFO("row " << row);
    CHECK(chunks.size() == static_cast<std::size_t>(ch06::kQuadsPerRow));
    CHECK(*chunks.begin() == 0);
    CHECK(*chunks.rbegin() == ch06::kBatch - ch06::kQuad);
  }
}

TEST_CASE("every ldmatrix lane of every k8 step reads the chunk the copies stored for it",
          "[ch06]") {
  CHECK(misread_rows<ch06::PaddedRows>(copy_stage_places<ch06::PaddedRows>()) == 0);
  CHECK(misread_rows<ch06::SwizzledRows>(copy_stage_places<ch06::SwizzledRows>()) == 0);
}

TEST_CASE("each 8-row phase of an ldmatrix falls on 8 different 16-byte bank groups", "[ch06]") {
  CHECK(conflicting_phases<ch06::PaddedRows>() == 0);
  CHECK(conflicting_phases<ch06::SwizzledRows>() == 0);
}

TEST_CASE("the layout checks reject a conflicting, a misread and an overlapping layout", "[ch06]") {
  // Phases: 8 warps x 4 k8 steps x (4 A + 4 B^T instructions) x 4 matrices.
  CHECK(misread_rows<UnpaddedRows>(copy_stage_places<UnpaddedRows>()) == 0);
  CHECK(conflicting_phases<UnpaddedRows>() == 8 * 4 * 8 * 4);
  CHECK(copy_stage_places<ReadUnswizzled>().misplaced == 0);
  CHECK(misread_rows<ReadUnswizzled>(copy_stage_places<ReadUnswizzled>()) > 0);
  CHECK(copy_stage_places<OneChunkPerRow>().misplaced > 0);
  CHECK(misread_rows<OneChunkPerRow>(copy_stage_places<OneChunkPerRow>()) > 0);
}

TEST_CASE("the tensor-core launcher refuses what it cannot compute", "[ch06]") {
  using course::testing::rejection;
  float dummy = 0;
  float* p = &dummy;  // never dereferenced: every call below is refused before any launch
  CHECK(rejection([&] { ch06::matmul(p, p, p, 0, 1, 1, nullptr); }).find("m must be") !=
        std::string::npos);
  CHECK(rejection([&] { ch06::matmul(p, p, p, 1, -3, 1, nullptr); }).find("n must be") !=
        std::string::npos);
  CHECK(rejection([&] { ch06::matmul(nullptr, p, p, 1, 1, 1, nullptr); }).find("null") !=
        std::string::npos);
  CHECK(rejection([&] { ch06::matmul(p, p, p, 0x7fffffff, 1, 1, nullptr); }).find("too large") !=
        std::string::npos);
  CHECK(rejection([&] { ch06::matmul(p, p, p, 1, 1, 0x7fffffff, nullptr); }).find("too large") !=
        std::string::npos);
}
