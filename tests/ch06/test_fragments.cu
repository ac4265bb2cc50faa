// Chapter 6's fragments on the CPU. ldmatrix and mma.sync spread matrices over the 32 lanes of a
// warp in fixed layouts (PTX ISA, "Matrix fragments for mma.m16n8k8" and "ldmatrix"); these tests
// simulate them lane by lane and check that the solution's accumulator_position(),
// operand_position() and ldmatrix_offset() give every lane the elements the instruction expects,
// and that step 1's 32-bit loads and each ldmatrix's 8 rows fall on 32 different banks. Only host
// code runs; no GPU is needed.
#include "solutions/06_tensor_cores/kernels.cuh"
#include "chapters/06_tensor_cores/launch.cuh"

#include "catch.hpp"
#include "rejection.hpp"

#include <set>
#include <string>
#include <utility>

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
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int reg = 0; reg < 4; ++reg) {
      INFO("lane " << lane << " register " << reg);
      const ch06::Position a = ch06::operand_position(lane, reg, true);
      CHECK(a.row == table_operand(lane, reg, true).row);
      CHECK(a.col == table_operand(lane, reg, true).col);
      if (reg < 2) {
        const ch06::Position b = ch06::operand_position(lane, reg, false);
        CHECK(b.row == table_operand(lane, reg, false).row);
        CHECK(b.col == table_operand(lane, reg, false).col);
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
