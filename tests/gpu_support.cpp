#include "gpu_support.hpp"

#include "catch.hpp"

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

CheckResult run_workload(const ProblemSet& set, const Workload& workload, std::uint64_t seed) {
  const ProblemInstance instance(workload, seed);
  return instance.check(instance.checked_run(set, nullptr), set.arithmetic);
}

CheckResult run_product(const ProductLauncher& launcher, Problem problem, int m, int n, int k,
                        std::uint64_t seed) {
  const ProblemSet set = problem == Problem::minplus ? ProblemSet{{}, launcher, {}, {}}
                                                     : ProblemSet{launcher, {}, {}, {}};
  return run_workload(set, product_workload(problem, m, n, k), seed);
}

CheckResult run_conv2d(const Conv2dLauncher& launcher, int h, int w, int mk, int ml,
                       std::uint64_t seed) {
  return run_workload(ProblemSet{{}, {}, launcher, {}}, conv2d_workload(h, w, mk, ml), seed);
}

CheckResult run_conv1d(const Conv1dLauncher& launcher, int n, int m, std::uint64_t seed) {
  return run_workload(ProblemSet{{}, {}, {}, launcher}, conv1d_workload(n, m), seed);
}

void check_products(const ProblemSet& set, int m, int n, int k, long long salt) {
  REQUIRE((set.offers(Problem::matmul) || set.offers(Problem::minplus)));
  const auto seed = test_seed({salt, m, n, k});
  INFO("m " << m << " n " << n << " k " << k << ", seed " << seed);
  for (Problem problem : {Problem::matmul, Problem::minplus}) {
    if (!set.offers(problem))
      continue;
    const CheckResult result = run_workload(set, product_workload(problem, m, n, k), seed);
    INFO(problem_name(problem) << ": " << result.summary(n));
    CHECK(result.passed);
  }
}

void check_products(const ProductLauncher& matmul, const ProductLauncher& minplus, int m, int n,
                    int k, long long salt) {
  check_products(ProblemSet{matmul, minplus, {}, {}}, m, n, k, salt);
}

void check_products_at_course_sizes(const ProblemSet& set) {
  for (int s : kAwkwardSizes)
    check_products(set, s, s, s, 1);
  for (const auto& shape : kNonSquareShapes)
    check_products(set, shape.m, shape.n, shape.k, 2);
}

void check_products_at_course_sizes(const ProductLauncher& matmul, const ProductLauncher& minplus) {
  check_products_at_course_sizes(ProblemSet{matmul, minplus, {}, {}});
}

void check_conv2d(const Conv2dLauncher& conv2d, const std::vector<ImageShape>& images,
                  const std::vector<MaskShape>& masks) {
  for (const auto& image : images) {
    for (const auto& mask : masks) {
      const auto seed = test_seed({3, image.h, image.w, mask.mk, mask.ml});
      INFO("image " << image.h << "x" << image.w << " mask " << mask.mk << "x" << mask.ml
                    << ", seed " << seed);
      const CheckResult result = run_conv2d(conv2d, image.h, image.w, mask.mk, mask.ml, seed);
      INFO(result.summary(image.w));
      CHECK(result.passed);
    }
  }
}

void check_conv1d(const Conv1dLauncher& conv1d, const std::vector<Conv1dShape>& shapes) {
  for (const auto& sizes : shapes) {
    const auto seed = test_seed({4, sizes.n, sizes.m});
    INFO("n " << sizes.n << " m " << sizes.m << ", seed " << seed);
    const CheckResult result = run_conv1d(conv1d, sizes.n, sizes.m, seed);
    INFO(result.summary());
    CHECK(result.passed);
  }
}

}  // namespace course::testing
