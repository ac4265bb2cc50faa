/// @file parse.hpp
/// @brief The values of command-line flags, parsed strictly: the whole text or a refusal that
/// names the flag, says what was expected and quotes what was given. The one set of parsers of
/// the course: every chapter's command line (course/cli.hpp) and the performance ladder's use it.
#pragma once

#include "course/problems.hpp"
#include "course/usage_error.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace course {

/// The most warm-up or timed runs (`--warmup`, `--reps`) a command line takes.
inline constexpr long long kMaxRuns = 1000000;

/// Throws UsageError("FLAG: WHY, got \"VALUE\""), the one form of every refused value.
[[noreturn]] void refuse_value(const std::string& flag, const std::string& value,
                               const std::string& why);

/// The whole of @p text as a base-10 whole number from @p low to @p high.
long long parse_whole_number(const std::string& flag, const std::string& text, long long low,
                             long long high);

/// The whole of @p text as a positive, finite decimal number ("389", "41.5", "1e3").
double parse_positive_number(const std::string& flag, const std::string& text);

/// A count written as digits or as 2^E (E from 0 to 30), from 1 to INT_MAX: a size, a length.
int parse_count(const std::string& flag, const std::string& text);

/// The sides of a conv2d mask.
struct MaskSides {
  int rows = 0;  ///< odd, from 1 to kMaxMaskSide
  int cols = 0;  ///< odd, from 1 to kMaxMaskSide
};

/// A mask written K (square) or KxL, each side odd and from 1 to kMaxMaskSide.
MaskSides parse_mask_sides(const std::string& flag, const std::string& text);

/// "all" (an empty list: every problem) or a comma-separated list of problem names.
std::vector<Problem> parse_problems(const std::string& flag, const std::string& text);

/// A seed: a whole number from 0 to 2^64 - 1.
std::uint64_t parse_seed(const std::string& flag, const std::string& text);

/// The parts of @p text between the @p separator characters: "a,,b" gives "a", "" and "b", and a
/// separator at the end gives an empty last part, so that a value can refuse an empty item.
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace course
