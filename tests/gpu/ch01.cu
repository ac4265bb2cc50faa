// Chapter 1 kernels against the CPU reference, at the awkward sizes of the course design.
// Built twice: against the solution (label "solutions") and against your kernels (label "ch01").
#include <kernels.cuh>

#include "catch.hpp"
#include "gpu_sizes.hpp"
#include "gpu_support.hpp"

using course::Problem;
using course::testing::run_conv1d;
using course::testing::run_conv2d;
using course::testing::run_product;
using course::testing::test_seed;

TEST_CASE("ch01 matmul and minplus match the reference at awkward square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto mapping : {course::ThreadMapping::coalesced, course::ThreadMapping::transposed}) {
    course::LaunchOptions options;
    options.mapping = mapping;
    for (int s : course::testing::kAwkwardSizes) {
      const auto seed = test_seed({1, s});
      INFO("size " << s << ", seed " << seed << ", transposed "
                   << (mapping != course::ThreadMapping::coalesced));
      const auto product = run_product(ch01::matmul, Problem::matmul, s, s, s, seed, options);
      INFO(product.summary(s));
      CHECK(product.passed);
      const auto paths = run_product(ch01::minplus, Problem::minplus, s, s, s, seed, options);
      INFO(paths.summary(s));
      CHECK(paths.passed);
    }
  }
}

TEST_CASE("ch01 products match the reference at non-square sizes", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto& shape : course::testing::kNonSquareShapes) {
    const auto seed = test_seed({2, shape.m, shape.n, shape.k});
    INFO("m " << shape.m << " n " << shape.n << " k " << shape.k << ", seed " << seed);
    const auto product =
        run_product(ch01::matmul, Problem::matmul, shape.m, shape.n, shape.k, seed);
    INFO(product.summary(shape.n));
    CHECK(product.passed);
    const auto paths =
        run_product(ch01::minplus, Problem::minplus, shape.m, shape.n, shape.k, seed);
    INFO(paths.summary(shape.n));
    CHECK(paths.passed);
  }
}

TEST_CASE("ch01 conv2d matches the reference, images smaller than the mask included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto& image : course::testing::kImageShapes) {
    for (const auto& mask : course::testing::kMaskShapes) {
      const auto seed = test_seed({3, image.h, image.w, mask.mk, mask.ml});
      INFO("image " << image.h << "x" << image.w << " mask " << mask.mk << "x" << mask.ml
                    << ", seed " << seed);
      const auto result = run_conv2d(ch01::conv2d, image.h, image.w, mask.mk, mask.ml, seed);
      INFO(result.summary(image.w));
      CHECK(result.passed);
    }
  }
}

TEST_CASE("ch01 conv1d matches the reference, more taps than samples included", "[gpu]") {
  COURSE_REQUIRE_GPU();
  for (const auto& sizes : course::testing::kConv1dShapes) {
    const auto seed = test_seed({4, sizes.n, sizes.m});
    INFO("n " << sizes.n << " m " << sizes.m << ", seed " << seed);
    const auto result = run_conv1d(ch01::conv1d, sizes.n, sizes.m, seed);
    INFO(result.summary());
    CHECK(result.passed);
  }
}
