/// @file describe.hpp
/// @brief What a chapter's executable takes (problems, sizes, masks, tiles, blocks) and which
/// exercises it has, described from the same lists that the command line and the driver refuse
/// with, so that `--help`, the README's table and the refusals can never disagree.
///
/// `--help` ends with the chapter's description; `--supports-table` prints it as a Markdown table
/// (scripts/update_supports_table.py gathers every chapter's into the README); `--exercises`
/// lists the exercises; `--describe` prints all of it, and more, as JSON for the tools.
#pragma once

#include "course/cli.hpp"
#include "course/driver.hpp"
#include "course/exercise.hpp"
#include "course/problems.hpp"

#include <string>
#include <vector>

namespace course {

/// One chapter's offer, one text per column of the README's table.
struct ChapterSupport {
  int chapter = 0;                ///< chapter number
  std::vector<Problem> problems;  ///< the problems it has a kernel for, in kAllProblems order
  std::string products;           ///< matmul and minplus: sizes, tile widths, mappings; or "-"
  std::string conv2d;             ///< conv2d: image sizes, masks, block widths; or "-"
  std::string conv1d;             ///< conv1d: signal length, taps; or "-"
};

/// Describes chapter @p chapter from the launchers it has (@p problems) and the choices its
/// command line offers (@p flags).
ChapterSupport describe_support(int chapter, const ProblemSet& problems, const ChapterFlags& flags);

/// The description as the end of `--help`: one line per problem.
std::string support_help(const ChapterSupport& support);

/// The header and separator lines of the Markdown table, with a newline after each.
std::string support_table_header();

/// The chapter's row of the Markdown table, with a newline.
std::string support_table_row(const ChapterSupport& support);

/// The chapter's description as one line of JSON, for `--describe` (docs/pages/tools.md documents
/// its fields): its problems, options, sizes, exercises, planted bugs, GPU requirement, the checks
/// of the student's kernels and the runs of its Predict questions. @p launchers are the chapter's
/// launchers at its defaults.
std::string describe_json(const Chapter& chapter, const ProblemSet& launchers);

/// The exercises for `--exercises`: one line each, `id<TAB>problem<TAB>task`, in table order.
std::string exercise_list(const std::vector<Exercise>& exercises);

}  // namespace course
