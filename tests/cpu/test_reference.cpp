// The CPU references against cases small enough to work out by hand.
#include "catch.hpp"

#include "course/random.hpp"
#include "course/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace {
const float kInf = std::numeric_limits<float>::infinity();
}

TEST_CASE("matmul reference multiplies a 2x3 by a 3x2 matrix", "[reference]") {
  const std::vector<float> A = {1, 2, 3, 4, 5, 6};
  const std::vector<float> B = {7, 8, 9, 10, 11, 12};
  std::vector<double> C(4);
  course::matmul_reference(A.data(), B.data(), C.data(), 2, 2, 3);
  CHECK(C == std::vector<double>{58, 64, 139, 154});
  CHECK(course::matmul_reference_at(A.data(), B.data(), 2, 3, 1, 0) == 139);
}

TEST_CASE("minplus reference finds two-step shortest paths and propagates infinity",
          "[reference]") {
  // Three nodes: 0 -> 1 costs 1, 1 -> 2 costs 2, 0 -> 2 has no direct edge.
  const std::vector<float> d = {0, 1, kInf, kInf, 0, 2, kInf, kInf, 0};
  std::vector<float> r(9);
  course::minplus_reference(d.data(), d.data(), r.data(), 3, 3, 3);
  CHECK(r == std::vector<float>{0, 1, 3, kInf, 0, 2, kInf, kInf, 0});
  CHECK(std::isinf(course::minplus_reference_at(d.data(), d.data(), 3, 3, 2, 0)));
  CHECK(course::minplus_reference_at(d.data(), d.data(), 3, 3, 0, 2) == 3);
}

TEST_CASE("conv2d reference of an impulse is the mask (convolution, not correlation)",
          "[reference]") {
  // A 3x5 image with a single 1 in the middle; a 3x5 mask with distinct entries.
  std::vector<float> img(15, 0.0f);
  img[1 * 5 + 2] = 1.0f;
  std::vector<float> mask(15);
  for (int i = 0; i < 15; ++i)
    mask[i] = static_cast<float>(i + 1);
  std::vector<double> out(15);
  course::conv2d_reference(img.data(), 3, 5, mask.data(), 3, 5, out.data());
  for (int i = 0; i < 15; ++i)
    CHECK(out[i] == mask[i]);
}

TEST_CASE("conv2d reference pads with zeros when the mask is larger than the image",
          "[reference]") {
  const std::vector<float> img = {2};  // 1x1 image
  const std::vector<float> mask = {1, 1, 1, 1, 5, 1, 1, 1, 1};
  std::vector<double> out(1);
  course::conv2d_reference(img.data(), 1, 1, mask.data(), 3, 3, out.data());
  CHECK(out[0] == 10);                    // only the centre of the mask meets the image
  const std::vector<float> row = {1, 2};  // 1x2 image, 1x3 mask {1, 10, 100}
  const std::vector<float> mask_row = {1, 10, 100};
  std::vector<double> out_row(2);
  course::conv2d_reference(row.data(), 1, 2, mask_row.data(), 1, 3, out_row.data());
  // out[x] = sum_q mask[q] * img[x + 1 - q]
  CHECK(out_row[0] == 1 * 2 + 10 * 1);
  CHECK(out_row[1] == 10 * 2 + 100 * 1);
}

TEST_CASE("conv1d reference computes the full convolution", "[reference]") {
  const std::vector<float> a = {1, 2, 3};
  const std::vector<float> b = {1, 1};
  std::vector<double> y(4);
  course::conv1d_reference(a.data(), 3, b.data(), 2, y.data());
  CHECK(y == std::vector<double>{1, 3, 5, 3});
  // More taps than samples.
  const std::vector<float> one = {2};
  const std::vector<float> taps = {1, 2, 3};
  std::vector<double> z(3);
  course::conv1d_reference(one.data(), 1, taps.data(), 3, z.data());
  CHECK(z == std::vector<double>{2, 4, 6});
}

TEST_CASE("whole-output and one-element references agree", "[reference]") {
  const int m = 5, n = 7, k = 3, h = 6, w = 4, mk = 3, ml = 5;
  const auto A = course::random_uniform(m * k, 1);
  const auto B = course::random_uniform(k * n, 2);
  std::vector<double> C(m * n);
  course::matmul_reference(A.data(), B.data(), C.data(), m, n, k);
  const auto D = course::random_distances(m * k, 3, 0.3);
  const auto E = course::random_distances(k * n, 4, 0.3);
  std::vector<float> F(m * n);
  course::minplus_reference(D.data(), E.data(), F.data(), m, n, k);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      CHECK(C[i * n + j] == course::matmul_reference_at(A.data(), B.data(), n, k, i, j));
      const float expected = course::minplus_reference_at(D.data(), E.data(), n, k, i, j);
      CHECK((F[i * n + j] == expected));
    }
  }
  const auto img = course::random_uniform(h * w, 5);
  const auto mask = course::random_uniform(mk * ml, 6);
  std::vector<double> out(h * w);
  course::conv2d_reference(img.data(), h, w, mask.data(), mk, ml, out.data());
  double direct = 0;  // out[2][1] written out from the definition
  for (int p = 0; p < mk; ++p) {
    for (int q = 0; q < ml; ++q) {
      const int sy = 2 + mk / 2 - p, sx = 1 + ml / 2 - q;
      if (sy >= 0 && sy < h && sx >= 0 && sx < w) {
        direct += static_cast<double>(mask[p * ml + q]) * img[sy * w + sx];
      }
    }
  }
  CHECK(out[2 * w + 1] == direct);
}

TEST_CASE("random inputs are reproducible from the seed and never all zero", "[random]") {
  CHECK(course::random_uniform(100, 42) == course::random_uniform(100, 42));
  CHECK(course::random_uniform(100, 42) != course::random_uniform(100, 43));
  const auto values = course::random_uniform(1000, 9);
  int nonzero = 0;
  for (float v : values) {
    CHECK(v >= -1.0f);
    CHECK(v < 1.0f);
    nonzero += v != 0.0f;
  }
  CHECK(nonzero > 990);
  const auto distances = course::random_distances(10000, 3, 0.1);
  int infinite = 0;
  for (float v : distances)
    infinite += std::isinf(v);
  CHECK(infinite > 800);
  CHECK(infinite < 1200);
  CHECK(course::derive_seed(1, 1) != course::derive_seed(1, 2));
}

TEST_CASE("random inputs do not depend on the number of threads that draw them", "[random]") {
  // Three whole chunks and part of a fourth.
  const std::size_t count = 3 * course::kRandomChunk + 12345;
  const auto uniform = course::random_uniform(count, 7, 2.0f, 5.0f, 1);
  REQUIRE(uniform.size() == count);
  for (unsigned workers : {0u, 2u, 3u, 8u}) {
    INFO("workers: " << workers);
    CHECK(course::random_uniform(count, 7, 2.0f, 5.0f, workers) == uniform);
  }
  CHECK(course::random_uniform(count, 7, 2.0f, 5.0f) == uniform);

  const auto distances = course::random_distances(count, 8, 0.25, 1);
  CHECK(course::random_distances(count, 8, 0.25, 3) == distances);
  CHECK(course::random_distances(count, 8, 0.25) == distances);
  const auto integers = course::random_small_integers(count, 9, -3, 7, 1);
  CHECK(course::random_small_integers(count, 9, -3, 7, 3) == integers);
  CHECK(course::random_small_integers(count, 9, -3, 7) == integers);

  // Element i depends on i and the seed only: a shorter draw is a prefix of a longer one.
  const auto shorter = course::random_uniform(course::kRandomChunk + 7, 7, 2.0f, 5.0f, 2);
  CHECK(std::equal(shorter.begin(), shorter.end(), uniform.begin()));

  // Another seed, other values.
  CHECK(course::random_uniform(count, 70, 2.0f, 5.0f, 2) != uniform);
  CHECK(course::random_distances(count, 80, 0.25, 2) != distances);
  CHECK(course::random_small_integers(count, 90, -3, 7, 2) != integers);

  // Each chunk has a generator of its own: no chunk repeats the first one.
  for (const auto* values : {&uniform, &distances, &integers}) {
    const auto first = values->begin();
    for (std::size_t chunk = 1; chunk * course::kRandomChunk < count; ++chunk) {
      INFO("chunk " << chunk);
      const std::size_t length =
          std::min(course::kRandomChunk, count - chunk * course::kRandomChunk);
      CHECK_FALSE(std::equal(first, first + static_cast<std::ptrdiff_t>(length),
                             first + static_cast<std::ptrdiff_t>(chunk * course::kRandomChunk)));
    }
  }

  // Ranges: [low, high) for uniform values, [0, 1) or +infinity for distances (about the asked
  // fraction infinite), whole numbers in [low, high] with both ends drawn.
  CHECK(*std::min_element(uniform.begin(), uniform.end()) >= 2.0f);
  CHECK(*std::max_element(uniform.begin(), uniform.end()) < 5.0f);
  std::size_t infinite = 0;
  bool distances_in_range = true;
  for (float v : distances) {
    infinite += std::isinf(v) && v > 0;
    distances_in_range = distances_in_range && (std::isinf(v) ? v > 0 : v >= 0.0f && v < 1.0f);
  }
  CHECK(distances_in_range);
  CHECK(std::abs(static_cast<double>(infinite) / count - 0.25) < 0.01);
  bool whole = true;
  for (float v : integers)
    whole = whole && v == std::floor(v);
  CHECK(whole);
  CHECK(*std::min_element(integers.begin(), integers.end()) == -3.0f);
  CHECK(*std::max_element(integers.begin(), integers.end()) == 7.0f);
}
