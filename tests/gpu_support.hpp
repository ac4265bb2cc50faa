// Helpers shared by the GPU tests of every chapter: the sizes of the course design, deciding
// whether GPU tests run here, seeds, running one launcher on fresh random inputs with a poisoned
// output, and the loops over the course's test sizes that every chapter repeats.
#pragma once

#include "course/check.hpp"
#include "course/problems.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace course::testing {

/// Square sizes around warp and tile boundaries.
constexpr int kAwkwardSizes[] = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257};

/// A product shape m x n x k.
struct ProductShape {
  int m, n, k;
};
/// Non-square products (m != n != k), thin and wide.
constexpr ProductShape kNonSquareShapes[] = {{1, 257, 3},   {257, 1, 65}, {33, 65, 17},
                                             {65, 33, 129}, {7, 129, 1},  {130, 63, 200},
                                             {2, 3, 1000}};

/// An image h x w.
struct ImageShape {
  int h, w;
};
/// Images, some smaller than the masks.
constexpr ImageShape kImageShapes[] = {{1, 1}, {2, 3}, {7, 5}, {37, 29}, {33, 65}, {129, 127}};

/// A mask mk x ml.
struct MaskShape {
  int mk, ml;
};
/// Masks from 1 x 1 to the default 13 x 13, square and not.
constexpr MaskShape kMaskShapes[] = {{1, 1}, {3, 5}, {5, 3}, {3, 3}, {13, 13}};

/// conv1d sizes: n samples and m taps, m = 1, m = n, m > n, n = 1 included.
struct Conv1dShape {
  int n, m;
};
constexpr Conv1dShape kConv1dShapes[] = {{1, 1},   {1, 7},   {7, 1},      {100, 37},   {37, 100},
                                         {64, 64}, {257, 3}, {1000, 127}, {5000, 1023}};

/// True when GPU tests can run here. Otherwise prints "SKIPPED: <reason>" (which CTest turns into
/// a skip) and returns false. A student's chapter (@p solution false) runs only when the
/// environment variable COURSE_CHECK names @p chapter_label ("ch01") or is "all".
bool gpu_tests_enabled(const char* chapter_label, bool solution);

/// A seed for one test input: COURSE_TEST_SEED (or a fixed default) mixed with @p parts (sizes),
/// so every size gets its own fresh inputs and any failure can be replayed.
std::uint64_t test_seed(std::initializer_list<long long> parts);

/// Runs @p set's launcher for @p workload on inputs seeded by @p seed, with a poisoned output,
/// and returns the comparison with the CPU reference.
CheckResult run_workload(const ProblemSet& set, const Workload& workload, std::uint64_t seed);

/// run_workload() for one product launcher: @p problem (matmul or minplus) at m x n x k.
CheckResult run_product(const ProductLauncher& launcher, Problem problem, int m, int n, int k,
                        std::uint64_t seed);

/// run_workload() for one conv2d launcher: an h x w image and an mk x ml mask.
CheckResult run_conv2d(const Conv2dLauncher& launcher, int h, int w, int mk, int ml,
                       std::uint64_t seed);

/// run_workload() for one conv1d launcher: n samples and m taps.
CheckResult run_conv1d(const Conv1dLauncher& launcher, int n, int m, std::uint64_t seed);

/// The test checks of one product shape: runs the matmul and the minplus of @p set (those it
/// offers; matmul with the tolerance of set.arithmetic) at m x n x k and checks each (Catch2
/// CHECK, with the sizes, the seed and the worst element in the message). @p salt keeps the seeds
/// of different test cases apart.
void check_products(const ProblemSet& set, int m, int n, int k, long long salt);

/// check_products() of the set {@p matmul, @p minplus}.
void check_products(const ProductLauncher& matmul, const ProductLauncher& minplus, int m, int n,
                    int k, long long salt);

/// check_products() at every awkward square size (salt 1) and every non-square shape (salt 2)
/// of the course.
void check_products_at_course_sizes(const ProblemSet& set);

/// check_products_at_course_sizes() of the set {@p matmul, @p minplus}.
void check_products_at_course_sizes(const ProductLauncher& matmul, const ProductLauncher& minplus);

/// Checks @p conv2d on every image of @p images with every mask of @p masks.
void check_conv2d(const Conv2dLauncher& conv2d, const std::vector<ImageShape>& images,
                  const std::vector<MaskShape>& masks);

/// Checks @p conv1d at every shape of @p shapes.
void check_conv1d(const Conv1dLauncher& conv1d, const std::vector<Conv1dShape>& shapes);

/// The course's shapes of one kind (@p course_shapes, e.g. kImageShapes) followed by @p more, a
/// chapter's own.
template <typename Shape, std::size_t N>
std::vector<Shape> shapes(const Shape (&course_shapes)[N], const std::vector<Shape>& more = {}) {
  std::vector<Shape> all(course_shapes, course_shapes + N);
  all.insert(all.end(), more.begin(), more.end());
  return all;
}

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
