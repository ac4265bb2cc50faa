// CPU tests of the performance ladder's command line (scripts/ladder/options.hpp): its sizes and
// the flags it shares with the chapters' executables. The course's value parsers it uses
// (course/parse.hpp) refuse bad values of those flags in every executable: the bad-input table
// (tests/reliability) asks that of each.
#include "catch.hpp"

#include "options.hpp"

#include "course/parse.hpp"

#include <string>
#include <vector>

using course::Problem;
using course::Workload;

TEST_CASE("sizes on the command line are parsed strictly", "[ladder]") {
  CHECK(course::parse_count("--sizes", "2^24") == (1 << 24));
  CHECK(course::parse_count("--sizes", "1000") == 1000);
  for (const char* bad : {"0", "2^31", "3^4", "12a", ""})
    CHECK_THROWS_AS(course::parse_count("--sizes", bad), course::UsageError);

  CHECK(ladder::parse_sizes("matmul=1024,300x200x100", 13, 13, 127) ==
        std::vector<Workload>{course::product_workload(Problem::matmul, 1024, 1024, 1024),
                              course::product_workload(Problem::matmul, 300, 200, 100)});
  CHECK(ladder::parse_sizes("conv2d=512x256,512", 5, 3, 127) ==
        std::vector<Workload>{course::conv2d_workload(512, 256, 5, 3),
                              course::conv2d_workload(512, 512, 5, 3)});
  CHECK(ladder::parse_sizes("conv1d=2^20", 13, 13, 31) ==
        std::vector<Workload>{course::conv1d_workload(1 << 20, 31)});
  for (const char* bad :
       {"matmul", "gemm=1024", "matmul=", "matmul=10x20", "conv1d=10x20", "matmul=1024,"})
    CHECK_THROWS_AS(ladder::parse_sizes(bad, 13, 13, 127), course::UsageError);
}

TEST_CASE("the ladder's command line: quick runs, sizes, problems, refusals", "[ladder]") {
  const auto parse = [](std::vector<const char*> arguments) {
    arguments.insert(arguments.begin(), "ladder");
    return ladder::parse_command_line(static_cast<int>(arguments.size()), arguments.data());
  };
  const ladder::Options quick = parse({"--quick", "--reps", "5"});
  CHECK(quick.base.warmup == 1);  // the quick mode's, where none is given
  CHECK(quick.base.reps == 5);
  CHECK(quick.workloads == ladder::quick_workloads());
  const ladder::Options sized =
      parse({"--sizes", "conv2d=64x32", "--mask", "5x3", "--problem", "conv2d", "--csv", "a.csv"});
  REQUIRE(sized.workloads.size() == 1);
  CHECK((sized.workloads[0] == course::conv2d_workload(64, 32, 5, 3)));
  CHECK(sized.csv_path == "a.csv");
  CHECK(parse({"--problem", "conv1d"}).workloads.size() == 1);  // of the default sizes
  CHECK(parse({"--chapters", "4,6"}).chapters == std::vector<int>{4, 6});
  CHECK(parse({"--help"}).help);
  for (std::vector<const char*> bad : {std::vector<const char*>{"--no-readme"},
                                       {"--csv"},
                                       {"--chapters", "4,"},
                                       {"--warmup", "-1"},
                                       {"--mask", "4"}})
    CHECK_THROWS_AS(parse(bad), course::UsageError);
}
