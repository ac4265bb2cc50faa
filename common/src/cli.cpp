#include "course/cli.hpp"

#include "course/parse.hpp"
#include "course/report.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <sstream>

namespace course {
namespace {

// The widest line of the usage text.
constexpr std::size_t kUsageWidth = 100;

std::string quoted(const std::string& value) {
  return "\"" + value + "\"";
}

// A size: a whole number from 1 to INT_MAX.
int parse_size(const std::string& flag, const std::string& text) {
  return static_cast<int>(parse_whole_number(flag, text, 1, INT_MAX));
}

// "; <where other sizes run>" for a refusal, or "".
std::string elsewhere(const ChapterFlags& flags) {
  return flags.other_sizes.empty() ? "" : "; " + flags.other_sizes;
}

void parse_mask(const std::string& flag, const std::string& text, const ChapterFlags& flags,
                Options& options) {
  const MaskSides sides = parse_mask_sides(flag, text);
  if (!flags.mask_sides.empty()) {
    const bool offered = sides.rows == sides.cols &&
                         std::find(flags.mask_sides.begin(), flags.mask_sides.end(), sides.rows) !=
                             flags.mask_sides.end();
    if (!offered) {
      refuse_value(flag, text,
                   "this chapter has compiled masks " + join(flags.mask_sides, "x.., ") +
                       "x.. (square) only" + elsewhere(flags));
    }
  }
  options.mask_rows = sides.rows;
  options.mask_cols = sides.cols;
}

}  // namespace

namespace {

template <typename Value>
std::string join_values(const std::vector<Value>& values, const char* separator) {
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size(); ++i)
    out << (i ? separator : "") << values[i];
  return out.str();
}

}  // namespace

std::string join(const std::vector<int>& values, const char* separator) {
  return join_values(values, separator);
}

std::string join(const std::vector<std::string>& values, const char* separator) {
  return join_values(values, separator);
}

ChapterOption number_option(std::string flag, std::string name, const std::vector<int>& values,
                            std::vector<Problem> problems, std::string help) {
  std::vector<std::string> texts;
  for (int value : values)
    texts.push_back(std::to_string(value));
  return {std::move(flag), std::move(name), std::move(texts), std::move(problems), std::move(help)};
}

ChapterOption variant_option(std::vector<std::string> values, std::vector<Problem> problems,
                             std::string help) {
  return {kVariantFlag, "kernel variant", std::move(values), std::move(problems), std::move(help)};
}

const ChapterOption* ChapterFlags::option(const std::string& flag) const {
  for (const ChapterOption& offered : options) {
    if (offered.flag == flag)
      return &offered;
  }
  return nullptr;
}

std::string LaunchOptions::text(const std::string& flag) const {
  for (const auto& [name, value] : chosen) {
    if (name == flag)
      return value;
  }
  return "";
}

int LaunchOptions::number(const std::string& flag) const {
  const std::string value = text(flag);
  return value.empty() ? 0 : std::stoi(value);
}

void LaunchOptions::set(const std::string& flag, const std::string& value) {
  for (auto& [name, old] : chosen) {
    if (name == flag) {
      old = value;
      return;
    }
  }
  chosen.emplace_back(flag, value);
}

Options parse_options(int argc, const char* const* argv, const ChapterFlags& flags) {
  Options options;
  if (!flags.tap_counts.empty())
    options.taps = flags.tap_counts.front();
  std::string launch_flag;  // the last launch choice given (a chapter option), refused with --bug
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (flag.rfind("--", 0) == 0) {
      const std::size_t equals = flag.find('=');
      if (equals != std::string::npos) {
        value = flag.substr(equals + 1);
        flag = flag.substr(0, equals);
        has_inline_value = true;
      }
    }
    auto take_value = [&]() -> std::string {
      if (has_inline_value)
        return value;
      if (i + 1 >= argc)
        throw UsageError(flag + ": a value is required");
      return argv[++i];
    };
    auto no_value = [&]() {
      if (has_inline_value)
        refuse_value(flag, value, "takes no value");
    };

    if (flag == "-h" || flag == "--help") {
      no_value();
      options.help = true;
    } else if (flag == "--problem") {
      options.problems = parse_problems(flag, take_value());
    } else if (flag == "-m") {
      options.m = parse_size(flag, take_value());
    } else if (flag == "-n") {
      options.n = parse_size(flag, take_value());
      options.signal_length = options.n;
    } else if (flag == "-k") {
      options.k = parse_size(flag, take_value());
    } else if (flag == "--height") {
      options.height = parse_size(flag, take_value());
    } else if (flag == "--width") {
      options.width = parse_size(flag, take_value());
    } else if (flag == "--mask") {
      parse_mask(flag, take_value(), flags, options);
    } else if (flag == "--taps") {
      const std::string text = take_value();
      options.taps = parse_size(flag, text);
      if (!flags.tap_counts.empty()) {
        if (std::find(flags.tap_counts.begin(), flags.tap_counts.end(), options.taps) ==
            flags.tap_counts.end()) {
          refuse_value(flag, text,
                       "this chapter has compiled tap counts " + join(flags.tap_counts, ", ") +
                           " only" + elsewhere(flags));
        }
      } else if (flags.max_taps > 0 && options.taps > flags.max_taps) {
        refuse_value(flag, text,
                     "this chapter takes at most " + std::to_string(flags.max_taps) + " taps");
      }
    } else if (const ChapterOption* option = flags.option(flag)) {
      launch_flag = flag;
      const std::string text = take_value();
      if (std::find(option->values.begin(), option->values.end(), text) == option->values.end())
        refuse_value(flag, text, "this chapter offers " + join(option->values, ", "));
      options.launch.set(flag, text);
    } else if (flag == "--signal-csv" && flags.signal_demo) {
      options.signal_csv = take_value();
      if (options.signal_csv.empty())
        refuse_value(flag, options.signal_csv, "expected a file name");
    } else if (flag == "--bug") {
      const std::string text = take_value();
      if (std::find(flags.bugs.begin(), flags.bugs.end(), text) == flags.bugs.end()) {
        refuse_value(flag, text,
                     flags.bugs.empty()
                         ? "this chapter plants no bugs"
                         : "this chapter's planted bugs are " + join(flags.bugs, ", "));
      }
      options.bug = text;
    } else if (flag == "--list-bugs") {
      no_value();
      options.list_bugs = true;
    } else if (flag == "--warmup") {
      options.warmup = static_cast<int>(parse_whole_number(flag, take_value(), 0, kMaxRuns));
    } else if (flag == "--reps") {
      options.reps = static_cast<int>(parse_whole_number(flag, take_value(), 1, kMaxRuns));
    } else if (flag == "--seed") {
      options.seed = parse_seed(flag, take_value());
    } else if (flag == "--no-check") {
      no_value();
      options.check = false;
    } else if (flag == "--no-compare") {
      no_value();
      options.compare = false;
    } else if (flag == "--against") {
      options.against = parse_positive_number(flag, take_value());
    } else if (flag == "--csv") {
      no_value();
      options.csv = true;
    } else if (flag == "--json") {
      no_value();
      options.json = true;
    } else if (flag == "--describe") {
      no_value();
      options.describe = true;
    } else if (flag == "--exercises") {
      no_value();
      options.list_exercises = true;
    } else if (flag == "--kernel-names") {
      no_value();
      options.kernel_names = true;
    } else {
      throw UsageError("unknown flag " + quoted(argv[i]) + " for this chapter");
    }
  }
  if (!options.bug.empty() && !launch_flag.empty()) {
    throw UsageError("--bug: a planted bug runs its own launch, so " + launch_flag +
                     " cannot go with it");
  }
  if (options.csv && options.json)
    throw UsageError("--csv and --json: choose one format");
  if (!options.bug.empty() && !options.signal_csv.empty()) {
    throw UsageError("--bug: the signal demo runs the chapter's own conv1d, so --signal-csv " +
                     quoted(options.signal_csv) + " cannot go with it");
  }
  const bool runs_conv1d =
      options.problems.empty() || std::find(options.problems.begin(), options.problems.end(),
                                            Problem::conv1d) != options.problems.end();
  const long long conv1d_outputs = static_cast<long long>(options.signal_length) + options.taps - 1;
  if (runs_conv1d && conv1d_outputs > INT_MAX) {
    throw UsageError("-n / --taps: the conv1d output length n + m - 1 = " +
                     std::to_string(conv1d_outputs) + " exceeds " + std::to_string(INT_MAX));
  }
  return options;
}

std::string usage(const std::string& program, const ChapterFlags& flags) {
  std::ostringstream out;
  out << "usage: " << program << " [flags]\n\n"
      << "Runs this chapter's kernels on random inputs, checks them against the CPU reference\n"
      << "and reports their time. Exit status: 0 PASS, 1 FAIL, 2 bad command line, 3 no CUDA\n"
      << "device, 4 CUDA error or refused size.\n\n"
      << "  --problem P       all (default) or a comma-separated list of matmul, minplus, conv2d,\n"
      << "                    conv1d (those this chapter offers)\n"
      << "  -m M -n N -k K    product sizes: A is M x K, B is K x N (default 4096 each);\n"
      << "                    -n also sets the conv1d signal length (default 16777216)\n"
      << "  --height H --width W   conv2d image size (default 8192 x 8192)\n"
      << "  --mask K[xL]      conv2d mask, odd sides";
  if (flags.mask_sides.empty()) {
    out << " up to " << kMaxMaskSide;
  } else {
    out << ", square: " << join(flags.mask_sides, ", ");
  }
  out << " (default 13x13)\n"
      << "  --taps M          conv1d mask length";
  if (!flags.tap_counts.empty()) {
    out << ", compiled in: " << join(flags.tap_counts, ", ") << " (default "
        << flags.tap_counts.front() << ")\n";
  } else {
    out << " (default 127";
    if (flags.max_taps > 0)
      out << ", at most " << flags.max_taps;
    out << ")\n";
  }
  for (const ChapterOption& option : flags.options) {
    // "--flag F": the flag and the first letter of its word as the value's placeholder.
    std::string head = "  " + option.flag + " " + static_cast<char>(std::toupper(option.flag[2]));
    head.resize(std::max<std::size_t>(head.size() + 1, 20), ' ');
    const std::string values =
        join(option.values, ", ") + (option.values.size() > 1 ? " (the first is the default)" : "");
    // One line where it fits, else the values on a line of their own.
    const bool fits = head.size() + option.help.size() + 2 + values.size() <= kUsageWidth;
    out << head << option.help << (fits ? ": " : ":\n" + std::string(20, ' ')) << values << "\n";
  }
  if (flags.signal_demo) {
    out << "  --signal-csv FILE conv1d demo: filter two tones (50 Hz + 7 kHz at 16 kHz) with a\n"
        << "                    10-tap moving average and write time, input, output as CSV\n";
  }
  std::vector<std::string> shares;
  for (double grade : kRateGrades)
    shares.push_back(format_percent(100 * grade, 0));
  const std::string grades = join(shares, ", ");
  out << "  --warmup W        untimed runs first (default 2)\n"
      << "  --reps R          timed runs, median reported (default 10)\n"
      << "  --seed S          seed of the random inputs (default 20261121)\n"
      << "  --no-check        skip the comparison with the CPU reference\n"
      << "  --no-compare      skip running the previous chapter (no speedup)\n"
      << "  --against RATE    grade each rate against RATE (the solution's, in the same unit):\n"
      << "                    a star at each of " << grades << " of it; "
      << format_percent(100 * RateGrade::needed(), 0) << " passes\n"
      << "  --csv             one CSV line per run instead of the report\n"
      << "  --json            one JSON object per run instead of the report\n"
      << "  --describe        print this chapter's description as JSON and exit\n"
      << "  --exercises       list this chapter's exercises (id, problem, task) and exit\n"
      << "  --kernel-names    read compiled kernel names, one a line, and print each as JSON\n"
      << "                    (its readable name and the problems it computes), and exit\n";
  if (flags.bugs.empty()) {
    out << "  --bug NAME        run a planted bug in place of the kernels (this chapter has "
           "none)\n";
  } else {
    out << "  --bug NAME        run a planted bug in place of the kernels (the bug hunt): "
        << join(flags.bugs, ", ") << "\n";
  }
  out << "  --list-bugs       list the planted bugs (name, the tool that catches it, summary)\n"
      << "  -h, --help        this text\n";
  return out.str();
}

}  // namespace course
