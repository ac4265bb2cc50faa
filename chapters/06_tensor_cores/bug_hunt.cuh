/// @file bug_hunt.cuh
/// @brief Chapter 6's bug hunt: step 1's kernel with a fragment loader of its own. Run it with
/// `--bug fragment`; the lesson says how to find what it does wrong.
#pragma once

namespace ch06 {

/// A loader for step 1 (product_kernel<MisreadLoader, 2>), written from a reading of the fragment
/// table: every register with its own 32-bit shared load.
struct MisreadLoader {
  using Layout = PaddedRows;  ///< as PlainLoader
  /// As PlainLoader::load().
  __device__ static void load(const float* a_tile, const float* b_tile, int k8, int lane,
                              FragmentA (&a)[kMmaTilesDown], FragmentB (&b)[kMmaTilesAcross]) {
    const int g = lane / 4;
    const int t = lane % 4;
#pragma unroll
    for (int i = 0; i < kMmaTilesDown; ++i) {
#pragma unroll
      for (int r = 0; r < 4; ++r)  // A[g][t], A[g][t + 4], A[g + 8][t], A[g + 8][t + 4]
        a[i].reg[r] =
            __float_as_uint(a_tile[(i * kMmaM + g + (r / 2) * 8) * kPitch + k8 + t + (r % 2) * 4]);
    }
#pragma unroll
    for (int j = 0; j < kMmaTilesAcross; ++j) {
#pragma unroll
      for (int r = 0; r < 2; ++r)  // B[t][g], B[t + 4][g]: row g of B^T, k = t and t + 4
        b[j].reg[r] = __float_as_uint(b_tile[(j * kMmaN + g) * kPitch + k8 + t + r * 4]);
    }
  }
};

}  // namespace ch06
