// Planted bugs: --bug and --list-bugs on the command line, the registration a chapter makes, and
// what the executable prints and returns for them before any GPU work.
#include "catch.hpp"
#include "rejection.hpp"

#include "course/driver.hpp"

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

course::ChapterFlags bug_flags() {
  course::ChapterFlags flags;
  flags.tiles = {32, 16};
  flags.signal_demo = true;
  flags.bugs = {"no-barrier", "halo"};
  return flags;
}

course::Options parse(std::vector<std::string> args,
                      const course::ChapterFlags& flags = bug_flags()) {
  return course::testing::parse_args(std::move(args), flags);
}

std::string refusal(std::vector<std::string> args,
                    const course::ChapterFlags& flags = bug_flags()) {
  return course::testing::usage_refusal(std::move(args), flags);
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

TEST_CASE("the flag --bug takes a planted bug's name and --list-bugs takes no value",
          "[cli][bugs]") {
  CHECK(parse({}).bug.empty());
  CHECK_FALSE(parse({}).list_bugs);
  CHECK(parse({"--bug", "halo"}).bug == "halo");
  CHECK(parse({"--bug=no-barrier", "-m", "64"}).bug == "no-barrier");
  CHECK(parse({"--list-bugs"}).list_bugs);
  // A planted bug goes with sizes, problems and timing flags.
  const course::Options options = parse({"--bug", "halo", "--problem", "conv2d", "--no-compare"});
  CHECK(options.bug == "halo");
  CHECK(options.problems.size() == 1);
}

TEST_CASE("the flag --bug refuses an unknown name with the names it takes", "[cli][bugs]") {
  const std::string unknown = refusal({"--bug", "halo2"});
  CHECK(unknown.find("--bug") != std::string::npos);
  CHECK(unknown.find("\"halo2\"") != std::string::npos);
  CHECK(unknown.find("no-barrier, halo") != std::string::npos);
  CHECK(unknown.find('\n') == std::string::npos);
  CHECK(refusal({"--bug", ""}).find("--bug: ") == 0);
  CHECK(refusal({"--bug"}).find("--bug: a value is required") == 0);
  CHECK(refusal({"--list-bugs=1"}).find("--list-bugs: takes no value") == 0);
  // A chapter without planted bugs refuses every name.
  const std::string none = refusal({"--bug", "halo"}, course::ChapterFlags{});
  CHECK(none.find("plants no bugs") != std::string::npos);
  CHECK(none.find("\"halo\"") != std::string::npos);
}

TEST_CASE("a planted bug runs its own launch: launch choices and the demo are refused with it",
          "[cli][bugs]") {
  CHECK(refusal({"--bug", "halo", "--tile", "16"}).find("--tile") != std::string::npos);
  CHECK(refusal({"--tile", "16", "--bug", "halo"}).find("--bug") == 0);
  CHECK(refusal({"--bug", "halo", "--signal-csv", "x.csv"}).find("--signal-csv \"x.csv\"") !=
        std::string::npos);
  CHECK(refusal({"--tile", "16"}).empty());
}

TEST_CASE("usage names --bug with the chapter's bugs, and --list-bugs", "[cli][bugs]") {
  const std::string text = course::usage("ch", bug_flags());
  CHECK(text.find("--bug NAME") != std::string::npos);
  CHECK(text.find("no-barrier, halo") != std::string::npos);
  CHECK(text.find("--list-bugs") != std::string::npos);
  const std::string none = course::usage("ch", course::ChapterFlags{});
  CHECK(none.find("(this chapter has none)") != std::string::npos);
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
    CHECK(course::planted_bugs_error(Bugs{good_bug("b", tool)}).find("tool") != std::string::npos);
  }
  CHECK_FALSE(course::planted_bugs_error(Bugs{good_bug("", "check")}).empty());
  CHECK_FALSE(course::planted_bugs_error(Bugs{good_bug("-x", "check")}).empty());
  CHECK_FALSE(course::planted_bugs_error(Bugs{good_bug("two words", "check")}).empty());
  CHECK(course::planted_bugs_error(Bugs{good_bug("a", "check"), good_bug("a", "memcheck")})
            .find("twice") != std::string::npos);
  course::PlantedBug tabbed = good_bug("a", "check");
  tabbed.summary = "one\ttwo";
  CHECK_FALSE(course::planted_bugs_error(Bugs{tabbed}).empty());
  course::PlantedBug silent = good_bug("a", "check");
  silent.summary.clear();
  CHECK_FALSE(course::planted_bugs_error(Bugs{silent}).empty());
  course::PlantedBug idle = good_bug("a", "check");
  idle.launchers = {};
  CHECK(course::planted_bugs_error(Bugs{idle}).find("no launcher") != std::string::npos);
}

TEST_CASE("the flag --list-bugs prints NAME, TOOL and summary, tab-separated, a line each",
          "[bugs]") {
  const course::Chapter chapter = bug_chapter();
  CHECK(course::bug_list(chapter.bugs) ==
        "no-barrier\tracecheck\tthe product reads a tile nobody finished writing\n"
        "padding\tncu:l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum\t"
        "the product reads a tile nobody finished writing\n");
  std::string out, err;
  CHECK(run(chapter, {"--list-bugs"}, &out, &err) == course::kExitPass);
  CHECK(out == course::bug_list(chapter.bugs));
  CHECK(err.empty());
  course::Chapter none = chapter;
  none.bugs.clear();
  CHECK(run(none, {"--list-bugs"}, &out, &err) == course::kExitPass);
  CHECK(out.empty());
}

TEST_CASE("the executable lists its bugs in --help and refuses an unknown one", "[bugs]") {
  const course::Chapter chapter = bug_chapter();
  std::string out, err;
  CHECK(run(chapter, {"--help"}, &out, &err) == course::kExitPass);
  CHECK(out.find("--bug NAME") != std::string::npos);
  CHECK(out.find("Planted bugs") != std::string::npos);
  CHECK(out.find("  no-barrier: the product reads") != std::string::npos);
  CHECK(out.find("caught by racecheck") != std::string::npos);

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
  CHECK(err.find("registers a planted bug \"no-barrier\": the name is registered twice") !=
        std::string::npos);
}

TEST_CASE("a failed check's hint names the exercises and the hint command", "[bugs][hints]") {
  course::Chapter chapter = bug_chapter();
  chapter.kernels_file = "chapters/09_test/kernels.cuh";
  const course::Exercise exercises[] = {
      {"9.1", "matmul", "the index"}, {"9.2", "conv2d", "the halo"}, {"9.3", "matmul", "the loop"}};
  chapter.exercises.assign(std::begin(exercises), std::end(exercises));
  CHECK(course::exercise_hint(chapter, course::Problem::matmul) ==
        "hint: matmul is computed by EXERCISE 9.1 (the index), 9.3 (the loop) in "
        "chapters/09_test/kernels.cuh; levelled hints: scripts/hint.sh 9.1, scripts/hint.sh 9.3");
  CHECK(course::exercise_hint(chapter, course::Problem::conv1d).empty());
}
