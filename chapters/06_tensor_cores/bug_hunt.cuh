/// @file bug_hunt.cuh
/// @brief Chapter 6's bug hunt: step 2's kernel with stages laid out in a way of their own. Run it
/// with `--bug wide-padding`; the lesson says which tool to take to it.
#pragma once

namespace ch06 {

/// Stages for LdmatrixLoader whose rows are padded further than PaddedRows pads them: 8 floats
/// after each row's 32 instead of 4, to be on the safe side.
struct WidePaddedRows {
  static constexpr int kRowFloats = kBatch + 2 * kQuad;  ///< floats from one row to the next: 40
  static constexpr int kStageFloats = (kTileRows + kTileCols) * kRowFloats;  ///< A, then B^T
  /// The float offset of chunk @p chunk (k 4 chunk .. 4 chunk + 3) of row @p row of a tile.
  __host__ __device__ static constexpr int chunk_offset(int row, int chunk) {
    return row * kRowFloats + chunk * kQuad;
  }
  /// As SwizzledRows::lane_offset(): the row and k of ldmatrix_offset(), in this layout.
  __host__ __device__ static constexpr int lane_offset(int lane, bool for_a, int k8) {
    const int padded = ldmatrix_offset(lane, for_a);
    return chunk_offset(padded / kPitch, (padded % kPitch + k8) / kQuad);
  }
};

}  // namespace ch06
