// Chapter 6 on the CPU: the fragment layouts that mma.sync.m16n8k8 and ldmatrix expect, the stage
// layouts, and the schedule of the pipeline, checked against a kernels.cuh without a GPU. Built
// twice: against the solution (labels cpu, solutions) and against your kernels (labels cpu, ch06;
// run on request: COURSE_CHECK=ch06 ctest --test-dir build -L cpu).
//
// The references are what the PTX ISA documents, simulated lane by lane: the fragment table of
// mma.m16n8k8 (.tf32), which row and float of which matrix ldmatrix.x4 delivers to each lane and
// register, the banks of a shared-memory phase, and what cp.async.commit_group and wait_group
// promise. Your functions are run and their results compared with those simulations; nothing here
// says what a function should compute other than through them.
#include <kernels.cuh>
#include "chapters/06_tensor_cores/launch.cuh"

#include "catch.hpp"
#include "chapter_request.hpp"
#include "rejection.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kLanes = ch06::kWarpSize;
constexpr int kBankGroups = 8;  // 16-byte groups of 4 banks: a 128-byte line of shared memory

using ch06::Position;

bool operator==(Position x, Position y) {
  return x.row == y.row && x.col == y.col;
}

std::string shown(Position p) {
  return "(" + std::to_string(p.row) + ", " + std::to_string(p.col) + ")";
}

// ---- The fragment table of the PTX ISA ("Matrix fragments for mma.m16n8k8", .tf32) ----------
// Lane l is (g, t) = (l / 4, l % 4). Each register's element is given as its offset from (g, t)
// for A (row, k) and B^T (column of B, k), and from (g, 2t) for C (row, column).
constexpr int kIsaA[4][2] = {{0, 0}, {8, 0}, {0, 4}, {8, 4}};
constexpr int kIsaB[2][2] = {{0, 0}, {0, 4}};
constexpr int kIsaC[4][2] = {{0, 0}, {0, 1}, {8, 0}, {8, 1}};

Position isa_operand(int lane, int reg, bool for_a) {
  const int* offset = for_a ? kIsaA[reg] : kIsaB[reg];
  return {lane / 4 + offset[0], lane % 4 + offset[1]};
}

Position isa_accumulator(int lane, int e) {
  return {lane / 4 + kIsaC[e][0], 2 * (lane % 4) + kIsaC[e][1]};
}

// The differences between @p position(lane, element) and the ISA's table over every lane and
// element: how many, and the first one in words.
struct Mismatches {
  int count = 0;
  std::string first;
};

template <class Yours, class Isa>
Mismatches compare_table(int elements, Yours yours, Isa isa, const char* what) {
  Mismatches found;
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int e = 0; e < elements; ++e) {
      const Position got = yours(lane, e);
      const Position want = isa(lane, e);
      if (got == want)
        continue;
      if (found.count++ == 0)
        found.first = std::string(what) + ", lane " + std::to_string(lane) + ", register " +
                      std::to_string(e) + ": yours is " + shown(got) + ", the ISA's table says " +
                      shown(want);
    }
  }
  return found;
}

template <class F>
Mismatches accumulator_mismatches(F position) {
  return compare_table(4, position, isa_accumulator, "C (row, column)");
}

template <class F>
Mismatches operand_mismatches(F position) {
  Mismatches a = compare_table(
      4, [&](int lane, int reg) { return position(lane, reg, true); },
      [](int lane, int reg) { return isa_operand(lane, reg, true); }, "A (row, k)");
  const Mismatches b = compare_table(
      2, [&](int lane, int reg) { return position(lane, reg, false); },
      [](int lane, int reg) { return isa_operand(lane, reg, false); }, "B^T (column of B, k)");
  if (a.count == 0)
    a.first = b.first;
  a.count += b.count;
  return a;
}

// ---- ldmatrix.x4 (PTX ISA, "ldmatrix"), read as 32-bit values --------------------------------
// Lane 8j + r gives the address of row r of matrix j (8 rows of 16 bytes: 4 floats); register j
// of lane l receives float l % 4 of row l / 4 of matrix j.
template <class RowAddress>
int ldmatrix_delivers(RowAddress row_address, int lane, int reg) {
  return row_address(8 * reg + lane / 4) + lane % 4;
}

// What one ldmatrix.x4 should deliver, as a (row, k) of the tiles it reads: for A, register j is
// fragment register a_j of the instruction tile; for B^T, registers 0 and 1 are b0 and b1 of the
// first of two tiles side by side and registers 2 and 3 those of the second, 8 rows further
// (LdmatrixLoader::load() hands them out so).
Position wanted_from_ldmatrix(int lane, int reg, bool for_a) {
  if (for_a)
    return isa_operand(lane, reg, true);
  const Position p = isa_operand(lane, reg % 2, false);
  return {p.row + (reg / 2) * ch06::kMmaN, p.col};
}

// Compares what ldmatrix delivers from rows of kPitch floats, each lane pointing where
// @p offset(lane, for_a) says, with the fragments; also requires 16-byte aligned rows.
template <class F>
Mismatches ldmatrix_mismatches(F offset) {
  Mismatches found;
  for (bool for_a : {true, false}) {
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int reg = 0; reg < 4; ++reg) {
        const int address = ldmatrix_delivers([&](int l) { return offset(l, for_a); }, lane, reg);
        const int row_start = offset(8 * reg + lane / 4, for_a);
        const Position got = {address / ch06::kPitch, address % ch06::kPitch};
        const Position want = wanted_from_ldmatrix(lane, reg, for_a);
        if (got == want && row_start % ch06::kQuad == 0 && address >= 0)
          continue;
        if (found.count++ == 0)
          found.first = std::string(for_a ? "A" : "B^T") + ", lane " + std::to_string(lane) +
                        ", register " + std::to_string(reg) + ": ldmatrix delivers (row, k) " +
                        shown(got) +
                        (row_start % ch06::kQuad != 0 ? " from an unaligned row" : "") +
                        ", the fragment needs " + shown(want);
      }
    }
  }
  return found;
}

// The 8 row addresses of each matrix of an ldmatrix are read together, one 16-byte row each; they
// are served in one pass when they fall on 8 different bank groups. Counts the matrices that do
// not, given each lane's row address (in floats).
template <class RowAddress>
int conflicting_matrices(RowAddress row_address) {
  int conflicting = 0;
  for (int matrix = 0; matrix < 4; ++matrix) {
    std::set<int> groups;
    for (int r = 0; r < 8; ++r)
      groups.insert((row_address(8 * matrix + r) / ch06::kQuad) % kBankGroups);
    if (groups.size() != static_cast<std::size_t>(kBankGroups))
      ++conflicting;
  }
  return conflicting;
}

// ---- A stage as copy_stage() fills it, and every ldmatrix of a batch reading it ---------------
// For each 16-byte place (float offset / kQuad), the row of the stage (A's rows 0..127, then
// B^T's rows 128..383) and the k of the chunk stored there, -1 if none.
struct CopiedStage {
  std::vector<int> row;
  std::vector<int> k;
  std::string misplaced;  // the first chunk outside its row, unaligned or on a place taken
};

// Follows copy_stage<Layout>(): thread t copies chunks q = t + i * threads, row q / kQuadsPerRow,
// chunk q % kQuadsPerRow, of the A tile and then of the B^T tile, to Layout::chunk_offset().
template <class Layout>
CopiedStage copy_stage_places() {
  CopiedStage stage;
  stage.row.assign(Layout::kStageFloats / ch06::kQuad, -1);
  stage.k.assign(stage.row.size(), -1);
  const auto copy = [&](int first_row, int rows) {
    const int tile_offset = first_row * Layout::kRowFloats;
    for (int q = 0; q < rows * ch06::kQuadsPerRow; ++q) {
      const int row = q / ch06::kQuadsPerRow;
      const int chunk = q % ch06::kQuadsPerRow;
      const int offset = tile_offset + Layout::chunk_offset(row, chunk);
      const int stage_row = first_row + row;
      const bool own_row = offset >= stage_row * Layout::kRowFloats &&
                           offset + ch06::kQuad <= (stage_row + 1) * Layout::kRowFloats;
      if (offset % ch06::kQuad != 0 || !own_row || stage.row[offset / ch06::kQuad] != -1) {
        if (stage.misplaced.empty())
          stage.misplaced = "row " + std::to_string(row) + " chunk " + std::to_string(chunk) +
                            " goes to float offset " + std::to_string(offset - tile_offset) +
                            (offset % ch06::kQuad != 0 ? ", not 16-byte aligned"
                             : !own_row                ? ", outside its own row"
                                                       : ", a place already taken");
        continue;
      }
      stage.row[offset / ch06::kQuad] = stage_row;
      stage.k[offset / ch06::kQuad] = chunk * ch06::kQuad;
    }
  };
  copy(0, ch06::kTileRows);
  copy(ch06::kTileRows, ch06::kTileCols);
  return stage;
}

// Calls @p visit(warp, k8, for_a, first_tile, row_address) for every ldmatrix.x4 of a batch in
// product_kernel<LdmatrixLoader<Layout>>: every warp, k8 step, A instruction tile (0..3) and pair
// of B^T tiles (first tile 0, 2, 4, 6). row_address(lane) is the float offset from the stage's
// start that the lane gives, as LdmatrixLoader::load() computes it.
template <class Layout, class Visit>
void every_ldmatrix(Visit visit) {
  for (int warp = 0; warp < ch06::kWarpsDown * ch06::kWarpsAcross; ++warp) {
    const int a_rows = (warp / ch06::kWarpsAcross) * ch06::kWarpTile;
    const int b_rows = ch06::kTileRows + (warp % ch06::kWarpsAcross) * ch06::kWarpTile;
    for (int k8 = 0; k8 < ch06::kBatch; k8 += ch06::kMmaK) {
      for (int tile = 0; tile < ch06::kMmaTilesDown; ++tile) {
        const int base = (a_rows + tile * ch06::kMmaM) * Layout::kRowFloats;
        visit(warp, k8, true, tile,
              [&](int lane) { return base + Layout::lane_offset(lane, true, k8); });
      }
      for (int tile = 0; tile < ch06::kMmaTilesAcross; tile += 2) {
        const int base = (b_rows + tile * ch06::kMmaN) * Layout::kRowFloats;
        visit(warp, k8, false, tile,
              [&](int lane) { return base + Layout::lane_offset(lane, false, k8); });
      }
    }
  }
}

// What every lane's registers hold after every ldmatrix of a batch from a stage filled by
// copy_stage<Layout>(), against the fragments of the tiles at that k8: the count of wrong
// registers, and the first in words.
template <class Layout>
Mismatches misread_registers(const CopiedStage& stage) {
  Mismatches found;
  every_ldmatrix<Layout>([&](int warp, int k8, bool for_a, int tile, auto row_address) {
    const int first_row = for_a ? (warp / ch06::kWarpsAcross) * ch06::kWarpTile + tile * ch06::kMmaM
                                : ch06::kTileRows + (warp % ch06::kWarpsAcross) * ch06::kWarpTile +
                                      tile * ch06::kMmaN;
    for (int lane = 0; lane < kLanes; ++lane) {
      for (int reg = 0; reg < 4; ++reg) {
        const int address = ldmatrix_delivers(row_address, lane, reg);
        const int place = address / ch06::kQuad;
        const Position want = wanted_from_ldmatrix(lane, reg, for_a);
        const bool inside = address >= 0 && place < static_cast<int>(stage.row.size());
        const Position got = inside ? Position{stage.row[place] - first_row,
                                               stage.k[place] + address % ch06::kQuad - k8}
                                    : Position{-1, -1};
        if (inside && stage.row[place] >= 0 && got == Position{want.row, want.col})
          continue;
        if (found.count++ == 0)
          found.first = "warp " + std::to_string(warp) + ", k8 " + std::to_string(k8) + ", " +
                        (for_a ? "A tile " : "B^T tiles from ") + std::to_string(tile) + ", lane " +
                        std::to_string(lane) + ", register " + std::to_string(reg) +
                        ": receives (row, k) " + shown(got) + " of the tile, the fragment needs " +
                        shown(want);
      }
    }
  });
  return found;
}

// Counts the ldmatrix matrices of a batch (every warp, k8 and tile: 8 x 4 x 8 x 4) whose 8 rows
// share a bank group.
template <class Layout>
int conflicting_phases() {
  int conflicting = 0;
  every_ldmatrix<Layout>([&](int, int, bool, int, auto row_address) {
    conflicting += conflicting_matrices(row_address);
  });
  return conflicting;
}

// ---- The pipeline (PTX ISA, "cp.async") ---------------------------------------------------------
// A model of the copies of one thread and the barriers of the block, run through a pipeline's
// five operations (kernels.cuh): a copy joins the open group; commit() closes it, empty or not;
// wait(n) completes every committed group but the n newest; a completed copy is visible to every
// warp after the next barrier. Every thread runs the same schedule, so one stands for all. Each
// copy lands as late as the ISA allows (at the wait that forces it), and a stage counts as read
// by some warp from a multiply until the next barrier. It records the first broken promise.
class PipelineModel {
 public:
  PipelineModel(int stages, int batches) : stages_(stages), batches_(batches), held_(stages) {}

  void copy(int stage, int batch) {
    ++call_;
    if (!valid_stage(stage))
      return;
    if (batch < 0 || batch >= batches_)
      return fail("copies batch " + std::to_string(batch) + ", which does not exist (batches 0.." +
                  std::to_string(batches_ - 1) + "): it would read past the operands");
    Stage& s = held_[stage];
    if (s.read_since_barrier)
      return fail("starts copies into stage " + std::to_string(stage) +
                  " while a warp may still be multiplying it: no barrier since its last multiply");
    if (s.in_flight >= 0)
      return fail("starts copies into stage " + std::to_string(stage) + " while batch " +
                  std::to_string(s.in_flight) + "'s copies into it may still be in flight");
    const int unread = s.visible >= 0 ? s.visible : s.landed;
    if (unread >= 0 && unread >= multiplied_)
      return fail("overwrites batch " + std::to_string(unread) + " in stage " +
                  std::to_string(stage) + " before it was multiplied");
    s = Stage{};
    s.in_flight = batch;
    open_.push_back(stage);
  }

  void commit() {
    ++call_;
    groups_.push_back(open_);
    open_.clear();
  }

  void wait(int pending) {
    ++call_;
    while (static_cast<int>(groups_.size()) > std::max(pending, 0)) {
      for (int stage : groups_.front()) {
        held_[stage].landed = held_[stage].in_flight;
        held_[stage].in_flight = -1;
      }
      groups_.erase(groups_.begin());
    }
  }

  void sync() {
    ++call_;
    for (Stage& s : held_) {
      if (s.landed >= 0)
        s.visible = s.landed;
      s.landed = -1;
      s.read_since_barrier = false;
    }
  }

  void multiply(int stage) {
    ++call_;
    if (!valid_stage(stage))
      return;
    const Stage& s = held_[stage];
    const std::string where = "multiplies stage " + std::to_string(stage);
    if (s.in_flight >= 0)
      return fail(where + " while batch " + std::to_string(s.in_flight) +
                  "'s copies into it may not have landed: no wait has completed them");
    if (s.landed >= 0)
      return fail(where + " before a barrier made batch " + std::to_string(s.landed) +
                  "'s copies, landed for each thread, visible to every warp");
    if (s.visible < 0)
      return fail(where + ", which holds no batch");
    if (s.visible != multiplied_)
      return fail(where + ", which holds batch " + std::to_string(s.visible) + ", where batch " +
                  std::to_string(multiplied_) + " is next");
    int in_flight = 0;
    for (const Stage& other : held_)
      in_flight += other.in_flight >= 0;
    const int can = std::min(stages_ - 1, batches_ - 1 - multiplied_);
    if (in_flight < can)
      return fail("multiplies batch " + std::to_string(multiplied_) + " with " +
                  std::to_string(in_flight) + " later batch(es) in flight; " +
                  std::to_string(stages_) + " stages can keep " + std::to_string(can) +
                  " on their way meanwhile");
    held_[stage].read_since_barrier = true;
    ++multiplied_;
  }

  // The first problem, or an empty string when every batch was multiplied once, in order, from
  // data that had surely landed, with the copies as far ahead as the stages allow.
  std::string verdict() const {
    if (!problem_.empty())
      return problem_;
    if (multiplied_ != batches_)
      return "multiplies " + std::to_string(multiplied_) + " of the " + std::to_string(batches_) +
             " batches";
    return {};
  }

 private:
  struct Stage {
    int in_flight = -1;  // the batch whose copies into the stage are issued, not completed
    int landed = -1;     // completed by this thread's wait, no barrier since
    int visible = -1;    // visible to every warp
    bool read_since_barrier = false;
  };

  bool valid_stage(int stage) {
    if (stage >= 0 && stage < stages_)
      return true;
    fail("names stage " + std::to_string(stage) + ", which does not exist (stages 0.." +
         std::to_string(stages_ - 1) + ")");
    return false;
  }

  void fail(const std::string& what) {
    if (problem_.empty())
      problem_ = "operation " + std::to_string(call_) + ": " + what;
  }

  int stages_;
  int batches_;
  std::vector<Stage> held_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> open_;
  int multiplied_ = 0;
  int call_ = 0;
  std::string problem_;
};

// Runs @p loop(model, batches) for 1 to 9 batches with @p stages stages; the first problem found,
// with the number of batches, or an empty string.
template <class Loop>
std::string schedule_problem(int stages, Loop loop) {
  for (int batches = 1; batches <= 9; ++batches) {
    PipelineModel model(stages, batches);
    loop(model, batches);
    const std::string problem = model.verdict();
    if (!problem.empty())
      return std::to_string(stages) + " stages, " + std::to_string(batches) +
             " batches: " + problem;
  }
  return {};
}

}  // namespace

TEST_CASE("6.1: every accumulator element is where the ISA's fragment table puts it", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const Mismatches found = accumulator_mismatches(ch06::accumulator_position);
  INFO(found.first << " (scripts/hint.sh 6.1)");
  CHECK(found.count == 0);
}

TEST_CASE("6.2: every operand register holds the element the ISA's fragment table names",
          "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const Mismatches found = operand_mismatches(ch06::operand_position);
  INFO(found.first << " (scripts/hint.sh 6.2)");
  CHECK(found.count == 0);
}

TEST_CASE("6.2: step 1's 32-bit loads of one register fall on 32 different banks", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  // The warp loads register r of all 32 lanes with one instruction, from rows of kPitch floats.
  for (bool for_a : {true, false}) {
    for (int reg = 0; reg < (for_a ? 4 : 2); ++reg) {
      std::set<int> banks;
      for (int lane = 0; lane < kLanes; ++lane) {
        const Position p = ch06::operand_position(lane, reg, for_a);
        banks.insert((p.row * ch06::kPitch + p.col) % 32);
      }
      INFO((for_a ? "A" : "B^T") << " register " << reg << " (scripts/hint.sh 6.2)");
      CHECK(banks.size() == 32u);
    }
  }
}

TEST_CASE("6.5: ldmatrix delivers every lane its fragments, from 16-byte aligned rows", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const Mismatches found = ldmatrix_mismatches(ch06::ldmatrix_offset);
  INFO(found.first << " (scripts/hint.sh 6.5)");
  CHECK(found.count == 0);
}

TEST_CASE("6.5: the 8 rows of each ldmatrix matrix fall on 8 different bank groups", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  for (bool for_a : {true, false}) {
    INFO((for_a ? "A" : "B^T") << " (scripts/hint.sh 6.5)");
    CHECK(conflicting_matrices([&](int lane) { return ch06::ldmatrix_offset(lane, for_a); }) == 0);
  }
}

TEST_CASE("6.5: steps 2 and 3 read, at every k8 step, the chunks that copy_stage stored",
          "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const CopiedStage stage = copy_stage_places<ch06::PaddedRows>();
  CHECK(stage.misplaced.empty());
  const Mismatches found = misread_registers<ch06::PaddedRows>(stage);
  INFO(found.first << " (scripts/hint.sh 6.5)");
  CHECK(found.count == 0);
  CHECK(conflicting_phases<ch06::PaddedRows>() == 0);
}

TEST_CASE(
    "6.6: the pipeline multiplies every batch once, from copies that have landed, with "
    "Stages - 1 batches in flight",
    "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  for (const std::string& problem :
       {schedule_problem(
            3, [](PipelineModel&model, int batches) { ch06::deep_pipeline<3>(model, batches); }),
        schedule_problem(
            4, [](PipelineModel&model, int batches) { ch06::deep_pipeline<4>(model, batches); })}) {
    INFO(problem << " (scripts/hint.sh 6.6)");
    CHECK(problem.empty());
  }
}

TEST_CASE("6.7: the swizzled layout keeps each row's 8 chunks in its own 128 bytes, no padding",
          "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const CopiedStage stage = copy_stage_places<ch06::SwizzledRows>();
  INFO(stage.misplaced << " (scripts/hint.sh 6.7)");
  CHECK(stage.misplaced.empty());
  CHECK(std::count(stage.row.begin(), stage.row.end(), -1) == 0);
}

TEST_CASE("6.7: step 4 reads, at every k8 step, the chunks that copy_stage stored", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  const Mismatches found =
      misread_registers<ch06::SwizzledRows>(copy_stage_places<ch06::SwizzledRows>());
  INFO(found.first << " (exercise 6.5 first, then scripts/hint.sh 6.7)");
  CHECK(found.count == 0);
}

TEST_CASE("6.7: every ldmatrix phase of step 4 falls on 8 different bank groups", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  // 8 warps x 4 k8 steps x (4 A + 4 B^T instructions) x 4 matrices = 1024 phases per batch.
  INFO("phases with a bank conflict, of 1024 (scripts/hint.sh 6.7)");
  CHECK(conflicting_phases<ch06::SwizzledRows>() == 0);
}

TEST_CASE("the stages of step 4 are 12.5% smaller than the padded ones", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
  CHECK(ch06::product_shared_bytes<ch06::PaddedRows>(3) == 165888);
  CHECK(ch06::product_shared_bytes<ch06::SwizzledRows>(3) == 147456);
  CHECK(ch06::SwizzledRows::kRowFloats * sizeof(float) == 128);  // a row is one 128-byte line
}

TEST_CASE("the tensor-core launcher refuses what it cannot compute", "[ch06]") {
  COURSE_REQUIRE_EDITION("ch06");
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

#ifdef COURSE_SOLUTION_EDITION
// The checks above must fail on plausible mistakes. Each mistake below is made from the solution's
// own functions (a lane, a register or an operation changed on the way), so none spells out an
// answer.
namespace {

// Rows of 32 floats with the chunks in order: every chunk where the copies put it and read from
// there, but the same chunk of 8 rows on one bank group.
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

// A pipeline model whose operations reach the model changed: the loop under test is the
// solution's, the schedule the model sees is the mistake.
struct ChangedOperations {
  explicit ChangedOperations(PipelineModel& target) : model(target) {}
  PipelineModel& model;
  std::function<void(PipelineModel&, int)> wait_instead;  // how wait(n) reaches the model
  bool drop_sync = false;                                 // no barrier at all
  bool commit_only_copies = false;  // a group is closed only when it holds copies
  bool copied_since_commit = false;

  void copy(int stage, int batch) {
    copied_since_commit = true;
    model.copy(stage, batch);
  }
  void commit() {
    if (commit_only_copies && !copied_since_commit)
      return;
    copied_since_commit = false;
    model.commit();
  }
  void wait(int pending) {
    if (wait_instead)
      wait_instead(model, pending);
    else
      model.wait(pending);
  }
  void sync() {
    if (!drop_sync)
      model.sync();
  }
  void multiply(int stage) { model.multiply(stage); }
};

template <class Change>
std::string changed_schedule_problem(Change change) {
  return schedule_problem(3, [&](PipelineModel& model, int batches) {
    ChangedOperations ops(model);
    change(ops);
    ch06::deep_pipeline<3>(ops, batches);
  });
}

}  // namespace

TEST_CASE("the fragment checks reject a lane or a register taken for its neighbour", "[ch06]") {
  CHECK(accumulator_mismatches([](int lane, int e) {
          return ch06::accumulator_position(lane ^ 1, e);
        }).count > 0);
  CHECK(accumulator_mismatches([](int lane, int e) {
          return ch06::accumulator_position(lane, e ^ 2);
        }).count > 0);
  CHECK(operand_mismatches([](int lane, int reg, bool for_a) {
          return ch06::operand_position(lane, reg ^ 1, for_a);
        }).count > 0);
  CHECK(operand_mismatches([](int lane, int reg, bool for_a) {
          return ch06::operand_position(lane ^ 4, reg, for_a);
        }).count > 0);
  CHECK(ldmatrix_mismatches([](int lane, bool for_a) {
          return ch06::ldmatrix_offset(lane ^ 8, for_a);
        }).count > 0);
  CHECK(ldmatrix_mismatches([](int lane, bool for_a) {
          return ch06::ldmatrix_offset(lane, for_a) + 1;  // rows not 16-byte aligned
        }).count > 0);
}

TEST_CASE("the layout checks reject a conflicting, a misread and an overlapping layout", "[ch06]") {
  // Rows of 32 floats in order: a bijection, read right, and every phase on one bank group.
  CHECK(copy_stage_places<UnpaddedRows>().misplaced.empty());
  CHECK(misread_registers<UnpaddedRows>(copy_stage_places<UnpaddedRows>()).count == 0);
  CHECK(conflicting_phases<UnpaddedRows>() == 8 * 4 * 8 * 4);
  CHECK(copy_stage_places<ReadUnswizzled>().misplaced.empty());
  CHECK(misread_registers<ReadUnswizzled>(copy_stage_places<ReadUnswizzled>()).count > 0);
  CHECK_FALSE(copy_stage_places<OneChunkPerRow>().misplaced.empty());
  // The bug hunt's layout: read right, with a conflict in every phase.
  CHECK(misread_registers<ch06::WidePaddedRows>(copy_stage_places<ch06::WidePaddedRows>()).count ==
        0);
  CHECK(conflicting_phases<ch06::WidePaddedRows>() == 8 * 4 * 8 * 4);
}

TEST_CASE("the pipeline check rejects missing waits, barriers and groups, and a shallow pipeline",
          "[ch06]") {
  // The given two-stage loop is right for two stages, and too shallow for three.
  CHECK(schedule_problem(2, [](PipelineModel& model, int batches) {
          ch06::two_stage_pipeline(model, batches);
        }).empty());
  CHECK(schedule_problem(3, [](PipelineModel& model, int batches) {
          ch06::two_stage_pipeline(model, batches);
        }).find("in flight") != std::string::npos);
  // Waiting for one group less than needed; waiting for none; no barrier.
  CHECK(changed_schedule_problem([](ChangedOperations& ops) {
          ops.wait_instead = [](PipelineModel& model, int n) { model.wait(n + 1); };
        }).find("may not have landed") != std::string::npos);
  CHECK(changed_schedule_problem([](ChangedOperations& ops) {
          ops.wait_instead = [](PipelineModel&, int) {};
        }).find("may not have landed") != std::string::npos);
  CHECK(changed_schedule_problem([](ChangedOperations& ops) {
          ops.drop_sync = true;
        }).find("visible to every warp") != std::string::npos);
  // Groups closed only after copies, as in the two-stage loop: the last batch is multiplied
  // while its group may still be in flight.
  CHECK(changed_schedule_problem([](ChangedOperations& ops) {
          ops.commit_only_copies = true;
        }).find("may not have landed") != std::string::npos);
  // Waiting for every group: right, but nothing is in flight while a batch is multiplied.
  CHECK(changed_schedule_problem([](ChangedOperations& ops) {
          ops.wait_instead = [](PipelineModel& model, int) { model.wait(0); };
        }).find("in flight") != std::string::npos);
}
#endif
