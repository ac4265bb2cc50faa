// What a chapter takes, as --help and the README's table describe it, agrees with what its command
// line accepts: every size, mask, tile and block that the parser refuses is absent from the
// description, and every one it accepts is there.
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

bool accepted(std::vector<std::string> args, const course::ChapterFlags& flags) {
  return course::testing::usage_refusal(std::move(args), flags).empty();
}

bool mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// The numbers of the clause of @p text that starts with @p label and ends at ';' or the end, e.g.
// {32, 16, 8} from "...; tile width 32 (default), 16 or 8; ...".
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
    const course::ChapterSupport support =
        course::describe_support(2, products_and_conv2d(), flags);
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

TEST_CASE("the description lists exactly the tiles and blocks offered", "[describe]") {
  course::ChapterFlags flags;
  flags.tiles = {32, 16, 8};
  flags.blocks = {32, 16};
  const course::ChapterSupport support = course::describe_support(3, products_and_conv2d(), flags);
  INFO(support.products << "\n" << support.conv2d);
  CHECK(mentions(support.products, "tile width 32 (default), 16 or 8"));
  CHECK(mentions(support.conv2d, "block width 32 (default) or 16"));
  const std::set<int> tiles = listed(support.products, "tile width ");
  const std::set<int> blocks = listed(support.conv2d, "block width ");
  CHECK(tiles.size() == 3);
  for (int width = 1; width <= 64; ++width) {
    INFO("width " << width);
    CHECK(accepted({"--tile", std::to_string(width)}, flags) == (tiles.count(width) == 1));
    CHECK(accepted({"--block", std::to_string(width)}, flags) == (blocks.count(width) == 1));
  }
  CHECK_FALSE(mentions(support.products, "mapping"));
  CHECK_FALSE(accepted({"--mapping", "transposed"}, flags));
}

TEST_CASE("the description lists exactly the kernel variants offered", "[describe]") {
  course::ChapterFlags flags;
  flags.variants = {"prefetch", "float4", "plain"};
  const course::ChapterSupport support = course::describe_support(4, products_and_conv2d(), flags);
  INFO(support.products);
  CHECK(mentions(support.products, "kernel variant prefetch (default), float4 or plain"));
  for (const char* variant : {"prefetch", "float4", "plain"}) {
    INFO("--variant " << variant);
    CHECK(accepted({"--variant", variant}, flags));
  }
  CHECK_FALSE(accepted({"--variant", "cp.async"}, flags));
  CHECK_FALSE(mentions(course::describe_support(4, products_and_conv2d(), {}).products, "variant"));
}

TEST_CASE("the description names the problems the chapter has and the tap limit", "[describe]") {
  course::ChapterFlags flags;
  flags.max_taps = 4096;
  course::ProblemSet set = products_and_conv2d();
  course::ChapterSupport support = course::describe_support(2, set, flags);
  CHECK(support.conv1d == "-");
  CHECK(mentions(course::support_table_row(support), "| 2 | matmul, minplus, conv2d | "));
  CHECK(mentions(course::support_help(support), "conv1d            not in this chapter"));

  set.conv1d = [](const float*, int, const float*, int, float*, cudaStream_t) {};
  set.conv2d = nullptr;
  support = course::describe_support(3, set, flags);
  CHECK(support.conv2d == "-");
  CHECK(mentions(support.conv1d, "taps from 1 to 4096"));
  CHECK(accepted({"--taps", "4096"}, flags));
  CHECK_FALSE(accepted({"--taps", "4097"}, flags));
  CHECK(mentions(course::support_table_row(support), "| 3 | matmul, minplus, conv1d | "));
}

TEST_CASE("the description lists exactly the tap counts compiled in", "[describe]") {
  course::ChapterFlags flags;
  flags.tap_counts = {127, 1, 3, 7, 15, 31, 63};
  flags.max_taps = 4096;  // no say where the counts are compiled in
  course::ProblemSet set = products_and_conv2d();
  set.conv1d = [](const float*, int, const float*, int, float*, cudaStream_t) {};
  const course::ChapterSupport support = course::describe_support(2, set, flags);
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

TEST_CASE("the Markdown table has one column per description field", "[describe]") {
  const course::ChapterSupport support =
      course::describe_support(1, products_and_conv2d(), course::ChapterFlags{});
  const auto columns = [](const std::string& line) {
    return std::count(line.begin(), line.end(), '|');
  };
  const std::string header = course::support_table_header();
  const std::string first_line = header.substr(0, header.find('\n'));
  CHECK(columns(first_line) == columns(course::support_table_row(support)));
}

TEST_CASE("the exercise list has one tab-separated line per exercise", "[describe]") {
  const course::Exercise exercises[] = {{"1.1", "matmul", "which output"},
                                        {"1.2", "conv1d", "the taps"}};
  CHECK(course::exercise_list({std::begin(exercises), std::end(exercises)}) ==
        "1.1\tmatmul\twhich output\n1.2\tconv1d\tthe taps\n");
}

TEST_CASE("a chapter whose matmul runs on TF32 tensor cores says so", "[describe]") {
  course::ChapterFlags flags;
  course::ProblemSet set = products_and_conv2d();
  CHECK_FALSE(mentions(course::describe_support(5, set, flags).products, "TF32"));
  set.arithmetic = course::Arithmetic::tf32;
  CHECK(mentions(course::describe_support(6, set, flags).products, "TF32 tensor cores"));
}
