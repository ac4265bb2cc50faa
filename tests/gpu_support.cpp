#include "gpu_support.hpp"

#include "catch.hpp"

#include "course/device_info.hpp"
#include "course/measure.hpp"
#include "course/parse.hpp"
#include "course/random.hpp"

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iostream>

namespace course::testing {
namespace {

bool chapter_requested(const std::string& chapter_label) {
  const char* wanted = std::getenv("COURSE_CHECK");
  if (wanted == nullptr)
    return false;
  for (const std::string& name : split(wanted, ',')) {
    if (name == chapter_label || name == "all")
      return true;
  }
  return false;
}

// Runs @p set's launcher for @p workload on inputs seeded by @p seed, with a poisoned output, and
// checks the output against the CPU reference (the worst element in the message).
void check_workload(const ProblemSet& set, const Workload& workload, std::uint64_t seed) {
  const ProblemInstance instance(workload, seed);
  const CheckResult result = instance.check(instance.checked_run(set, nullptr), set.arithmetic);
  INFO(result.summary(instance.output_columns()));
  CHECK(result.passed);
}

// A seed for one test input: COURSE_TEST_SEED (default 7; parsed as strictly as --seed) mixed
// with @p parts (sizes), so every size gets its own fresh inputs and any failure can be replayed.
std::uint64_t test_seed(std::initializer_list<long long> parts) {
  const char* text = std::getenv("COURSE_TEST_SEED");
  std::uint64_t seed = text != nullptr ? parse_seed("COURSE_TEST_SEED", text) : 7;
  for (long long part : parts)
    seed = derive_seed(seed, static_cast<std::uint64_t>(part));
  return seed;
}

}  // namespace

bool student_tests_requested(const char* chapter_label, bool solution) {
  if (!solution && !chapter_requested(chapter_label)) {
    std::cout << "SKIPPED: your own " << chapter_label
              << " kernels are checked on request: COURSE_CHECK=" << chapter_label
              << " ctest --test-dir <build> -L " << chapter_label << "\n";
    return false;
  }
  return true;
}

bool gpu_tests_enabled(const char* chapter_label, bool solution) {
  if (!student_tests_requested(chapter_label, solution))
    return false;
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::cout << "SKIPPED: no CUDA device (" << reason << ")\n";
    return false;
  }
  return true;
}

void check_products(const Choices& choices, const std::vector<ProductShape>& shapes,
                    long long salt) {
  REQUIRE_FALSE(choices.empty());
  REQUIRE_FALSE(shapes.empty());
  for (const Choice& choice : choices) {
    INFO(choice.name);
    REQUIRE((choice.set.offers(Problem::matmul) || choice.set.offers(Problem::minplus)));
    for (const auto& [m, n, k] : shapes) {
      const auto seed = test_seed({salt, m, n, k});
      INFO("m " << m << " n " << n << " k " << k << ", seed " << seed);
      for (Problem problem : {Problem::matmul, Problem::minplus}) {
        if (!choice.set.offers(problem))
          continue;
        INFO(problem_name(problem));
        check_workload(choice.set, product_workload(problem, m, n, k), seed);
      }
    }
  }
}

void check_products_at_course_sizes(const Choices& choices) {
  std::vector<ProductShape> squares;
  for (int s : kAwkwardSizes)
    squares.push_back({s, s, s});
  check_products(choices, squares, 1);
  check_products(choices, shapes(kNonSquareShapes), 2);
}

void check_products_around(const Choices& choices, ProductShape base,
                           const std::vector<int>& sizes) {
  std::vector<ProductShape> along_m, along_n, along_k;
  for (int s : sizes) {
    along_m.push_back({s, base.n, base.k});
    along_n.push_back({base.m, s, base.k});
    along_k.push_back({base.m, base.n, s});
  }
  check_products(choices, along_m, 3);
  check_products(choices, along_n, 4);
  check_products(choices, along_k, 5);
}

std::vector<ProductShape> shapes_around_depth(int tile, int depth) {
  std::vector<ProductShape> around;
  for (int k : {1, depth - 1, depth, depth + 1, 3 * depth + 5})
    around.push_back({tile + 1, 2 * tile - 1, k});
  return around;
}

void check_conv2d(const Conv2dLauncher& conv2d, const std::vector<ImageShape>& images,
                  const std::vector<MaskShape>& masks) {
  REQUIRE_FALSE(images.empty());
  REQUIRE_FALSE(masks.empty());
  for (const auto& image : images) {
    for (const auto& mask : masks) {
      const auto seed = test_seed({3, image.h, image.w, mask.mk, mask.ml});
      INFO("image " << image.h << "x" << image.w << " mask " << mask.mk << "x" << mask.ml
                    << ", seed " << seed);
      check_workload(ProblemSet{{}, {}, conv2d, {}},
                     conv2d_workload(image.h, image.w, mask.mk, mask.ml), seed);
    }
  }
}

void check_conv1d(const Conv1dLauncher& conv1d, const std::vector<Conv1dShape>& shapes) {
  REQUIRE_FALSE(shapes.empty());
  for (const auto& [n, m] : shapes) {
    const auto seed = test_seed({4, n, m});
    INFO("n " << n << " m " << m << ", seed " << seed);
    check_workload(ProblemSet{{}, {}, {}, conv1d}, conv1d_workload(n, m), seed);
  }
}

}  // namespace course::testing
