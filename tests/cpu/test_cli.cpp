// The shared command line: the defaults, good values, and the refusals that the bad-input table
// (tests/reliability, which runs every chapter executable on bad values of every flag) does not
// ask for. The chapters' own options here are made up (--lanes, --stride, --order: no chapter has
// them), so that these tests are the parser's whatever a chapter offers; --variant is the course's
// flag, with made-up variants. Then the planted bugs: the registration a chapter makes, and what
// the executable prints and returns for them before any GPU work.
#include "catch.hpp"
#include "rejection.hpp"

#include "course/driver.hpp"

#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using course::Problem;

course::ChapterFlags all_flags() {
  course::ChapterFlags flags;
  flags.options = {
      course::number_option("--lanes", "lane count", {8, 16, 32},
                            {Problem::matmul, Problem::minplus}, "product lane count"),
      course::number_option("--stride", "stride", {16, 32}, {Problem::conv2d}, "conv2d stride"),
      {"--order", "walk order", {"rows", "columns"}, {Problem::matmul}, "walk order"},
      course::variant_option({"simple", "fused"},
                             {Problem::matmul, Problem::minplus, Problem::conv2d, Problem::conv1d},
                             "kernel variant")};
  flags.signal_demo = true;
  flags.max_taps = 4096;
  return flags;
}

course::ChapterFlags bug_flags() {
  course::ChapterFlags flags;
  flags.options = {course::number_option("--lanes", "lane count", {32, 16}, {Problem::matmul},
                                         "product lane count")};
  flags.signal_demo = true;
  flags.bugs = {"no-barrier", "halo"};
  return flags;
}

course::Options parse(std::vector<std::string> args,
                      const course::ChapterFlags& flags = all_flags()) {
  return course::testing::parse_args(std::move(args), flags);
}

std::string refusal(std::vector<std::string> args,
                    const course::ChapterFlags& flags = all_flags()) {
  return course::testing::usage_refusal(std::move(args), flags);
}

// A command line written as one string: its words, split at spaces.
std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

bool contains(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

void no_op_product(const float*, const float*, float*, int, int, int, cudaStream_t) {}

course::PlantedBug good_bug(const std::string& name, const std::string& tool) {
  course::PlantedBug bug{name, tool, "the product reads a tile nobody finished writing", {}};
  bug.launchers.matmul = no_op_product;
  return bug;
}

course::Chapter bug_chapter() {
  course::Chapter chapter = course::make_chapter(9, "test chapter");
  chapter.launchers = course::fixed_launchers(course::ProblemSet{no_op_product, {}, {}, {}});
  chapter.bugs = {good_bug("no-barrier", "racecheck"),
                  good_bug("padding", "ncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")};
  return chapter;
}

// Runs the chapter's executable on @p args and returns its exit status, with what it printed.
int run(const course::Chapter& chapter, std::vector<std::string> args, std::string* out,
        std::string* err) {
  args.insert(args.begin(), "chNN");
  std::vector<char*> argv;
  for (auto& arg : args)
    argv.push_back(arg.data());
  std::ostringstream out_text, err_text;
  std::streambuf* old_out = std::cout.rdbuf(out_text.rdbuf());
  std::streambuf* old_err = std::cerr.rdbuf(err_text.rdbuf());
  const int status = course::run_chapter(chapter, static_cast<int>(argv.size()), argv.data());
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  *out = out_text.str();
  *err = err_text.str();
  return status;
}

}  // namespace

TEST_CASE("defaults are the benchmark sizes", "[cli]") {
  const auto options = parse({});
  CHECK(options.m == 4096);
  CHECK(options.n == 4096);
  CHECK(options.k == 4096);
  CHECK(options.height == 8192);
  CHECK(options.mask_rows == 13);
  CHECK(options.mask_cols == 13);
  CHECK(options.signal_length == (1 << 24));
  CHECK(options.problems.empty());
  CHECK(options.reps == 10);
  CHECK(options.check);
  CHECK(options.compare);
  CHECK_FALSE(options.csv);
}

TEST_CASE("good values parse", "[cli]") {
  const auto options = parse(words(
      "-m 33 -n 65 -k 17 --problem matmul,conv1d --mask 3x5 --taps 4096 --lanes 16 --stride 32 "
      "--order columns --warmup 0 --variant fused --reps 3 --seed 18446744073709551615 "
      "--no-check --csv --height=7 --width 9 --no-compare --against 41.5"));
  CHECK(options.m == 33);
  CHECK(options.n == 65);
  CHECK(options.signal_length == 65);  // -n is the conv1d signal length too
  CHECK(options.k == 17);
  CHECK(options.problems ==
        std::vector<course::Problem>{course::Problem::matmul, course::Problem::conv1d});
  CHECK(options.mask_rows == 3);
  CHECK(options.mask_cols == 5);
  CHECK(options.taps == 4096);
  CHECK(options.launch.number("--lanes") == 16);
  CHECK(options.launch.number("--stride") == 32);
  CHECK(options.launch.text("--order") == "columns");
  CHECK(options.launch.text("--variant") == "fused");
  CHECK(options.launch.variant() == "fused");
  CHECK(parse({}).launch.variant().empty());  // the default, filled in by the driver
  CHECK(options.warmup == 0);
  CHECK(options.reps == 3);
  CHECK(options.seed == 18446744073709551615ull);
  CHECK_FALSE(options.check);
  CHECK_FALSE(options.compare);
  CHECK(options.against == 41.5);
  CHECK(parse({}).against == 0);  // none: no grade
  CHECK(parse({"--against", "3e2"}).against == 300);
  CHECK(options.csv);
  CHECK(options.height == 7);
  CHECK(options.width == 9);
  CHECK(parse({"--mask", "7"}).mask_cols == 7);
  CHECK(parse({"--problem", "all"}).problems.empty());
  CHECK(parse({"--help"}).help);
  CHECK(parse({"--exercises"}).list_exercises);
  CHECK(parse({"--describe"}).describe);
  CHECK(parse({"--json"}).json);
  CHECK_FALSE(parse({}).list_exercises);
  CHECK_FALSE(parse({}).describe);
}

TEST_CASE("a refusal names the values that would do, and flags that cannot go together", "[cli]") {
  // The bad-input table (tests/reliability) gives every chapter executable bad values of every
  // flag and checks that the refusal names the flag and the value; here, what its rows do not ask.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--taps", "4097"}, "4096"},
      {{"--lanes", "12"}, "8, 16, 32"},
      {{"--variant", "fastest"}, "simple, fused"},
      {{"--csv", "--json"}, "--json"}};
  for (const auto& [args, must_mention] : cases) {
    INFO("arguments: " << Catch::Detail::stringify(args));
    const std::string message = refusal(args);
    INFO("message: " << message);
    CHECK(contains(message, must_mention));
  }
  // The signal demo's flag exists only in the chapter that has the demo.
  CHECK(contains(refusal({"--signal-csv", "x.csv"}, course::ChapterFlags{}), "--signal-csv"));
  CHECK(refusal({"--signal-csv", "x.csv"}).empty());
}

TEST_CASE("a chapter with compiled tap counts takes only those", "[cli]") {
  // The bad-input table refuses the counts not compiled in; here, the ones that are, the default,
  // and the output length n + taps - 1 with the default taps.
  course::ChapterFlags compiled_taps;
  compiled_taps.tap_counts = {7, 3, 1};
  compiled_taps.max_taps = 4096;              // the list decides where there is one
  CHECK(parse({}, compiled_taps).taps == 7);  // the first is the default
  CHECK(parse({"--taps", "3"}, compiled_taps).taps == 3);
  CHECK(parse({"--taps=1"}, compiled_taps).taps == 1);
  CHECK_FALSE(refusal({"--taps", "5"}, compiled_taps).empty());
  CHECK(parse({"-n", "2147483641"}, compiled_taps).signal_length == 2147483641);
  CHECK_THROWS_AS(parse({"-n", "2147483642"}, compiled_taps), course::UsageError);
  CHECK(parse({"-n", "2147483642", "--taps", "1"}, compiled_taps).taps == 1);
  // Without a list: any count up to max_taps, or any count at all.
  CHECK(parse({"--taps", "5"}).taps == 5);
  CHECK(parse({"--taps", "100000"}, course::ChapterFlags{}).taps == 100000);
}

TEST_CASE("usage lists the flags the chapter offers", "[cli]") {
  const std::string text = course::usage("ch", all_flags());
  for (const char* flag :
       {"--problem", "--lanes", "--stride", "--order", "--variant", "--signal-csv", "--reps",
        "--warmup", "--seed", "--no-check", "--no-compare", "--csv", "--json", "--describe",
        "--exercises", "--help"}) {
    INFO(flag);
    CHECK(contains(text, flag));
  }
  CHECK(contains(text, "simple, fused"));
  const std::string plain = course::usage("ch", course::ChapterFlags{});
  CHECK_FALSE(contains(plain, "--lanes"));
  CHECK_FALSE(contains(plain, "--variant"));
  CHECK(contains(text, "(default 127, at most 4096)"));
  course::ChapterFlags compiled = all_flags();
  compiled.tap_counts = {127, 1, 3, 7, 15, 31, 63};
  const std::string listed = course::usage("ch", compiled);
  CHECK(contains(listed, "compiled in: 127, 1, 3, 7, 15, 31, 63 (default 127)"));
  CHECK_FALSE(contains(listed, "at most"));
}

TEST_CASE("the driver fills in the default choices and names the variant in reports", "[cli]") {
  const course::ChapterFlags flags = all_flags();
  const course::LaunchOptions defaults = course::chosen_launch(parse({}), flags);
  CHECK(defaults.number("--lanes") == 8);
  CHECK(defaults.number("--stride") == 16);
  CHECK(defaults.variant() == "simple");
  CHECK(course::describe_variant(course::Problem::conv2d, defaults, flags) ==
        "stride=16 variant=simple");
  CHECK(course::describe_variant(course::Problem::matmul, defaults, flags) ==
        "lanes=8 order=rows variant=simple");
  using Choices = std::vector<std::pair<std::string, std::string>>;
  CHECK(course::launch_choices(course::Problem::matmul, defaults, flags) ==
        Choices{{"lanes", "8"}, {"order", "rows"}, {"variant", "simple"}});
  CHECK(course::launch_choices(course::Problem::conv1d, defaults, flags) ==
        Choices{{"variant", "simple"}});
  const course::LaunchOptions chosen =
      course::chosen_launch(parse({"--variant", "fused", "--lanes", "32"}), flags);
  CHECK(chosen.variant() == "fused");
  CHECK(course::describe_variant(course::Problem::conv1d, chosen, flags) == "variant=fused");
  // No --variant in the chapter: nothing filled in, nothing reported.
  const course::ChapterFlags lanes_only = bug_flags();
  const course::LaunchOptions plain = course::chosen_launch(parse({}, lanes_only), lanes_only);
  CHECK(plain.variant().empty());
  CHECK(course::describe_variant(course::Problem::matmul, plain, lanes_only) == "lanes=32");
}

TEST_CASE("a planted bug runs its own launch: launch choices and the demo are refused with it",
          "[cli][bugs]") {
  CHECK(contains(refusal({"--bug", "halo", "--lanes", "16"}, bug_flags()), "--lanes"));
  CHECK(refusal({"--lanes", "16", "--bug", "halo"}, bug_flags()).find("--bug") == 0);
  CHECK(contains(refusal({"--bug", "halo", "--signal-csv", "x.csv"}, bug_flags()),
                 "--signal-csv \"x.csv\""));
  CHECK(refusal({"--lanes", "16"}, bug_flags()).empty());
}

TEST_CASE("a chapter's registration of its planted bugs is checked", "[bugs]") {
  using Bugs = std::vector<course::PlantedBug>;
  CHECK(course::planted_bugs_error({}).empty());
  CHECK(course::planted_bugs_error(bug_chapter().bugs).empty());
  for (const char* tool : {"check", "memcheck", "racecheck", "synccheck", "initcheck",
                           "ncu:smsp__sass_inst_executed_op_shared_ld.sum"}) {
    INFO(tool);
    CHECK(course::planted_bug_tool_known(tool));
  }
  for (const char* tool : {"", "ncu", "ncu:", "ncu:a b", "ncu:-x", "nsys", "Memcheck", "check "}) {
    INFO(tool);
    CHECK_FALSE(course::planted_bug_tool_known(tool));
    CHECK(contains(course::planted_bugs_error(Bugs{good_bug("b", tool)}), "tool"));
  }
  for (const char* name : {"", "-x", "two words"}) {
    INFO("name \"" << name << "\"");
    CHECK_FALSE(course::planted_bugs_error(Bugs{good_bug(name, "check")}).empty());
  }
  CHECK(
      contains(course::planted_bugs_error(Bugs{good_bug("a", "check"), good_bug("a", "memcheck")}),
               "twice"));
  for (const char* summary : {"one\ttwo", ""}) {
    INFO("summary \"" << summary << "\"");
    course::PlantedBug bug = good_bug("a", "check");
    bug.summary = summary;
    CHECK_FALSE(course::planted_bugs_error(Bugs{bug}).empty());
  }
  course::PlantedBug idle = good_bug("a", "check");
  idle.launchers = {};
  CHECK(contains(course::planted_bugs_error(Bugs{idle}), "no launcher"));
}

TEST_CASE("the executable lists its bugs in --help and --list-bugs, and refuses an unknown one",
          "[bugs]") {
  const course::Chapter chapter = bug_chapter();
  std::string out, err;
  CHECK(run(chapter, {"--help"}, &out, &err) == course::kExitPass);
  for (const char* shown :
       {"--bug NAME", "Planted bugs", "  no-barrier: the product reads", "caught by racecheck"}) {
    INFO("not shown: " << shown);
    CHECK(contains(out, shown));
  }
  CHECK(run(chapter, {"--list-bugs"}, &out, &err) == course::kExitPass);
  CHECK(out == course::bug_list(chapter.bugs));
  CHECK(contains(out, "no-barrier\tracecheck\t"));
  CHECK(run(chapter, {"--bug", "halo"}, &out, &err) == course::kExitUsage);
  CHECK(out.empty());
  CHECK(err.find("error: --bug: this chapter's planted bugs are no-barrier, padding, got "
                 "\"halo\"\n") == 0);
  // A problem the bug does not run is refused before any GPU work.
  CHECK(run(chapter, {"--bug", "padding", "--problem", "conv1d"}, &out, &err) ==
        course::kExitUsage);
  CHECK(err == "error: --problem: planted bug \"padding\" has no conv1d kernel\n");
  // A chapter that registers a bug wrongly says so at once, whatever the command line.
  course::Chapter wrong = chapter;
  wrong.bugs.push_back(good_bug("no-barrier", "check"));
  CHECK(run(wrong, {"--help"}, &out, &err) == course::kExitError);
  CHECK(contains(err, "registers a planted bug \"no-barrier\": the name is registered twice"));
}

TEST_CASE("a failed check's hint names the exercises and the hint command", "[bugs][hints]") {
  course::Chapter chapter = bug_chapter();
  chapter.kernels_file = "chapters/09_test/kernels.cuh";
  chapter.exercises = {
      {"9.1", "matmul", "the index"}, {"9.2", "conv2d", "the halo"}, {"9.3", "matmul", "the loop"}};
  CHECK(course::exercise_hint(chapter, course::Problem::matmul) ==
        "hint: matmul is computed by EXERCISE 9.1 (the index), 9.3 (the loop) in "
        "chapters/09_test/kernels.cuh; levelled hints: scripts/hint.sh 9.1, scripts/hint.sh 9.3");
  CHECK(course::exercise_hint(chapter, course::Problem::conv1d).empty());
}
