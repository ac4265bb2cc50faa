#include "gpu_support.hpp"

#include "catch.hpp"

#include "course/device_info.hpp"
#include "course/launch.cuh"  // current_compute_capability
#include "course/measure.hpp"
#include "course/parse.hpp"
#include "course/random.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iostream>

namespace course::testing {
namespace {

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

bool gpu_tests_enabled(const char* chapter_label, bool solution) {
  if (!edition_checked(chapter_label, solution))
    return false;
  std::string reason;
  if (!cuda_device_available(&reason)) {
    std::cout << "SKIPPED: no CUDA device (" << reason << ")\n";
    return false;
  }
  return true;
}

bool gpu_has_compute_capability(int major, const char* chapter_label) {
  const course::ComputeCapability found = course::current_compute_capability();
  if (found.major == major)
    return true;
  WARN("SKIPPED: " << chapter_label << " needs compute capability " << major << ".0; this GPU has "
                   << found.text());
  return false;
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

void check_products_at_course_sizes(const Choices& choices, const std::vector<ProductShape>& more) {
  std::vector<ProductShape> squares;
  for (int s : kAwkwardSizes)
    squares.push_back({s, s, s});
  check_products(choices, squares, 1);
  check_products(choices, shapes(kNonSquareShapes, more), 2);
}

std::vector<ProductShape> along_m(const std::vector<int>& ms, int n, int k) {
  std::vector<ProductShape> along;
  for (int m : ms)
    along.push_back({m, n, k});
  return along;
}

std::vector<ProductShape> along_n(int m, const std::vector<int>& ns, int k) {
  std::vector<ProductShape> along;
  for (int n : ns)
    along.push_back({m, n, k});
  return along;
}

std::vector<ProductShape> along_k(int m, int n, const std::vector<int>& ks) {
  std::vector<ProductShape> along;
  for (int k : ks)
    along.push_back({m, n, k});
  return along;
}

void check_products_with_long_k(const Choices& choices) {
  check_products(choices, {{3, 5, 5000}}, 6);
  check_products(choices, {{129, 257, 4099}}, 7);
}

void check_products_around(const Choices& choices, ProductShape base,
                           const std::vector<int>& sizes) {
  check_products(choices, along_m(sizes, base.n, base.k), 3);
  check_products(choices, along_n(base.m, sizes, base.k), 4);
  check_products(choices, along_k(base.m, base.n, sizes), 5);
}

void check_tf32_hopper_products(const Choices& choices, const Tf32HopperSizes& sizes) {
  SECTION("the course's sizes") {
    check_products_at_course_sizes(choices, {{300, 200, 100}});
  }
  SECTION("around every tile boundary") {
    check_products_around(choices, sizes.tile_base, sizes.around_tile);
  }
  SECTION("one to six batches") {
    check_products(choices, along_k(131, 263, {1, 2, 32, 33, 64, 96, 97, 128, 129, 160, 192}), 9);
  }
  SECTION("k much larger than m and n") {
    check_products_with_long_k(choices);
  }
  SECTION("odd widths") {
    check_products(choices, along_n(65, sizes.odd_widths, 40), 8);
  }
  SECTION("more tiles than run at once") {
    check_products(choices, {sizes.more_tiles}, 10);
  }
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
