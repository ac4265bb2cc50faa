#include "gpu_support.hpp"

#include "course/device_info.hpp"
#include "course/driver.hpp"
#include "course/random.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace course::testing {
namespace {

constexpr std::uint64_t kDefaultTestSeed = 7;

bool chapter_requested(const std::string& chapter_label) {
  const char* wanted = std::getenv("COURSE_CHECK");
  if (wanted == nullptr)
    return false;
  std::istringstream names(wanted);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (name == chapter_label || name == "all")
      return true;
  }
  return false;
}

CheckResult run_instance(const ProblemInstance& instance, const ProblemSet& set,
                         const LaunchOptions& options) {
  return instance.check(instance.checked_run(set, options, nullptr));
}

}  // namespace

bool gpu_tests_enabled(const char* chapter_label, bool solution) {
  if (!solution && !chapter_requested(chapter_label)) {
    std::cout << "SKIPPED: your own " << chapter_label
              << " kernels are checked on request: COURSE_CHECK=" << chapter_label
              << " ctest --test-dir <build> -L " << chapter_label << "\n";
    return false;
  }
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::cout << "SKIPPED: no CUDA device (" << reason << ")\n";
    return false;
  }
  return true;
}

std::uint64_t test_seed(std::initializer_list<long long> parts) {
  const char* text = std::getenv("COURSE_TEST_SEED");
  std::uint64_t seed = text != nullptr ? std::strtoull(text, nullptr, 10) : kDefaultTestSeed;
  for (long long part : parts)
    seed = derive_seed(seed, static_cast<std::uint64_t>(part));
  return seed;
}

CheckResult run_product(ProductLauncher launcher, Problem problem, int m, int n, int k,
                        std::uint64_t seed, const LaunchOptions& options) {
  Options sizes;
  sizes.m = m;
  sizes.n = n;
  sizes.k = k;
  sizes.seed = seed;
  ProblemSet set;
  (problem == Problem::minplus ? set.minplus : set.matmul) = launcher;
  return run_instance(ProblemInstance(problem, sizes), set, options);
}

CheckResult run_conv2d(Conv2dLauncher launcher, int h, int w, int mk, int ml, std::uint64_t seed,
                       const LaunchOptions& options) {
  Options sizes;
  sizes.height = h;
  sizes.width = w;
  sizes.mask_rows = mk;
  sizes.mask_cols = ml;
  sizes.seed = seed;
  ProblemSet set;
  set.conv2d = launcher;
  return run_instance(ProblemInstance(Problem::conv2d, sizes), set, options);
}

CheckResult run_conv1d(Conv1dLauncher launcher, int n, int m, std::uint64_t seed,
                       const LaunchOptions& options) {
  Options sizes;
  sizes.signal_length = n;
  sizes.taps = m;
  sizes.seed = seed;
  ProblemSet set;
  set.conv1d = launcher;
  return run_instance(ProblemInstance(Problem::conv1d, sizes), set, options);
}

}  // namespace course::testing
