// Whether a student's chapter is checked in this run: the tests built against a student's
// kernels.cuh (GPU and CPU alike) run only on request, when COURSE_CHECK names the chapter.
#pragma once

#include "course/parse.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

namespace course::testing {

/// True when the environment variable COURSE_CHECK names @p chapter_label ("ch06") or is "all"
/// (a comma-separated list: COURSE_CHECK=ch05,ch06).
inline bool chapter_requested(const std::string& chapter_label) {
  const char* wanted = std::getenv("COURSE_CHECK");
  if (wanted == nullptr)
    return false;
  for (const std::string& name : split(wanted, ',')) {
    if (name == chapter_label || name == "all")
      return true;
  }
  return false;
}

/// True when the tests of @p chapter_label built against this edition run: always against the
/// solution (@p solution), against a student's kernels only when chapter_requested(). Otherwise
/// prints "SKIPPED: <reason>" (which CTest turns into a skip) and returns false.
inline bool edition_checked(const char* chapter_label, bool solution) {
  if (solution || chapter_requested(chapter_label))
    return true;
  std::cout << "SKIPPED: your own " << chapter_label
            << " kernels are checked on request: COURSE_CHECK=" << chapter_label
            << " ctest --test-dir <build> -L " << chapter_label << "\n";
  return false;
}

}  // namespace course::testing

// Whether this test is built against the solution's kernels.cuh (course_use_kernels() defines
// COURSE_SOLUTION_EDITION for it) or a student's.
#ifdef COURSE_SOLUTION_EDITION
#define COURSE_TEST_IS_SOLUTION true
#else
#define COURSE_TEST_IS_SOLUTION false
#endif

/// First line of a CPU test case built against a kernels.cuh: returns (as a skip) unless
/// edition_checked() lets it run.
#define COURSE_REQUIRE_EDITION(chapter_label)                                        \
  do {                                                                               \
    if (!::course::testing::edition_checked(chapter_label, COURSE_TEST_IS_SOLUTION)) \
      return;                                                                        \
  } while (false)
