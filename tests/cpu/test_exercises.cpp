// Every student file with exercise regions equals its solution outside the marked regions, so the
// two never drift apart; every region is in the exercise table and the lesson.
#include "catch.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <iterator>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Stripped {
  std::vector<std::string> lines;  // the file with each region's body removed
  std::vector<std::string> ids;    // region ids in order
  std::string error;               // empty when the markers are well formed
};

Stripped strip_regions(const fs::path& file) {
  static const std::regex begin(R"(^\s*// EXERCISE (\d+\.\d+) begin\b.*)");
  static const std::regex end(R"(^\s*// EXERCISE (\d+\.\d+) end\b.*)");
  Stripped result;
  std::ifstream in(file);
  std::string line;
  std::string open;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::smatch match;
    if (std::regex_match(line, match, begin)) {
      if (!open.empty())
        result.error = "nested region at line " + std::to_string(number);
      open = match[1];
      result.ids.push_back(open);
    } else if (std::regex_match(line, match, end)) {
      if (open != match[1].str())
        result.error = "unmatched end at line " + std::to_string(number);
      open.clear();
    } else if (!open.empty()) {
      continue;  // a region's body
    }
    result.lines.push_back(line);
  }
  if (!open.empty())
    result.error = "region " + open + " is never closed";
  return result;
}

using Names = std::set<std::string>;

// The exercise ids that @p pattern's first group captures in @p file.
Names ids_in(const fs::path& file, const std::regex& pattern) {
  std::ifstream in(file);
  const std::string contents{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  Names ids;
  for (std::sregex_iterator it(contents.begin(), contents.end(), pattern), end; it != end; ++it)
    ids.insert((*it)[1]);
  return ids;
}

// The subfolders (@p folders true) or the files of @p folder, by name.
Names entries(const fs::path& folder, bool folders) {
  Names names;
  if (fs::is_directory(folder)) {
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (folders ? entry.is_directory() : entry.is_regular_file())
        names.insert(entry.path().filename().string());
    }
  }
  return names;
}

// The files of @p folder that have exercise regions.
Names files_with_regions(const fs::path& folder) {
  Names files;
  for (const auto& file : entries(folder, false)) {
    if (!strip_regions(folder / file).ids.empty())
      files.insert(file);
  }
  return files;
}

const fs::path kSource = COURSE_SOURCE_DIR;

}  // namespace

TEST_CASE("student files equal the solutions outside the exercise regions", "[exercises]") {
  // Every file of solutions/NN_slug/ with exercise regions (kernels.cuh, chapter 1's
  // first_program.cu) against the file of the same name in chapters/NN_slug/, and every student
  // file with regions has its solution. A student's hand-out has no solutions/ to compare with.
  if (!fs::exists(kSource / "solutions")) {
    std::cout << "SKIPPED: no solutions/ folder here (a student's hand-out)\n";
    return;
  }
  const auto chapters = entries(kSource / "chapters", true);
  REQUIRE_FALSE(chapters.empty());
  for (const auto& name : chapters) {
    const fs::path students = kSource / "chapters" / name;
    const fs::path solutions = kSource / "solutions" / name;
    INFO("chapter " << name);
    REQUIRE(fs::exists(students / "kernels.cuh"));
    REQUIRE(fs::exists(solutions / "kernels.cuh"));
    const Names files = files_with_regions(solutions);
    for (const auto& file : files_with_regions(students)) {
      INFO("student file " << file << " has exercise regions, so it needs its solution");
      CHECK(files.count(file) == 1);
    }
    CHECK(files.count("kernels.cuh") == 1);
    for (const auto& file : files) {
      INFO("file " << file);
      REQUIRE(fs::exists(students / file));
      const Stripped s = strip_regions(students / file);
      const Stripped t = strip_regions(solutions / file);
      CHECK(s.error.empty());
      CHECK(t.error.empty());
      CHECK(s.ids == t.ids);
      const std::size_t common = std::min(s.lines.size(), t.lines.size());
      for (std::size_t i = 0; i < common; ++i) {
        INFO("first difference at stripped line " << i + 1 << ":\n  student:  " << s.lines[i]
                                                  << "\n  solution: " << t.lines[i]);
        REQUIRE(s.lines[i] == t.lines[i]);
      }
      CHECK(s.lines.size() == t.lines.size());
    }
  }
}

TEST_CASE("every exercise region is named in the exercise table and in the lesson", "[exercises]") {
  // kExercises entries look like {"1.5", "matmul", ...}, in any .cuh file of the chapter (its
  // launch.cuh); the lesson's table rows like "| 1.5 |". The table, which names the exercises
  // after a failed check, holds every region of the chapter's .cuh files (the executable's
  // kernels); a stand-alone program's regions (chapter 1's first_program.cu, which checks its own
  // result) may be left out of it. The lesson has a row for every region.
  static const std::regex region(R"(// EXERCISE (\d+\.\d+) begin)");
  static const std::regex hint(R"re(\{"(\d+\.\d+)", "(matmul|minplus|conv2d|conv1d)")re");
  static const std::regex lesson_row(R"((?:^|\n)\| (\d+\.\d+) \|)");
  const auto chapters = entries(kSource / "chapters", true);
  REQUIRE_FALSE(chapters.empty());
  for (const auto& name : chapters) {
    const fs::path folder = kSource / "chapters" / name;
    INFO("chapter " << name);
    Names all_regions, header_regions, table;
    for (const auto& file : entries(folder, false)) {
      const Names ids = ids_in(folder / file, region);
      all_regions.insert(ids.begin(), ids.end());
      if (fs::path(file).extension() == ".cuh") {
        header_regions.insert(ids.begin(), ids.end());
        const Names named = ids_in(folder / file, hint);
        table.insert(named.begin(), named.end());
      }
    }
    CHECK_FALSE(all_regions.empty());
    CHECK_FALSE(table.empty());
    for (const auto& id : header_regions) {
      INFO("region " << id << " of a .cuh file needs its row in kExercises");
      CHECK(table.count(id) == 1);
    }
    for (const auto& id : table) {
      INFO("kExercises names " << id << ", which has no region");
      CHECK(all_regions.count(id) == 1);
    }
    CHECK(ids_in(folder / "README.md", lesson_row) == all_regions);
  }
}

TEST_CASE("the region check notices a difference outside the regions", "[exercises]") {
  const fs::path dir = fs::temp_directory_path() / "course_exercise_check";
  fs::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
  };
  write("a.cuh", "x\n// EXERCISE 9.1 begin\nanything\n// EXERCISE 9.1 end\ny\n");
  write("b.cuh", "x\n// EXERCISE 9.1 begin\nsomething else\nand more\n// EXERCISE 9.1 end\ny\n");
  write("c.cuh", "x\n// EXERCISE 9.1 begin\n// EXERCISE 9.1 end\nz\n");
  write("d.cuh", "x\n// EXERCISE 9.1 begin\n");
  CHECK(strip_regions(dir / "a.cuh").lines == strip_regions(dir / "b.cuh").lines);
  CHECK(strip_regions(dir / "a.cuh").lines != strip_regions(dir / "c.cuh").lines);
  CHECK_FALSE(strip_regions(dir / "d.cuh").error.empty());
  fs::remove_all(dir);
}
