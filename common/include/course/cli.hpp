/// @file cli.hpp
/// @brief The command line shared by every executable, validated before any GPU work.
#pragma once

#include "course/problems.hpp"
#include "course/random.hpp"
#include "course/usage_error.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace course {

/// Exit statuses of every executable (documented in the README).
enum ExitStatus : int {
  kExitPass = 0,         ///< every check passed (or checks were off and everything ran)
  kExitCheckFailed = 1,  ///< a result did not match the reference
  kExitUsage = 2,        ///< bad command line; nothing was run
  kExitNoDevice = 3,     ///< no CUDA device is visible
  kExitError = 4,        ///< a CUDA error, a request the device cannot meet, or a refused size
};

/// One launch choice that a chapter offers on its command line (a flag and a value from a list),
/// declared once in the chapter's describe(): the parser takes and refuses its values from this,
/// and `--help`, the README's table and `--describe` show it from this.
struct ChapterOption {
  std::string flag;                 ///< the flag, "--" and a word
  std::string name;                 ///< what the value is, for tables: e.g. "tile width"
  std::vector<std::string> values;  ///< the values it takes, the default first
  std::vector<Problem> problems;    ///< the problems whose launchers it changes
  std::string help;                 ///< one line for `--help`
};

/// A ChapterOption whose values are the numbers @p values (the default first).
ChapterOption number_option(std::string flag, std::string name, const std::vector<int>& values,
                            std::vector<Problem> problems, std::string help);

/// The course's flag for a chapter's kernel variants, like `--problem` one flag of the course: a
/// chapter with several ways to run its kernels (a chapter built in steps: the lesson's steps)
/// gives only their names, with variant_option(); the driver and the ladder run a chapter "at its
/// best" (Chapter::best_variant) through it.
inline constexpr const char* kVariantFlag = "--variant";

/// The chapter's option of the course's flag kVariantFlag: the variants' names @p values (the
/// default first), for the launchers of @p problems.
ChapterOption variant_option(std::vector<std::string> values, std::vector<Problem> problems,
                             std::string help);

/// What a chapter's executable offers beyond the common flags.
struct ChapterFlags {
  std::vector<ChapterOption> options;  ///< the chapter's launch choices, in the order shown
  bool signal_demo = false;            ///< whether `--signal-csv FILE` is offered
  /// Square mask sides offered for conv2d; empty: any odd side up to kMaxMaskSide.
  std::vector<int> mask_sides;
  /// Tap counts compiled into conv1d (`--taps`), the default first; empty: any count, up to
  /// max_taps when that is set.
  std::vector<int> tap_counts;
  int max_taps = 0;  ///< largest conv1d mask length when tap_counts is empty; 0: no limit
  /// Where the masks and tap counts that this chapter has not compiled can run, told when one is
  /// refused, e.g. "a later chapter takes any size at run time"; empty: nothing is said.
  std::string other_sizes;
  /// Names of the planted bugs `--bug` takes (course::Chapter::bugs fills it in); `--bug` is
  /// refused with the list (or with "plants no bugs") for any other name.
  std::vector<std::string> bugs;

  /// The option of @p flag, or nullptr when the chapter does not offer it.
  const ChapterOption* option(const std::string& flag) const;
};

/// The launch choices made on the command line (or filled in with the chapter's defaults by
/// chosen_launch()), by flag. A chapter's describe() reads them to bind its launchers: a launcher
/// that offers a choice takes it as its trailing parameter (course::with_choice).
struct LaunchOptions {
  std::vector<std::pair<std::string, std::string>> chosen;  ///< (flag, value), in the order given

  /// The value chosen for @p flag; "" when none.
  std::string text(const std::string& flag) const;
  /// The value chosen for @p flag as a number; 0 when none.
  int number(const std::string& flag) const;
  /// The kernel variant chosen (the value of kVariantFlag); "" when none.
  std::string variant() const { return text(kVariantFlag); }
  /// Chooses @p value for @p flag, in place of any earlier choice.
  void set(const std::string& flag, const std::string& value);
};

/// Parsed command line. Defaults are the benchmark sizes of the course.
struct Options {
  std::vector<Problem> problems;      ///< problems to run; empty means all the chapter offers
  int m = 4096;                       ///< rows of A and C
  int n = 4096;                       ///< columns of B and C
  int k = 4096;                       ///< columns of A, rows of B
  int height = 8192;                  ///< conv2d image rows
  int width = 8192;                   ///< conv2d image columns
  int mask_rows = 13;                 ///< conv2d mask rows (odd)
  int mask_cols = 13;                 ///< conv2d mask columns (odd)
  int signal_length = 1 << 24;        ///< conv1d signal samples (set by -n as well)
  int taps = 127;                     ///< conv1d mask length (see parse_options)
  LaunchOptions launch;               ///< the chapter's launch choices
  int warmup = 2;                     ///< untimed runs before timing
  int reps = 10;                      ///< timed runs
  std::uint64_t seed = kDefaultSeed;  ///< seed of the random inputs
  bool check = true;                  ///< compare with the CPU reference
  bool compare = true;                ///< time the previous chapter's solution too, for a speedup
  double against = 0;                 ///< a rate to grade each run's rate against; 0: none
  bool csv = false;                   ///< print CSV lines instead of the human report
  bool json = false;                  ///< print one JSON object per run instead of the report
  bool describe = false;              ///< print the chapter's description as JSON and exit
  bool help = false;                  ///< print usage and exit
  bool list_exercises = false;        ///< print the chapter's exercises and exit
  bool kernel_names = false;          ///< name the compiled kernel names read on stdin, and exit
  bool list_bugs = false;             ///< print the planted bugs (name, tool, summary) and exit
  std::string bug;                    ///< planted bug to run in place of the chapter's kernels
  std::string signal_csv;             ///< conv1d demo: write the signal and its filtered copy
};

/// Parses @p argc / @p argv against the common flags and @p flags. Throws UsageError on any bad
/// value (negative, zero, non-numeric, overflowing, empty, an even mask, a mask or tap count not
/// compiled in, a launch choice or a planted bug that is not offered, an unknown flag), and on
/// `--bug` together with a launch choice or `--signal-csv` (a planted bug runs its own launch).
/// Without `--taps`, the taps are the first of ChapterFlags::tap_counts where the chapter has them.
Options parse_options(int argc, const char* const* argv, const ChapterFlags& flags);

/// The numbers of @p values separated by @p separator ("32, 16"), for messages that list choices.
std::string join(const std::vector<int>& values, const char* separator);

/// The words of @p values separated by @p separator ("simple, fused").
std::string join(const std::vector<std::string>& values, const char* separator);

/// The usage text for @p program with the flags this chapter offers.
std::string usage(const std::string& program, const ChapterFlags& flags);

}  // namespace course
