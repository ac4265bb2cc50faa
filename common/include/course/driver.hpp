/// @file driver.hpp
/// @brief The shared driver: every chapter's main() describes its chapter and calls run_chapter().
///
/// For each problem the driver draws seeded random inputs, refuses sizes the device cannot hold,
/// poisons the output, runs the kernel once with synchronous launch checks, times warm-up plus
/// repeated runs with CUDA events, times the previous chapter's solution on the same inputs (unless
/// `--no-compare`), checks the output against the CPU reference, and reports.
#pragma once

#include "course/cli.hpp"
#include "course/device_buffer.hpp"
#include "course/device_info.hpp"
#include "course/exercise.hpp"
#include "course/problems.hpp"
#include "course/report.hpp"

#include <cstdint>
#include <functional>
#include <string>
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

/// What a chapter's executable knows about its chapter.
struct Chapter {
  int number = 0;            ///< chapter number, 1 to 6
  std::string title;         ///< e.g. "global memory"
  bool solution = false;     ///< built from solutions/ (true) or chapters/ (false)
  std::string kernels_file;  ///< kernels.cuh it was built from, for hints
  /// This chapter's launchers with the command line's choices bound: a launcher that offers a
  /// choice takes it as its trailing parameter, and main() binds it with course::with_choice.
  /// The choices come with the chapter's defaults filled in (see chosen_launch()).
  std::function<ProblemSet(const LaunchOptions& choices)> launchers;
  ChapterFlags flags;               ///< flags beyond the common ones
  std::vector<Exercise> exercises;  ///< the chapter's exercises, for hints after a FAIL
  /// The previous chapter's solution launchers at their defaults (may be empty).
  ProblemSet previous;
  /// Why the chapter has no kernel for a problem, in kAllProblems order, told when one is asked
  /// for (empty: no reason given).
  std::string missing_reasons[4];
  /// The chapter's planted bugs (`--bug NAME`, `--list-bugs`); every chapter has at least one.
  std::vector<PlantedBug> bugs;
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

/// The workload of @p problem at the sizes in @p options.
Workload requested_workload(Problem problem, const Options& options);

/// One problem at one size: the seeded inputs on the host and the device, and an output buffer.
class ProblemInstance {
 public:
  /// Draws the inputs of @p workload (seeded by @p seed) and uploads them. Throws
  /// course::CudaError, before allocating, if they would not fit.
  ProblemInstance(const Workload& workload, std::uint64_t seed);

  /// Runs @p set's launcher for this problem once on @p stream, writing the output buffer.
  void launch(const ProblemSet& set, cudaStream_t stream) const;
  /// The checked run: poisons the output buffer, clears the launch log, runs @p set's launcher once
  /// with synchronous launch checks (so an error is reported at the launch that caused it), and
  /// returns the output. launch_log() then holds what was launched.
  std::vector<float> checked_run(const ProblemSet& set, cudaStream_t stream) const;
  /// Compares @p output with the CPU reference; a matmul with the tolerance of @p arithmetic.
  CheckResult check(const std::vector<float>& output,
                    Arithmetic arithmetic = Arithmetic::fp32) const;

  /// The problem.
  Problem problem() const { return workload_.problem; }
  /// Sizes as reported, e.g. "m=4096 n=4096 k=4096".
  std::string sizes() const;
  /// Fills the rate fields of @p result for this problem's sizes (course::fill_rate).
  void fill_rate(RunResult& result, const DeviceInfo& device, Arithmetic arithmetic) const;
  /// Columns of the output (for (row, column) in messages).
  std::size_t output_columns() const;

 private:
  Workload workload_;
  std::uint64_t seed_;
  std::vector<float> host_first_;
  std::vector<float> host_second_;
  DeviceBuffer<float> first_;
  DeviceBuffer<float> second_;
  mutable DeviceBuffer<float> output_;
};

/// Runs, times and (when options.check) checks @p set on @p instance, and times the previous
/// chapter's @p previous set too when it offers the problem and options.compare is set.
RunResult measure(const ProblemInstance& instance, const ProblemSet& set, const Options& options,
                  const DeviceInfo& device, cudaStream_t stream,
                  const ProblemSet* previous = nullptr);

/// The launch choices a report shows for @p problem in a chapter with @p flags, e.g. "tile=32"
/// or "tile=32 variant=dispatch".
std::string describe_variant(Problem problem, const LaunchOptions& chosen,
                             const ChapterFlags& flags);

/// The whole executable: parses the command line, runs every requested problem, reports, and
/// returns the exit status (course::ExitStatus).
int run_chapter(const Chapter& chapter, int argc, char** argv);

}  // namespace course
