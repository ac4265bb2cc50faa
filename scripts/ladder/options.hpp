/// @file options.hpp
/// @brief The ladder's command line: what to run (workloads, problems, chapters), how (warm-up,
/// timed runs, seed) and where the CSV files go; its values are parsed by course/parse.hpp.
#pragma once

#include "course/cli.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

namespace ladder {

/// The ladder's command line.
struct Options {
  std::vector<course::Workload> workloads;  ///< what to run, in order
  std::vector<course::Problem> problems;    ///< only these problems (empty: all)
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

}  // namespace ladder
