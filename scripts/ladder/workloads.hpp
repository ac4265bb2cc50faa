/// @file workloads.hpp
/// @brief What the performance ladder runs: each problem at its benchmark sizes (course::Workload),
/// a short label for each size, and the `--sizes` values that choose others.
#pragma once

#include "course/cli.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

/// The performance ladder: every chapter's solution and the vendor baseline, side by side.
namespace ladder {

/// A short label of the size, the same for every implementation of one workload, e.g. "4096"
/// (square product), "300x200x100" (m x n x k), "8192x8192, 13x13 mask", "2^24, 127 taps".
std::string size_label(const course::Workload& workload);

/// Benchmark sizes (documented in usage()): matmul 1024, 2048, 4096, 8192; minplus 1024, 4096,
/// 6300; conv2d 4096^2 and 8192^2 with a 13 x 13 mask; conv1d 2^24 samples with 127 taps.
std::vector<course::Workload> default_workloads();

/// Tiny sizes that are not multiples of any tile, for the quick test: a few milliseconds each.
std::vector<course::Workload> quick_workloads();

/// Parses one `--sizes` value, `PROBLEM=SIZE[,SIZE...]`: products take N (square) or MxNxK,
/// conv2d takes N (square) or HxW (with the mask @p mask_rows x @p mask_cols), conv1d takes the
/// signal length (with @p taps taps). Any number may be written 2^E (course::parse_count()).
/// Throws course::UsageError.
std::vector<course::Workload> parse_sizes(const std::string& spec, int mask_rows, int mask_cols,
                                          int taps);

}  // namespace ladder
