/// @file cli.hpp
/// @brief The command line shared by every executable, validated before any GPU work.
#pragma once

#include "course/problems.hpp"
#include "course/random.hpp"
#include "course/thread_mapping.hpp"
#include "course/usage_error.hpp"

#include <cstdint>
#include <string>
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

/// What a chapter's executable offers beyond the common flags.
struct ChapterFlags {
  std::vector<int> tiles;   ///< tile widths offered by `--tile`; empty: no `--tile`
  std::vector<int> blocks;  ///< block widths offered by `--block`; empty: no `--block`
  bool mapping = false;     ///< whether `--mapping coalesced|transposed` is offered
  /// Kernel variants offered by `--variant`, the default first; empty: no `--variant`.
  std::vector<std::string> variants;
  bool signal_demo = false;  ///< whether `--signal-csv FILE` is offered
  /// Square mask sides offered for conv2d; empty: any odd side up to kMaxMaskSide.
  std::vector<int> mask_sides;
  /// Tap counts compiled into conv1d (`--taps`), the default first; empty: any count, up to
  /// max_taps when that is set.
  std::vector<int> tap_counts;
  int max_taps = 0;  ///< largest conv1d mask length when tap_counts is empty; 0: no limit
  /// Names of the planted bugs `--bug` takes (course::Chapter::bugs fills it in); `--bug` is
  /// refused with the list (or with "plants no bugs") for any other name.
  std::vector<std::string> bugs;
  /// The GPU the products need, in words, where that is more than TF32's compute capability 8.0
  /// (chapter 7: a Hopper); empty: what the arithmetic needs.
  std::string gpu_requirement;
};

/// The launch choices on the command line (`--tile`, `--block`, `--mapping`, `--variant`). A
/// chapter's describe() binds each to the launchers that offer it as their trailing parameter
/// (course::with_choice), or picks its launchers by the variant.
struct LaunchOptions {
  int tile = 0;   ///< tile width of the matrix product; 0 = the chapter's default
  int block = 0;  ///< block width of the convolutions; 0 = the chapter's default
  ThreadMapping mapping = ThreadMapping::coalesced;  ///< thread-to-output mapping (chapter 1)
  std::string variant;  ///< kernel variant (`--variant`); empty = the chapter's default
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
  LaunchOptions launch;               ///< tile, block, mapping, variant
  int warmup = 2;                     ///< untimed runs before timing
  int reps = 10;                      ///< timed runs
  std::uint64_t seed = kDefaultSeed;  ///< seed of the random inputs
  bool check = true;                  ///< compare with the CPU reference
  bool compare = true;                ///< time the previous chapter's solution too, for a speedup
  bool csv = false;                   ///< print CSV lines instead of the human report
  bool json = false;                  ///< print one JSON object per run instead of the report
  bool describe = false;              ///< print the chapter's description as JSON and exit
  bool help = false;                  ///< print usage and exit
  bool list_exercises = false;        ///< print the chapter's exercises and exit
  bool supports_table = false;        ///< print what the chapter takes as Markdown and exit
  bool list_bugs = false;             ///< print the planted bugs (name, tool, summary) and exit
  std::string bug;                    ///< planted bug to run in place of the chapter's kernels
  std::string signal_csv;             ///< conv1d demo: write the signal and its filtered copy
};

/// Parses @p argc / @p argv against the common flags and @p flags. Throws UsageError on any bad
/// value (negative, zero, non-numeric, overflowing, empty, an even mask, a mask or tap count not
/// compiled in, a tile, a variant or a planted bug that is not offered, an unknown flag), and on
/// `--bug` together with a launch choice or `--signal-csv` (a planted bug runs its own launch).
/// Without `--taps`, the taps are the first of ChapterFlags::tap_counts where the chapter has them.
Options parse_options(int argc, const char* const* argv, const ChapterFlags& flags);

/// The numbers of @p values separated by @p separator ("32, 16"), for messages that list choices.
std::string join(const std::vector<int>& values, const char* separator);

/// The words of @p values separated by @p separator ("plain, dispatch").
std::string join(const std::vector<std::string>& values, const char* separator);

/// The usage text for @p program with the flags this chapter offers.
std::string usage(const std::string& program, const ChapterFlags& flags);

}  // namespace course
