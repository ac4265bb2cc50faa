/// @file options.hpp
/// @brief The ladder's command line: what to run (each problem at its benchmark sizes, or those of
/// `--sizes`; which problems and chapters), how (warm-up, timed runs, seed) and where the CSV files
/// go; its values are parsed by course/parse.hpp.
#pragma once

#include "course/cli.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

/// The performance ladder: every chapter's solution and the vendor baseline, side by side.
namespace ladder {

/// The ladder's command line.
struct Options {
  std::vector<course::Workload> workloads;  ///< what to run, in order (of `--problem`'s problems)
  std::vector<int> chapters;                ///< only these chapters (empty: all built)
  course::Options base;                     ///< warm-up, reps, seed
  std::string csv_path;                     ///< results CSV; empty: not written
  std::string goals_csv_path;               ///< goals CSV; empty: not written
  bool help = false;                        ///< print usage and exit
};

/// The usage text for @p program.
std::string usage(const std::string& program);

/// Parses @p argc / @p argv; throws course::UsageError on an unknown flag, a missing value or a
/// value out of range. A chapter this build lacks is refused later, against the chapters built.
Options parse_command_line(int argc, const char* const* argv);

/// The benchmark sizes that usage() lists, chosen so that the whole ladder takes well under two
/// minutes on an H100 or H200.
std::vector<course::Workload> default_workloads();

/// The products of the default plan that are not squares of a tile's multiple: two skinny ones
/// (m or n of 64, fewer output tiles than a GPU has SMs) and 4000 (no tile divides it).
std::vector<course::Workload> other_product_shapes();

/// Tiny sizes that are not multiples of any tile, for the quick test: a few milliseconds each.
std::vector<course::Workload> quick_workloads();

/// Parses one `--sizes` value, `PROBLEM=SIZE[,SIZE...]` as usage() describes it, conv2d's with the
/// mask @p mask_rows x @p mask_cols and conv1d's with @p taps taps; throws course::UsageError.
std::vector<course::Workload> parse_sizes(const std::string& spec, int mask_rows, int mask_cols,
                                          int taps);

}  // namespace ladder
