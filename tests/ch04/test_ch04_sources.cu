// Exercise 4.5 on the CPU: the 64 threads of a block copy their float4s of each batch from where
// batch_sources() says, moved down a batch at a time as step 2's loop moves them, into their slots
// of xx and yy (panel_slot()). Built against your kernels.cuh (label ch04: run with
// COURSE_CHECK=ch04) and against the solution's. The check is what the cache must hold after the
// copy, as the lesson defines it: xx[kk][r] = A[row0 + r][k0 + kk], which the pre-pass put at
// at[k0 + kk][row0 + r], and yy[kk][c] = B[k0 + kk][col0 + c] = bp[k0 + kk][col0 + c]; and every
// float4 read is 16-byte aligned and inside its array.
#include <kernels.cuh>

#include "catch.hpp"
#include "chapter_request.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

constexpr int kPanelRow = ch04::kTile;  // floats in a row of xx or yy

// Fills a padded_k x pitch array with its own float index, so a value says where it came from.
std::vector<float> numbered(int rows, int pitch) {
  std::vector<float> values(static_cast<std::size_t>(rows) * pitch);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<float>(i);
  return values;
}

// Where @p p points in @p array (in floats), or -1 when outside it or not on a float4.
long long quad_index(const float* p, const std::vector<float>& array) {
  const auto first = reinterpret_cast<std::uintptr_t>(array.data());
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  if (at < first || (at - first) % sizeof(float4) != 0)
    return -1;
  const std::size_t index = (at - first) / sizeof(float);
  return index + ch04::kQuad <= array.size() ? static_cast<long long>(index) : -1;
}

// Plays one block (bx, by) of step 2 through every batch and checks what lands in xx and yy.
void check_block(int padded_m, int padded_n, int padded_k, int bx, int by) {
  const std::vector<float> at = numbered(padded_k, padded_m);
  const std::vector<float> bp = numbered(padded_k, padded_n);
  const int row0 = by * ch04::kTile;
  const int col0 = bx * ch04::kTile;
  int wrong_reads = 0;
  int wrong_entries = 0;
  for (int k0 = 0; k0 < padded_k; k0 += ch04::kBatch) {
    std::vector<float> xx(ch04::kBatch * kPanelRow, -1.0f);
    std::vector<float> yy(ch04::kBatch * kPanelRow, -1.0f);
    for (int thread = 0; thread < ch04::kProductThreads; ++thread) {
      const ch04::PanelSlot slot = ch04::panel_slot(thread);
      const ch04::BatchSources src =
          ch04::batch_sources(at.data(), bp.data(), padded_m, padded_n, row0, col0, slot);
      // The kernel's read of this batch: k0 rows further down each array.
      const float* a = src.a + static_cast<std::size_t>(k0) * padded_m;
      const float* b = src.b + static_cast<std::size_t>(k0) * padded_n;
      const long long ia = quad_index(a, at);
      const long long ib = quad_index(b, bp);
      if (ia < 0 || ib < 0) {
        ++wrong_reads;
        continue;
      }
      for (int c = 0; c < ch04::kQuad; ++c) {
        xx[slot.row * kPanelRow + slot.col + c] = at[ia + c];
        yy[slot.row * kPanelRow + slot.col + c] = bp[ib + c];
      }
    }
    for (int kk = 0; kk < ch04::kBatch; ++kk) {
      for (int r = 0; r < kPanelRow; ++r) {
        const std::size_t row = k0 + kk;
        wrong_entries += xx[kk * kPanelRow + r] != at[row * padded_m + row0 + r];
        wrong_entries += yy[kk * kPanelRow + r] != bp[row * padded_n + col0 + r];
      }
    }
  }
  INFO("float4 reads outside at or bp, or not 16-byte aligned: " << wrong_reads);
  CHECK(wrong_reads == 0);
  INFO("entries of xx and yy that do not hold the panel's element: " << wrong_entries);
  CHECK(wrong_entries == 0);
}

}  // namespace

TEST_CASE("exercise 4.5: every thread copies its float4 of the panels, batch after batch",
          "[ch04][sources]") {
  COURSE_REQUIRE_EDITION("ch04");
  const struct {
    int padded_m, padded_n, padded_k, bx, by;
  } cases[] = {{64, 64, 4, 0, 0},
               {64, 64, 12, 0, 0},
               {256, 192, 8, 2, 3},
               {128, 320, 16, 4, 1},
               {192, 64, 4, 0, 2}};
  for (const auto& c : cases) {
    INFO("padded " << c.padded_m << " x " << c.padded_n << " x " << c.padded_k << ", block ("
                   << c.bx << ", " << c.by << ")");
    check_block(c.padded_m, c.padded_n, c.padded_k, c.bx, c.by);
  }
}
