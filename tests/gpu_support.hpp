// Helpers shared by the GPU tests of every chapter: deciding whether GPU tests run here, seeds,
// and running one launcher on fresh random inputs with a poisoned output.
#pragma once

#include "course/check.hpp"
#include "course/launch.cuh"
#include "course/problems.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>

namespace course::testing {

/// True when GPU tests can run here. Otherwise prints "SKIPPED: <reason>" (which CTest turns into
/// a skip) and returns false. A student's chapter (@p solution false) runs only when the
/// environment variable COURSE_CHECK names @p chapter_label ("ch01") or is "all".
bool gpu_tests_enabled(const char* chapter_label, bool solution);

/// A seed for one test input: COURSE_TEST_SEED (or a fixed default) mixed with @p parts (sizes),
/// so every size gets its own fresh inputs and any failure can be replayed.
std::uint64_t test_seed(std::initializer_list<long long> parts);

/// Runs @p launcher for @p problem (matmul or minplus) at m x n x k on seeded random inputs with
/// a poisoned output and returns the comparison with the CPU reference.
CheckResult run_product(ProductLauncher launcher, Problem problem, int m, int n, int k,
                        std::uint64_t seed, const LaunchOptions& options = {});

/// Same for conv2d: an h x w image and an mk x ml mask.
CheckResult run_conv2d(Conv2dLauncher launcher, int h, int w, int mk, int ml, std::uint64_t seed,
                       const LaunchOptions& options = {});

/// Same for conv1d: n samples and m taps.
CheckResult run_conv1d(Conv1dLauncher launcher, int n, int m, std::uint64_t seed,
                       const LaunchOptions& options = {});

}  // namespace course::testing

#ifdef COURSE_SOLUTION_EDITION
#define COURSE_TEST_IS_SOLUTION true
#else
#define COURSE_TEST_IS_SOLUTION false
#endif

/// First line of every GPU test case: returns (as a skip) when GPU tests cannot run here.
#define COURSE_REQUIRE_GPU()                                                                  \
  do {                                                                                        \
    if (!::course::testing::gpu_tests_enabled(COURSE_CHAPTER_LABEL, COURSE_TEST_IS_SOLUTION)) \
      return;                                                                                 \
  } while (false)
