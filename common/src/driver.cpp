#include "course/driver.hpp"

#include "course/cuda_check.hpp"
#include "course/describe.hpp"
#include "course/signal_demo.hpp"

#include <algorithm>
#include <iostream>
#include <new>
#include <sstream>

namespace course {
namespace {

bool is_name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

}  // namespace

bool planted_bug_tool_known(const std::string& tool) {
  static const char* const kSanitizerTools[] = {"check", "memcheck", "racecheck", "synccheck",
                                                "initcheck"};
  for (const char* known : kSanitizerTools) {
    if (tool == known)
      return true;
  }
  const std::string prefix = "ncu:";
  if (tool.rfind(prefix, 0) != 0 || tool.size() == prefix.size())
    return false;
  for (std::size_t i = prefix.size(); i < tool.size(); ++i) {
    if (!is_name_character(tool[i]) || tool[i] == '-')
      return false;
  }
  return true;
}

std::string planted_bugs_error(const std::vector<PlantedBug>& bugs) {
  for (std::size_t i = 0; i < bugs.size(); ++i) {
    const PlantedBug& bug = bugs[i];
    const std::string which = "planted bug \"" + bug.name + "\"";
    if (bug.name.empty() || bug.name.front() == '-')
      return which + ": a name must not be empty or start with '-'";
    for (char c : bug.name) {
      if (!is_name_character(c))
        return which + ": a name holds only letters, digits, '-', '_' and '.'";
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (bugs[j].name == bug.name)
        return which + ": the name is registered twice";
    }
    if (!planted_bug_tool_known(bug.tool)) {
      return which + ": tool \"" + bug.tool +
             "\" is none of check, memcheck, racecheck, synccheck, initcheck, ncu:<metric>";
    }
    if (bug.summary.empty() || bug.summary.find_first_of("\t\n\r") != std::string::npos)
      return which + ": the summary must be one line, without tabs";
    if (bug.launchers.empty())
      return which + ": it has no launcher";
  }
  return "";
}

std::string bug_list(const std::vector<PlantedBug>& bugs) {
  std::ostringstream out;
  for (const PlantedBug& bug : bugs)
    out << bug.name << "\t" << bug.tool << "\t" << bug.summary << "\n";
  return out.str();
}

std::string bug_help(const std::vector<PlantedBug>& bugs) {
  if (bugs.empty())
    return "";
  std::ostringstream out;
  out << "Planted bugs (--bug NAME runs one in place of the chapter's kernels):\n";
  for (const PlantedBug& bug : bugs) {
    out << "  " << bug.name << ": " << bug.summary << " (problems:";
    for (Problem problem : kAllProblems) {
      if (bug.launchers.offers(problem))
        out << " " << problem_name(problem);
    }
    out << "; caught by " << bug.tool << ")\n";
  }
  return out.str();
}

std::string exercise_hint(const Chapter& chapter, Problem problem) {
  std::ostringstream exercises;
  std::ostringstream commands;
  bool first = true;
  for (const Exercise& exercise : chapter.exercises) {
    if (problem_name(problem) != std::string(exercise.problem))
      continue;
    exercises << (first ? "" : ", ") << exercise.id << " (" << exercise.task << ")";
    commands << (first ? "" : ", ") << "scripts/hint.sh " << exercise.id;
    first = false;
  }
  if (first)
    return "";
  return "hint: " + std::string(problem_name(problem)) + " is computed by EXERCISE " +
         exercises.str() + " in " + chapter.kernels_file + "; levelled hints: " + commands.str();
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    out.push_back(word);
  return out;
}

namespace {

// One checked and one timed run, and no time spent on the previous chapter's kernels.
constexpr const char* kQuickRun = " --warmup 0 --reps 1 --no-compare";
// Enough runs for a median worth comparing.
constexpr const char* kTimedRun = " --warmup 2 --reps 10 --no-compare";

}  // namespace

Check sanitizer_check(const std::string& tool, std::vector<std::string> problems,
                      const std::string& args, const std::string& hint, std::string id) {
  Check check;
  check.id = id.empty() ? tool : std::move(id);
  check.tool = tool;
  check.problems = std::move(problems);
  check.args = words(args + kQuickRun);
  check.hint = hint;
  return check;
}

Check spills_check(std::vector<std::string> problems, const std::string& args,
                   const std::string& kernel, const std::string& hint) {
  Check check = sanitizer_check("spills", std::move(problems), args, hint, "no-spills");
  check.kernel = kernel;
  return check;
}

Check sass_check(const std::string& instruction, const std::string& kernel,
                 std::vector<std::string> problems, const std::string& hint) {
  Check check;
  check.id = "sass-" + instruction;
  check.tool = "sass";
  check.problems = std::move(problems);
  check.hint = hint;
  check.instruction = instruction;
  check.kernel = kernel;
  return check;
}

Check sass_order_check(const std::string& order, const std::string& kernel,
                       std::vector<std::string> problems, const std::string& hint) {
  Check check = sass_check("", kernel, std::move(problems), hint);
  check.id = order;
  check.order = order;
  return check;
}

Check ncu_check(const std::string& id, const std::string& metric, double max_ratio,
                std::vector<std::string> problems, const std::string& args,
                const std::string& hint) {
  Check check = sanitizer_check("ncu", std::move(problems), args, hint, id);
  check.metric = metric;
  check.max_ratio = max_ratio;
  return check;
}

Check rate_check(std::vector<std::string> problems, const std::string& args,
                 const std::string& hint) {
  Check check;
  check.id = "rate";
  check.tool = "rate";
  check.problems = std::move(problems);
  check.args = words(args + kTimedRun);
  check.hint = hint;
  return check;
}

LaunchOptions chosen_launch(const Options& options, const ChapterFlags& flags) {
  LaunchOptions chosen;
  for (const ChapterOption& option : flags.options) {
    const std::string given = options.launch.text(option.flag);
    chosen.set(option.flag, given.empty() ? option.values.front() : given);
  }
  return chosen;
}

ProblemSet launchers_at_defaults(const Chapter& chapter, const std::string& variant) {
  Options options;
  if (!variant.empty())
    options.launch.set(kVariantFlag, variant);
  return chapter.launchers(chosen_launch(options, chapter.flags));
}

void leave_to_earlier_chapters(Chapter& tensor_core_chapter, int minplus_chapter,
                               int convolution_chapter) {
  std::string* reasons = tensor_core_chapter.missing_reasons;
  const std::string convolutions = "these tiles do not help a convolution (chapter " +
                                   std::to_string(convolution_chapter) + " runs it)";
  reasons[static_cast<int>(Problem::minplus)] =
      "tensor cores only multiply and add; min-plus has no tensor-core instruction (chapter " +
      std::to_string(minplus_chapter) + " runs it)";
  reasons[static_cast<int>(Problem::conv2d)] = convolutions;
  reasons[static_cast<int>(Problem::conv1d)] = convolutions;
}

std::vector<std::pair<std::string, std::string>> launch_choices(Problem problem,
                                                                const LaunchOptions& chosen,
                                                                const ChapterFlags& flags) {
  std::vector<std::pair<std::string, std::string>> choices;
  for (const ChapterOption& option : flags.options) {
    if (std::find(option.problems.begin(), option.problems.end(), problem) != option.problems.end())
      choices.emplace_back(option.flag.substr(2), chosen.text(option.flag));
  }
  return choices;
}

std::string describe_variant(Problem problem, const LaunchOptions& chosen,
                             const ChapterFlags& flags) {
  std::string text;
  for (const auto& [word, value] : launch_choices(problem, chosen, flags))
    text += (text.empty() ? "" : " ") + word + "=" + value;
  return text;
}

namespace {

// What --describe, --help, --exercises and --list-bugs print, in that order.
void print_offer(const Chapter& chapter, const Options& options, const ChapterFlags& flags,
                 const ProblemSet& launchers, const std::string& program) {
  if (options.describe)
    std::cout << describe_json(chapter, launchers) << "\n";
  if (options.help) {
    const std::string bugs = bug_help(chapter.bugs);
    std::cout << usage(program, flags) << "\n"
              << support_help(describe_support(chapter, launchers)) << (bugs.empty() ? "" : "\n")
              << bugs;
  }
  if (options.list_exercises)
    std::cout << exercise_list(chapter.exercises);
  if (options.list_bugs)
    std::cout << bug_list(chapter.bugs);
}

// The problems to run (those asked for, or every one @p launchers offers) in @p problems, or why
// one asked for cannot run.
std::string choose_problems(const Chapter& chapter, const ProblemSet& launchers,
                            const PlantedBug* bug, const Options& options,
                            std::vector<Problem>& problems) {
  problems = options.problems;
  if (problems.empty()) {
    for (Problem problem : kAllProblems) {
      if (launchers.offers(problem))
        problems.push_back(problem);
    }
  }
  for (Problem problem : problems) {
    if (launchers.offers(problem))
      continue;
    if (bug != nullptr)
      return "planted bug \"" + bug->name + "\" has no " + problem_name(problem) + " kernel";
    const std::string& why = chapter.missing_reasons[static_cast<int>(problem)];
    return "chapter " + std::to_string(chapter.number) + " has no " + problem_name(problem) +
           " kernel" + (why.empty() ? "" : ": ") + why;
  }
  return "";
}

// Runs, checks and reports @p problems with @p launchers (those of @p bug when it is set) on the
// GPU; returns the exit status.
int run_problems(const Chapter& chapter, const ProblemSet& launchers, const PlantedBug* bug,
                 const std::vector<Problem>& problems, const LaunchOptions& chosen,
                 const Options& options) {
  int status = kExitPass;
  cudaStream_t stream = nullptr;
  try {
    const DeviceInfo device = query_device();
    COURSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (!options.signal_csv.empty()) {
      status = run_signal_demo(launchers.conv1d, options.signal_csv, stream, std::cout);
      COURSE_CUDA_CHECK(cudaStreamDestroy(stream));
      return status;
    }
    if (options.csv) {
      std::cout << csv_header() << "\n";
    } else if (!options.json) {
      std::cout << "Chapter " << chapter.number << ": " << chapter.title << " ("
                << (chapter.solution ? "solution" : "your kernels") << ")\n"
                << "device   " << device.summary() << "\n"
                << "inputs   seed " << options.seed << ", " << options.warmup << " warm-up and "
                << options.reps << " timed runs per kernel\n";
      if (bug != nullptr) {
        std::cout << "PLANTED BUG \"" << bug->name << "\" runs in place of the chapter's kernels:"
                  << " a defect put there on purpose for the bug hunt\n";
      }
      std::cout << "\n";
    }
    // A planted bug has nothing to compare with.
    const ProblemSet* previous =
        chapter.previous.empty() || bug != nullptr ? nullptr : &chapter.previous;
    for (Problem problem : problems) {
      if (!options.csv && !options.json)
        std::cout << std::flush;
      const ProblemInstance instance(requested_workload(problem, options), options.seed);
      RunResult result = measure(instance, launchers, options, device, stream, previous);
      result.chapter = chapter.number;
      result.previous_chapter = chapter.number - 1;
      result.previous_solution = chapter.previous_solution;
      result.solution = chapter.solution;
      result.variant =
          bug != nullptr ? "bug=" + bug->name : describe_variant(problem, chosen, chapter.flags);
      if (bug == nullptr)
        result.choices = launch_choices(problem, chosen, chapter.flags);
      if (options.csv) {
        std::cout << csv_line(result) << "\n";
      } else if (options.json) {
        std::cout << result_json(result) << std::endl;
      } else {
        print_report(std::cout, result);
        std::cout << "\n";
      }
      if (!result.ok()) {
        status = kExitCheckFailed;
        const std::string hint = exercise_hint(chapter, problem);
        if (bug != nullptr) {
          std::cerr << "note: " << problem_name(problem) << " ran the planted bug \"" << bug->name
                    << "\", not the chapter's kernel\n";
        } else if (!chapter.solution && !hint.empty()) {
          std::cerr << hint << "\n";
        }
      }
    }
    COURSE_CUDA_CHECK(cudaStreamDestroy(stream));
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of host memory for these sizes\n";
    return kExitError;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitError;
  }
  return status;
}

}  // namespace

int run_chapter(const Chapter& chapter, int argc, char** argv) {
  const std::string program = argc > 0 ? argv[0] : "chapter";
  const std::string registration = planted_bugs_error(chapter.bugs);
  if (!registration.empty()) {
    std::cerr << "error: chapter " << chapter.number << " registers a " << registration << "\n";
    return kExitError;
  }
  ChapterFlags flags = chapter.flags;
  for (const PlantedBug& bug : chapter.bugs)
    flags.bugs.push_back(bug.name);
  Options options;
  try {
    options = parse_options(argc, argv, flags);
  } catch (const UsageError& error) {
    std::cerr << "error: " << error.what() << "\n"
              << "run '" << program << " --help' for the flags\n";
    return kExitUsage;
  }
  const LaunchOptions chosen = chosen_launch(options, chapter.flags);
  const ProblemSet chapter_launchers = chapter.launchers(chosen);
  if (options.kernel_names) {
    for (std::string symbol; std::getline(std::cin, symbol);) {
      if (!symbol.empty())
        std::cout << kernel_name_json(symbol) << "\n";
    }
    return kExitPass;
  }
  if (options.describe || options.help || options.list_exercises || options.list_bugs) {
    print_offer(chapter, options, flags, chapter_launchers, program);
    return kExitPass;
  }
  // With --bug, the planted bug's launchers run in place of the chapter's.
  const PlantedBug* bug = nullptr;
  for (const PlantedBug& planted : chapter.bugs) {
    if (planted.name == options.bug)
      bug = &planted;
  }
  const ProblemSet& launchers = bug != nullptr ? bug->launchers : chapter_launchers;
  std::vector<Problem> problems;
  const std::string refusal = choose_problems(chapter, launchers, bug, options, problems);
  if (!refusal.empty()) {
    std::cerr << "error: --problem: " << refusal << "\n";
    return kExitUsage;
  }
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::cerr << "error: no CUDA device available (" << reason
              << "); this executable needs an NVIDIA GPU\n";
    return kExitNoDevice;
  }
  return run_problems(chapter, launchers, bug, problems, chosen, options);
}

int run_chapter(Chapter chapter, const Chapter& previous, bool previous_solution, int argc,
                char** argv) {
  chapter.previous = launchers_at_defaults(previous, previous.best_variant);
  chapter.previous_solution = previous_solution;
  return run_chapter(chapter, argc, argv);
}

}  // namespace course
