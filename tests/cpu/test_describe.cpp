// What a chapter takes, as --help and the README's table describe it, agrees with what its command
// line accepts: every size, mask and launch choice that the parser refuses is absent from the
// description, and every one it accepts is there. The launch choices are made up (--lanes,
// --stride: no chapter has them), so that these tests are the description's, not a chapter's.
#include "catch.hpp"
#include "rejection.hpp"

#include "course/describe.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

// A ProblemSet that only answers offers(): the description never calls its launchers.
course::ProblemSet products_and_conv2d() {
  course::ProblemSet set;
  set.matmul = [](const float*, const float*, float*, int, int, int, cudaStream_t) {};
  set.minplus = set.matmul;
  set.conv2d = [](const float*, int, int, const float*, int, int, float*, cudaStream_t) {};
  return set;
}

// A chapter with @p flags and the launchers of @p set, as describe_support() reads it.
course::ChapterSupport support_of(const course::ChapterFlags& flags,
                                  const course::ProblemSet& set = products_and_conv2d()) {
  course::Chapter chapter;
  chapter.number = 2;
  chapter.flags = flags;
  return course::describe_support(chapter, set);
}

bool accepted(std::vector<std::string> args, const course::ChapterFlags& flags) {
  return course::testing::usage_refusal(std::move(args), flags).empty();
}

bool mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// The numbers of the clause of @p text that starts with @p label and ends at ';' or the end, e.g.
// {32, 16, 8} from "...; lane count 32 (default), 16 or 8; ...".
std::set<int> listed(const std::string& text, const std::string& label) {
  std::set<int> numbers;
  const std::size_t start = text.find(label);
  if (start == std::string::npos)
    return numbers;
  const std::string clause = text.substr(start, text.find(';', start) - start);
  const std::regex number(R"(\d+)");
  for (std::sregex_iterator it(clause.begin(), clause.end(), number), end; it != end; ++it)
    numbers.insert(std::stoi(it->str()));
  return numbers;
}

}  // namespace

TEST_CASE("the description lists exactly the masks the command line accepts", "[describe]") {
  course::ChapterFlags compiled;
  compiled.mask_sides = {13, 1, 3, 5};
  for (const course::ChapterFlags& flags : {compiled, course::ChapterFlags{}}) {
    const course::ChapterSupport support = support_of(flags);
    INFO(support.conv2d);
    for (int side = 1; side <= course::kMaxMaskSide + 2; side += 2) {
      const std::string square = std::to_string(side) + "x" + std::to_string(side);
      INFO("mask " << square);
      const bool listed = flags.mask_sides.empty()
                              ? side <= course::kMaxMaskSide && mentions(support.conv2d, "any odd")
                              : mentions(support.conv2d, " " + square);
      CHECK(accepted({"--mask", square}, flags) == listed);
    }
    CHECK(accepted({"--mask", "3x5"}, flags) == !mentions(support.conv2d, "square only"));
  }
}

TEST_CASE("the description lists exactly the launch choices offered", "[describe]") {
  course::ChapterFlags flags;
  flags.options = {
      course::number_option("--lanes", "lane count", {32, 16, 8},
                            {course::Problem::matmul, course::Problem::minplus}, "lanes"),
      course::number_option("--stride", "stride", {32, 16}, {course::Problem::conv2d}, "stride")};
  const course::ChapterSupport support = support_of(flags);
  INFO(support.products << "\n" << support.conv2d);
  CHECK(mentions(support.products, "; lane count 32 (default), 16 or 8"));
  CHECK_FALSE(mentions(support.products, "stride"));
  CHECK(mentions(support.conv2d, "; stride 32 (default) or 16"));
  CHECK_FALSE(mentions(support.conv2d, "lane"));
}

TEST_CASE("the description names the problems the chapter has and the tap limit", "[describe]") {
  course::ChapterFlags flags;
  flags.max_taps = 4096;
  course::ProblemSet set = products_and_conv2d();
  course::ChapterSupport support = support_of(flags, set);
  CHECK(support.conv1d == "-");
  CHECK(mentions(course::support_help(support), "conv1d            not in this chapter"));

  set.conv1d = [](const float*, int, const float*, int, float*, cudaStream_t) {};
  set.conv2d = nullptr;
  support = support_of(flags, set);
  CHECK(support.conv2d == "-");
  CHECK(mentions(support.conv1d, "taps from 1 to 4096"));
  CHECK(accepted({"--taps", "4096"}, flags));
  CHECK_FALSE(accepted({"--taps", "4097"}, flags));
}

TEST_CASE("the description lists exactly the tap counts compiled in", "[describe]") {
  course::ChapterFlags flags;
  flags.tap_counts = {127, 1, 3, 7, 15, 31, 63};
  flags.max_taps = 4096;  // no say where the counts are compiled in
  course::ProblemSet set = products_and_conv2d();
  set.conv1d = [](const float*, int, const float*, int, float*, cudaStream_t) {};
  const course::ChapterSupport support = support_of(flags, set);
  INFO(support.conv1d);
  CHECK(support.conv1d ==
        "n from 1; taps compiled in: 1, 3, 7, 15, 31, 63, 127; n + taps - 1 at "
        "most 2147483647");
  CHECK(mentions(course::support_help(support), "taps compiled in: 1, 3, 7, 15, 31, 63, 127"));
  const std::set<int> counts = listed(support.conv1d, "taps compiled in: ");
  CHECK(counts.size() == flags.tap_counts.size());
  for (int taps = 1; taps <= 300; ++taps) {
    INFO("taps " << taps);
    CHECK(accepted({"--taps", std::to_string(taps)}, flags) == (counts.count(taps) == 1));
  }
  CHECK_FALSE(accepted({"--taps", "4096"}, flags));
}
