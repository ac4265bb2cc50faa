/// @file driver.hpp
/// @brief The shared driver: a chapter describes itself once (course::Chapter), and both its
/// executable and the performance ladder run that description.
///
/// A chapter describes itself once: its launch.cuh ends with `inline course::Chapter describe()`
/// in namespace chNN (after including its bug_hunt.cuh), which fills in
///  - its number and title (make_chapter());
///  - Chapter::launchers: its launchers as a function of the launch choices its options offer
///    (ChapterFlags::options); a launcher takes its choice as a trailing parameter, bound with
///    with_choice(), and a chapter built in steps picks the step with chosen_step();
///  - Chapter::flags: the choices offered and the sizes compiled in; Chapter::exercises (its
///    kExercises); Chapter::missing_reasons; Chapter::bugs (at least one planted bug);
///  - Chapter::best_variant, when a variant other than the default shows the chapter at its best;
///  - Chapter::gpu_refusal, when some GPU the course runs on cannot run its kernels.
///
/// Its main.cu includes `<kernels.cuh>` and launch.cuh, then the previous chapter's kernels
/// (solutions/MM_slug/kernels.cuh where the build has solutions/, which defines
/// COURSE_PREVIOUS_FROM_SOLUTIONS; the student's own chapters/MM_slug/kernels.cuh otherwise) and
/// chapters/MM_slug/launch.cuh, and is one call:
/// `return course::run_chapter(chNN::describe(), chMM::describe(), argc, argv);`. The performance
/// ladder compiles scripts/ladder/chapter.cu once for each chapter that course_add_chapter() adds,
/// against its solution kernels, and runs the same describe()'s launchers at their defaults and at
/// the best variant: exactly what `chNN_slug_solution` and `chNN_slug_solution --variant BEST` run.
///
/// For each problem the driver draws seeded random inputs, refuses sizes the device cannot hold,
/// poisons the output, runs the kernel once with synchronous launch checks, times warm-up plus
/// repeated runs with CUDA events, times the previous chapter's solution on the same inputs (unless
/// `--no-compare`), checks the output against the CPU reference, and reports.
#pragma once

#include "course/cli.hpp"
#include "course/exercise.hpp"
#include "course/measure.hpp"
#include "course/problems.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace course {

/// A defect planted on purpose for a chapter's bug hunt: launchers that run a defective kernel
/// (chapters/NN_slug/bug_hunt.cuh) in place of the chapter's, through the same checked run and
/// report, selected with `--bug NAME`.
struct PlantedBug {
  std::string name;  ///< what `--bug` takes: letters, digits, '-', '_' or '.', e.g. "no-barrier"
  /// What catches it: `check` (the executable's own check FAILs), `memcheck`, `racecheck`,
  /// `synccheck` or `initcheck` (compute-sanitizer reports an error), or `ncu:<metric>` (the
  /// profiler's metric is larger than for the chapter's own kernels on the same arguments).
  std::string tool;
  std::string summary;  ///< one line for `--list-bugs` and `--help`; says what, not where
  /// The problems the bug runs (the others are refused with --bug), and their arithmetic: a
  /// TF32 product says so, as the chapter's own set does, or its check uses the FP32 tolerance.
  ProblemSet launchers;
};

/// One of a chapter's instruments applied to the student's kernels (`--describe` lists them as
/// "checks"; docs/pages/tools.md says how each tool is judged). An exercise is done only when
/// every check whose problems include its problem holds.
struct Check {
  std::string id;  ///< unique within the chapter, e.g. "memcheck" or "sass-LDGSTS"
  /// memcheck, racecheck or synccheck (compute-sanitizer finds nothing), spills (no kernel of the
  /// run uses local memory), sass (the instruction is in the kernels' machine code, or the code
  /// is in the order named by order), ncu (the metric is at most max_ratio times the solution's
  /// on the same arguments) or rate (the student's rate as a share of the solution's, graded by
  /// the executable's `--against`: course::grade_rate()).
  std::string tool;
  std::vector<std::string> problems;  ///< the problems whose exercises the check judges
  /// The executable's whole command line for the check (it names the problems with --problem).
  std::vector<std::string> args;
  std::string hint;         ///< what to read when it fails: exercises, lesson, hint command
  std::string instruction;  ///< sass: the SASS mnemonic that must appear, e.g. "LDGSTS"
  std::string kernel;       ///< sass, spills: a regular expression for the kernels it concerns
  std::string metric;       ///< ncu: the metric compared with the solution's
  double max_ratio = 0;     ///< ncu: the largest ratio of the student's metric to the solution's
  /// sass, in place of an instruction: "prefetch" (in the kernel's loop every shared store
  /// stores what a global load of an earlier trip brought)
  std::string order;
};

/// A Predict question of the lesson (the question stays in the lesson): the runs that measure
/// the answer and what of them to show.
struct Prediction {
  std::string id;  ///< e.g. "5.1": the chapter and the question's place in the lesson
  /// The command lines of the executable that measure it, one per run (often two steps compared).
  std::vector<std::vector<std::string>> runs;
  /// What to show of each run: "time", "rate", "speedup" or "ncu" (the metrics below).
  std::vector<std::string> show;
  std::vector<std::string> metrics;  ///< ncu metrics to collect, when show has "ncu"
  std::string kernel;                ///< ncu: a regular expression for the kernel to profile
};

/// The words of @p text split at spaces, e.g. a command line for Check::args.
std::vector<std::string> words(const std::string& text);

/// Nsight Compute's count of bank conflicts of shared-memory loads, for ncu checks.
inline constexpr const char* kBankConflictMetric =
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";

/// A compute-sanitizer check (@p tool: memcheck, racecheck or synccheck) of one checked run with
/// @p args (a quick run is appended: no warm-up, one timed run, no comparison). Its id is @p id,
/// or the tool's name.
Check sanitizer_check(const std::string& tool, std::vector<std::string> problems,
                      const std::string& args, const std::string& hint, std::string id = "");
/// No kernel matching @p kernel uses local memory (a stack frame or spills).
Check spills_check(std::vector<std::string> problems, const std::string& args,
                   const std::string& kernel, const std::string& hint);
/// The SASS of the kernels matching @p kernel holds @p instruction.
Check sass_check(const std::string& instruction, const std::string& kernel,
                 std::vector<std::string> problems, const std::string& hint);
/// The SASS of the kernels matching @p kernel is in the order @p order ("prefetch"); its id is
/// @p order.
Check sass_order_check(const std::string& order, const std::string& kernel,
                       std::vector<std::string> problems, const std::string& hint);
/// The ncu @p metric of a run with @p args is at most @p max_ratio times the solution's.
Check ncu_check(const std::string& id, const std::string& metric, double max_ratio,
                std::vector<std::string> problems, const std::string& args,
                const std::string& hint);
/// The student's rate with @p args as a share of the solution's, graded by kRateGrades.
Check rate_check(std::vector<std::string> problems, const std::string& args,
                 const std::string& hint);

/// What GPU a chapter's kernels need, beyond any the course runs on.
struct GpuRequirement {
  std::string text;                    ///< in words; "" when any CUDA GPU will do
  std::string min_compute_capability;  ///< e.g. "8.0"; "" when any
  bool needs_sm90a = false;            ///< whether the build must include sm_90a code
};

/// What a chapter's executable knows about its chapter.
struct Chapter {
  int number = 0;            ///< chapter number, 1 to 7
  std::string title;         ///< e.g. "global memory"
  bool solution = false;     ///< built from solutions/ (true) or chapters/ (false)
  std::string kernels_file;  ///< kernels.cuh it was built from, for hints
  /// This chapter's launchers with the command line's choices bound: a launcher that offers a
  /// choice takes it as its trailing parameter, and describe() binds it with course::with_choice.
  /// The choices come with the chapter's defaults filled in (see chosen_launch()).
  std::function<ProblemSet(const LaunchOptions& choices)> launchers;
  ChapterFlags flags;               ///< flags beyond the common ones
  std::vector<Exercise> exercises;  ///< the chapter's exercises, for hints after a FAIL
  /// The previous chapter's launchers at their defaults and best variant (may be empty);
  /// run_chapter() with the previous chapter's description fills them in.
  ProblemSet previous;
  /// Whether previous runs the previous chapter's solution (true) or the student's own kernels.
  bool previous_solution = false;
  /// Why the chapter has no kernel for a problem, in kAllProblems order, told when one is asked
  /// for (empty: no reason given).
  std::string missing_reasons[4];
  /// The chapter's planted bugs (`--bug NAME`, `--list-bugs`); every chapter has at least one.
  std::vector<PlantedBug> bugs;
  /// The `--variant` value that shows the chapter at its best, when that is not the
  /// default (e.g. "fused"); empty otherwise. The ladder runs it beside the default, and
  /// the next chapter compares itself with it.
  std::string best_variant;
  /// Why this GPU (or this build) cannot run the chapter's kernels, or "" when it can; unset when
  /// every GPU the course runs on can (a Hopper-only chapter). The ladder skips a chapter that
  /// refuses, saying why; the executable's launchers refuse with the same line.
  std::function<std::string()> gpu_refusal;
  GpuRequirement gpu;                   ///< the GPU the kernels need (`--describe`, `--help`)
  std::vector<Check> checks;            ///< the instruments applied to the student's kernels
  std::vector<Prediction> predictions;  ///< the lesson's Predict questions and their runs
};

/// Whether @p tool names a way to catch a planted bug: check, memcheck, racecheck, synccheck,
/// initcheck, or `ncu:<metric>` with a metric name of letters, digits, '_' and '.'.
bool planted_bug_tool_known(const std::string& tool);

/// What is wrong with @p bugs as a chapter registers them (a name that `--bug` cannot take or that
/// repeats, an unknown tool, a summary that is empty or not one line, no launcher), or "" when
/// nothing is.
std::string planted_bugs_error(const std::vector<PlantedBug>& bugs);

/// `--list-bugs`: one line per bug, `NAME<TAB>TOOL<TAB>summary`.
std::string bug_list(const std::vector<PlantedBug>& bugs);

/// The planted bugs as `--help` shows them, after the flags (empty when there are none).
std::string bug_help(const std::vector<PlantedBug>& bugs);

/// The line on stderr after a failed check of @p problem: the exercises that compute it, where
/// they are and the command that prints their hints (`scripts/hint.sh N.M`); "" when no exercise
/// computes it.
std::string exercise_hint(const Chapter& chapter, Problem problem);

/// Chapter::launchers for a chapter that offers no launch choices: @p set, whatever the command
/// line says.
inline std::function<ProblemSet(const LaunchOptions&)> fixed_launchers(ProblemSet set) {
  return [set](const LaunchOptions&) { return set; };
}

/// A Chapter with the edition and kernels file that the build defined for this executable
/// (COURSE_SOLUTION_EDITION, COURSE_KERNELS_FILE); defined inline so the caller's macros apply.
inline Chapter make_chapter(int number, const char* title) {
  Chapter chapter;
  chapter.number = number;
  chapter.title = title;
#ifdef COURSE_SOLUTION_EDITION
  chapter.solution = true;
#endif
#ifdef COURSE_KERNELS_FILE
  chapter.kernels_file = COURSE_KERNELS_FILE;
#endif
  return chapter;
}

/// The launch choices of @p options with the chapter's defaults filled in: a tile or block width
/// left at 0, or a variant left empty, becomes the first that @p flags offers.
LaunchOptions chosen_launch(const Options& options, const ChapterFlags& flags);

/// @p chapter's launchers as its executable runs them when the command line makes no launch choice
/// but `--variant @p variant` (empty: not even that).
ProblemSet launchers_at_defaults(const Chapter& chapter, const std::string& variant = "");

/// One step of a chapter built in steps (its enum Step) and the name `--variant` gives it.
template <typename Step>
struct NamedStep {
  Step step;         ///< the step
  const char* name;  ///< its `--variant` name
};

/// For Chapter::launchers of a chapter built in steps: the step of @p steps (the chapter's kSteps,
/// NamedStep entries, the default first) that @p variant names, or the default.
template <typename StepName, std::size_t Count>
auto chosen_step(const StepName (&steps)[Count], const std::string& variant) {
  for (const StepName& named : steps) {
    if (variant == named.name)
      return named.step;
  }
  return steps[0].step;
}

/// The names of @p steps (as for chosen_step()), for ChapterFlags::variants.
template <typename StepName, std::size_t Count>
std::vector<std::string> step_names(const StepName (&steps)[Count]) {
  std::vector<std::string> names;
  for (const StepName& named : steps)
    names.push_back(named.name);
  return names;
}

/// The variant option (variant_option()) of a chapter built in steps: the names of @p steps (the
/// chapter's kSteps, the default first), for the launchers of @p problems.
template <typename StepName, std::size_t Count>
ChapterOption step_option(const StepName (&steps)[Count], std::vector<Problem> problems,
                          std::string help) {
  return variant_option(step_names(steps), std::move(problems), std::move(help));
}

/// Chapter::missing_reasons of a chapter whose kernels run on tensor cores: it offers matmul only,
/// and says that chapter @p minplus_chapter runs minplus and @p convolution_chapter the
/// convolutions.
void leave_to_earlier_chapters(Chapter& tensor_core_chapter, int minplus_chapter,
                               int convolution_chapter);

/// The launch choices that matter for @p problem in a chapter with @p flags: (the flag without its
/// dashes, the value chosen) of each option whose problems include it, in the chapter's order.
std::vector<std::pair<std::string, std::string>> launch_choices(Problem problem,
                                                                const LaunchOptions& chosen,
                                                                const ChapterFlags& flags);

/// The launch choices a report shows for @p problem in a chapter with @p flags (launch_choices()
/// as "word=value", separated by spaces), e.g. "lanes=16" or "lanes=16 variant=fused".
std::string describe_variant(Problem problem, const LaunchOptions& chosen,
                             const ChapterFlags& flags);

/// The whole executable: parses the command line, runs every requested problem, reports, and
/// returns the exit status (course::ExitStatus).
int run_chapter(const Chapter& chapter, int argc, char** argv);

/// The whole executable of @p chapter, timed against @p previous, the previous chapter's
/// description built with its solution kernels (@p previous_solution) or the student's own:
/// @p chapter's Chapter::previous becomes the launchers of @p previous at its defaults and its
/// best variant (nothing else of it is used).
int run_chapter(Chapter chapter, const Chapter& previous, bool previous_solution, int argc,
                char** argv);

/// The same, with the previous chapter's kernels as the build chose them for this executable:
/// the solution's where it defined COURSE_PREVIOUS_FROM_SOLUTIONS, the student's own otherwise;
/// defined inline so the caller's macros apply.
inline int run_chapter(Chapter chapter, const Chapter& previous, int argc, char** argv) {
#ifdef COURSE_PREVIOUS_FROM_SOLUTIONS
  constexpr bool previous_solution = true;
#else
  constexpr bool previous_solution = false;
#endif
  return run_chapter(std::move(chapter), previous, previous_solution, argc, argv);
}

}  // namespace course
