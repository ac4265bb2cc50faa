// Shared by the GPU tests of every chapter: the sizes of the course design, deciding whether GPU
// tests run here, and the checks that run launchers on fresh random inputs (seeded so that a
// failure can be replayed), with a poisoned output, against the CPU reference.
#pragma once

#include "chapter_request.hpp"
#include "course/cli.hpp"
#include "course/problems.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace course::testing {

/// Square sizes around warp and tile boundaries.
constexpr int kAwkwardSizes[] = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257};

struct ProductShape {
  int m, n, k;
};
/// Non-square products (m != n != k), thin and wide.
constexpr ProductShape kNonSquareShapes[] = {{1, 257, 3},   {257, 1, 65}, {33, 65, 17},
                                             {65, 33, 129}, {7, 129, 1},  {130, 63, 200},
                                             {2, 3, 1000}};

struct ImageShape {
  int h, w;
};
/// Images, some smaller than the masks.
constexpr ImageShape kImageShapes[] = {{1, 1}, {2, 3}, {7, 5}, {37, 29}, {33, 65}, {129, 127}};

/// Images of several 32 x 32 blocks in both directions, one short of and one past a block, so
/// that every edge of a tile and of its halo is exercised.
inline const std::vector<ImageShape> kBlockEdgeImages = {{31, 33}, {64, 65}, {97, 70}};

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

/// The launchers of a chapter at one of the choices a test covers (a step, a tile width, a
/// thread mapping), with the name a failure reports it by (a step: as the command line names it).
struct Choice {
  std::string name;
  ProblemSet set;
};
using Choices = std::vector<Choice>;

/// The set of the two products {@p matmul, @p minplus}.
inline ProblemSet products(ProductLauncher matmul, ProductLauncher minplus) {
  return ProblemSet{std::move(matmul), std::move(minplus), {}, {}};
}

/// One choice per step of a chapter built in steps: @p steps is its kSteps ({step, name}), each
/// choice named as on the command line (the course's variant flag and the step's name), with the
/// launchers @p at_step(step) gives.
template <class Steps, class AtStep>
Choices each_step(const Steps& steps, AtStep at_step) {
  Choices choices;
  for (const auto& step : steps)
    choices.push_back({std::string(kVariantFlag) + " " + step.name, at_step(step.step)});
  return choices;
}

/// Both products of a chapter built in steps, at every step of @p steps (its kSteps); @p matmul
/// and @p minplus take the step as their trailing parameter.
template <class Steps, class Matmul, class Minplus>
Choices products_each_step(const Steps& steps, Matmul matmul, Minplus minplus) {
  return each_step(steps, [&](auto step) {
    return products(with_choice(matmul, step), with_choice(minplus, step));
  });
}

/// The matmul of a tensor-core chapter built in steps, at every step of @p steps, checked with
/// @p arithmetic (the chapter's matmul_arithmetic(): TF32's tolerance).
template <class Steps, class Matmul>
Choices matmul_each_step(const Steps& steps, Matmul matmul, Arithmetic arithmetic) {
  return each_step(steps, [&](auto step) {
    return ProblemSet{with_choice(matmul, step), {}, {}, {}, arithmetic};
  });
}

/// True when this GPU's compute capability is @p major.x, the one @p chapter_label ("ch07") is
/// built for. Otherwise warns "SKIPPED: <reason>" (which CTest turns into a skip) and returns
/// false. A failing query fails the test case: it must not pass unchecked.
bool gpu_has_compute_capability(int major, const char* chapter_label);

/// For every choice, runs its matmul and minplus (those it offers; matmul with the tolerance of
/// set.arithmetic) at every shape of @p shapes and checks each (Catch2 CHECK, with the choice,
/// the sizes, the seed and the worst element in the message). @p salt keeps the seeds of
/// different test cases apart. An empty list of choices or shapes fails the test.
void check_products(const Choices& choices, const std::vector<ProductShape>& shapes,
                    long long salt);

/// check_products() at every awkward square size (salt 1) and every non-square shape followed by
/// @p more, a chapter's own shapes (salt 2).
void check_products_at_course_sizes(const Choices& choices,
                                    const std::vector<ProductShape>& more = {});

/// The shapes @p ms x @p n x @p k (each m of @p ms), @p m x @p ns x @p k and @p m x @p n x @p ks.
std::vector<ProductShape> along_m(const std::vector<int>& ms, int n, int k);
std::vector<ProductShape> along_n(int m, const std::vector<int>& ns, int k);
std::vector<ProductShape> along_k(int m, int n, const std::vector<int>& ks);

/// check_products() where k is much larger than m and n: 3 x 5 x 5000 (salt 6), a product inside
/// one block with a long walk along k, and 129 x 257 x 4099 (salt 7), several blocks with k odd.
void check_products_with_long_k(const Choices& choices);

/// check_products() around a tile's edges: @p base with its m (salt 3), then its n (salt 4), then
/// its k (salt 5) replaced by each of @p sizes.
void check_products_around(const Choices& choices, ProductShape base,
                           const std::vector<int>& sizes);

/// The sizes a chapter whose matmul is a TF32 product on Hopper gives check_tf32_hopper_products():
/// those its tiles decide.
struct Tf32HopperSizes {
  /// The product whose m, then n, then k take each size of around_tile in turn.
  ProductShape tile_base;
  /// Sizes on both sides of the chapter's stage, instruction and block tile.
  std::vector<int> around_tile;
  /// The widths n of 65 x n x 40 products, odd ones included: those rows are written one float
  /// at a time and start unaligned.
  std::vector<int> odd_widths;
  /// A product of more tiles than the GPU runs at once, neither m nor n a multiple of its tile.
  ProductShape more_tiles;
};

/// What every chapter whose matmul is a TF32 product on Hopper (chapters 7 and 8) checks, each
/// in a Catch2 SECTION of its own (a test's `-c "<name>"` runs one):
/// - "the course's sizes": check_products_at_course_sizes() and 300 x 200 x 100;
/// - "around every tile boundary": check_products_around(@p sizes.tile_base, @p sizes.around_tile);
/// - "one to six batches": 131 x 263 x k (salt 9), k from 1 to 192 (one to six batches of 32:
///   fewer than, as many as and more than the stages);
/// - "k much larger than m and n": check_products_with_long_k();
/// - "odd widths": 65 x n x 40 for each n of @p sizes.odd_widths (salt 8);
/// - "more tiles than run at once": @p sizes.more_tiles (salt 10).
void check_tf32_hopper_products(const Choices& choices, const Tf32HopperSizes& sizes);

/// Shapes whose k is around a step's @p depth: one step holding a single k, a step one short of
/// full, one full step, a second step holding a single k, and several steps with a part-filled
/// last one. m = tile + 1 and n = 2 tile - 1 leave the last tiles of C part-filled too.
std::vector<ProductShape> shapes_around_depth(int tile, int depth);

/// Checks @p conv2d on every image of @p images with every mask of @p masks (neither may be
/// empty).
void check_conv2d(const Conv2dLauncher& conv2d, const std::vector<ImageShape>& images,
                  const std::vector<MaskShape>& masks);

/// Checks @p conv1d at every shape of @p shapes (not empty).
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

/// First line of every GPU test case: returns (as a skip) when GPU tests cannot run here.
#define COURSE_REQUIRE_GPU()                                                                  \
  do {                                                                                        \
    if (!::course::testing::gpu_tests_enabled(COURSE_CHAPTER_LABEL, COURSE_TEST_IS_SOLUTION)) \
      return;                                                                                 \
  } while (false)

/// First line of a GPU test case of a chapter built for one compute capability (@p major, its
/// kComputeCapabilityMajor): returns (as a skip) when GPU tests cannot run here or the GPU is
/// another.
#define COURSE_REQUIRE_COMPUTE_CAPABILITY(major)                                     \
  do {                                                                               \
    COURSE_REQUIRE_GPU();                                                            \
    if (!::course::testing::gpu_has_compute_capability(major, COURSE_CHAPTER_LABEL)) \
      return;                                                                        \
  } while (false)
