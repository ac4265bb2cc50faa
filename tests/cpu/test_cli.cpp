// The shared command line: good values parse, every bad value is refused with the flag named.
#include "catch.hpp"
#include "rejection.hpp"

#include "course/driver.hpp"

#include <string>
#include <vector>

namespace {

course::ChapterFlags all_flags() {
  course::ChapterFlags flags;
  flags.tiles = {8, 16, 32};
  flags.blocks = {16, 32};
  flags.mapping = true;
  flags.variants = {"plain", "dispatch"};
  flags.signal_demo = true;
  flags.max_taps = 4096;
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
  const auto options = parse({"-m",         "33",
                              "-n",         "65",
                              "-k",         "17",
                              "--problem",  "matmul,conv1d",
                              "--mask",     "3x5",
                              "--taps",     "4096",
                              "--tile",     "16",
                              "--block",    "32",
                              "--mapping",  "transposed",
                              "--warmup",   "0",
                              "--variant",  "dispatch",
                              "--reps",     "3",
                              "--seed",     "18446744073709551615",
                              "--no-check", "--csv",
                              "--height=7", "--width",
                              "9",          "--no-compare"});
  CHECK(options.m == 33);
  CHECK(options.n == 65);
  CHECK(options.signal_length == 65);  // -n is the conv1d signal length too
  CHECK(options.k == 17);
  CHECK(options.problems ==
        std::vector<course::Problem>{course::Problem::matmul, course::Problem::conv1d});
  CHECK(options.mask_rows == 3);
  CHECK(options.mask_cols == 5);
  CHECK(options.taps == 4096);
  CHECK(options.launch.tile == 16);
  CHECK(options.launch.block == 32);
  CHECK(options.launch.mapping == course::ThreadMapping::transposed);
  CHECK(options.launch.variant == "dispatch");
  CHECK(parse({}).launch.variant.empty());  // the chapter's default, filled in by the driver
  CHECK(options.warmup == 0);
  CHECK(options.reps == 3);
  CHECK(options.seed == 18446744073709551615ull);
  CHECK_FALSE(options.check);
  CHECK_FALSE(options.compare);
  CHECK(options.csv);
  CHECK(options.height == 7);
  CHECK(options.width == 9);
  CHECK(parse({"--mask", "7"}).mask_cols == 7);
  CHECK(parse({"--problem", "all"}).problems.empty());
  CHECK(parse({"--help"}).help);
  CHECK(parse({"--exercises"}).list_exercises);
  CHECK(parse({"--supports-table"}).supports_table);
  CHECK_FALSE(parse({}).list_exercises);
  CHECK_FALSE(parse({}).supports_table);
}

TEST_CASE("bad values are refused with the flag and the value named", "[cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string must_mention;
  };
  const std::vector<Case> cases = {
      {{"-m", "-5"}, "-m"},
      {{"-m", "0"}, "\"0\""},
      {{"-n", "abc"}, "\"abc\""},
      {{"-k", "12x"}, "\"12x\""},
      {{"-k", "99999999999"}, "\"99999999999\""},
      {{"-k", ""}, "-k"},
      {{"-k"}, "-k"},
      {{"--height", "1.5"}, "--height"},
      {{"--mask", "4"}, "\"4\""},
      {{"--mask", "0"}, "--mask"},
      {{"--mask", "3x4"}, "\"3x4\""},
      {{"--mask", "65x65"}, "--mask"},
      {{"--mask", "x3"}, "--mask"},
      {{"--taps", "4097"}, "4096"},
      {{"--taps", "0"}, "--taps"},
      {{"--tile", "12"}, "8, 16, 32"},
      {{"--block", "8"}, "--block"},
      {{"--mapping", "diagonal"}, "\"diagonal\""},
      {{"--variant", "fastest"}, "plain, dispatch"},
      {{"--variant", "Plain"}, "\"Plain\""},
      {{"--variant", ""}, "--variant"},
      {{"--variant"}, "--variant"},
      {{"--reps", "0"}, "--reps"},
      {{"--warmup", "-1"}, "--warmup"},
      {{"--seed", "-3"}, "--seed"},
      {{"--problem", "fft"}, "\"fft\""},
      {{"--problem", ""}, "--problem"},
      {{"--problem", "matmul,"}, "\"matmul,\""},
      {{"--frobnicate"}, "--frobnicate"},
      {{"--csv=yes"}, "--csv"},
      {{"--no-compare=1"}, "--no-compare: takes no value"},
      {{"--exercises=1"}, "--exercises: takes no value"},
      {{"--supports-table=yes"}, "--supports-table: takes no value"},
      {{"-n", "2147483647", "--taps", "2"}, "n + m - 1"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args)
      joined += a + " ";
    INFO("arguments: " << joined);
    const std::string message = refusal(c.args);
    INFO("message: " << message);
    CHECK_FALSE(message.empty());
    CHECK(message.find(c.must_mention) != std::string::npos);
  }
}

TEST_CASE("chapter-specific flags exist only where the chapter offers them", "[cli]") {
  const course::ChapterFlags none;
  CHECK_THROWS_AS(parse({"--tile", "16"}, none), course::UsageError);
  CHECK_THROWS_AS(parse({"--mapping", "coalesced"}, none), course::UsageError);
  CHECK_THROWS_AS(parse({"--variant", "plain"}, none), course::UsageError);
  CHECK_THROWS_AS(parse({"--signal-csv", "x.csv"}, none), course::UsageError);
  course::ChapterFlags compiled_masks;
  compiled_masks.mask_sides = {3, 5, 7, 13};
  CHECK(parse({"--mask", "5"}, compiled_masks).mask_rows == 5);
  CHECK_THROWS_AS(parse({"--mask", "9"}, compiled_masks), course::UsageError);
  CHECK_THROWS_AS(parse({"--mask", "3x5"}, compiled_masks), course::UsageError);
}

TEST_CASE("a chapter with compiled tap counts takes only those", "[cli]") {
  course::ChapterFlags compiled_taps;
  compiled_taps.tap_counts = {7, 3, 1};
  compiled_taps.max_taps = 4096;              // the list decides where there is one
  CHECK(parse({}, compiled_taps).taps == 7);  // the first is the default
  CHECK(parse({"--taps", "3"}, compiled_taps).taps == 3);
  CHECK(parse({"--taps=1"}, compiled_taps).taps == 1);
  for (const char* taps : {"5", "2", "127", "4096", "0", "-3", "x"}) {
    INFO("--taps " << taps);
    const std::string message = refusal({"--taps", taps}, compiled_taps);
    INFO("message: " << message);
    CHECK(message.rfind("--taps: ", 0) == 0);
    CHECK(message.find("\"" + std::string(taps) + "\"") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  CHECK(refusal({"--taps", "5"}, compiled_taps) ==
        "--taps: this chapter has compiled tap counts 7, 3, 1 only; chapter 3 "
        "takes any tap count at run time, got \"5\"");
  CHECK(refusal({"--taps", "0"}, compiled_taps).find("expected a whole number") !=
        std::string::npos);
  // The output length n + taps - 1 counts the default taps too.
  CHECK(parse({"-n", "2147483641"}, compiled_taps).signal_length == 2147483641);
  CHECK_THROWS_AS(parse({"-n", "2147483642"}, compiled_taps), course::UsageError);
  CHECK(parse({"-n", "2147483642", "--taps", "1"}, compiled_taps).taps == 1);
  // Without a list: any count up to max_taps, or any count at all.
  CHECK(parse({"--taps", "5"}).taps == 5);
  CHECK(parse({"--taps", "100000"}, course::ChapterFlags{}).taps == 100000);
}

TEST_CASE("usage lists the flags the chapter offers", "[cli]") {
  const std::string text = course::usage("ch", all_flags());
  for (const char* flag : {"--problem", "--tile", "--block", "--mapping", "--variant",
                           "--signal-csv", "--reps", "--warmup", "--seed", "--no-check",
                           "--no-compare", "--csv", "--exercises", "--supports-table", "--help"}) {
    INFO(flag);
    CHECK(text.find(flag) != std::string::npos);
  }
  CHECK(text.find("plain, dispatch") != std::string::npos);
  const std::string plain = course::usage("ch", course::ChapterFlags{});
  CHECK(plain.find("--tile") == std::string::npos);
  CHECK(plain.find("--variant") == std::string::npos);
  // The reliability harness reads the variants from this line (tests/reliability/common.cmake).
  CHECK(
      text.find("--variant V       kernel variant: plain, dispatch (the first is the default)\n") !=
      std::string::npos);
  // ... and the tap counts or the tap limit from the --taps line.
  CHECK(text.find("  --taps M          conv1d mask length (default 127, at most 4096)\n") !=
        std::string::npos);
  CHECK(plain.find("  --taps M          conv1d mask length (default 127)\n") != std::string::npos);
  course::ChapterFlags compiled = all_flags();
  compiled.tap_counts = {127, 1, 3, 7, 15, 31, 63};
  const std::string listed = course::usage("ch", compiled);
  CHECK(listed.find("  --taps M          conv1d mask length, compiled in: 127, 1, 3, 7, 15, 31, "
                    "63 (default 127)\n") != std::string::npos);
  CHECK(listed.find("at most") == std::string::npos);
}

TEST_CASE("the driver fills in the default choices and names the variant in reports", "[cli]") {
  const course::ChapterFlags flags = all_flags();
  const course::LaunchOptions defaults = course::chosen_launch(parse({}), flags);
  CHECK(defaults.tile == 8);
  CHECK(defaults.block == 16);
  CHECK(defaults.variant == "plain");
  CHECK(course::describe_variant(course::Problem::conv2d, defaults, flags) ==
        "block=16 variant=plain");
  const course::LaunchOptions chosen =
      course::chosen_launch(parse({"--variant", "dispatch", "--tile", "32"}), flags);
  CHECK(chosen.variant == "dispatch");
  CHECK(course::describe_variant(course::Problem::conv1d, chosen, flags) == "variant=dispatch");
  // No --variant in the chapter: nothing filled in, nothing reported.
  course::ChapterFlags tiles_only;
  tiles_only.tiles = {32, 16};
  const course::LaunchOptions plain = course::chosen_launch(parse({}, tiles_only), tiles_only);
  CHECK(plain.variant.empty());
  CHECK(course::describe_variant(course::Problem::matmul, plain, tiles_only) == "tile=32");
}
