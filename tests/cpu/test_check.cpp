// The CPU references against cases small enough to work out by hand, the random inputs, and the
// checker: its tolerance must pass honest FP32 (and TF32) results and fail wrong ones.
#include "catch.hpp"

#include "course/check.hpp"
#include "course/random.hpp"
#include "course/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

const float kInf = std::numeric_limits<float>::infinity();
constexpr auto kFp32 = course::Arithmetic::fp32;
constexpr auto kTf32 = course::Arithmetic::tf32;

// A plain FP32 product summed in order: what a correct kernel may return. With @p tf32, what a
// tensor core computes: every input rounded to TF32, products and sums in FP32. Term @p skip_p is
// left out where it is not -1.
std::vector<float> float_matmul(const std::vector<float>& A, const std::vector<float>& B, int m,
                                int n, int k, bool tf32, int skip_p = -1) {
  const auto input = [tf32](float x) { return tf32 ? course::round_to_tf32(x) : x; };
  std::vector<float> C(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p) {
        if (p != skip_p)
          acc += input(A[i * k + p]) * input(B[p * n + j]);
      }
      C[i * n + j] = acc;
    }
  }
  return C;
}

// The check under @p rule of an m x m x k product of random inputs (seeded by @p seed and k),
// computed by float_matmul().
course::CheckResult check_product(int m, int k, int seed, bool tf32, course::Arithmetic rule,
                                  int skip_p = -1) {
  const auto A = course::random_uniform(m * k, seed + k);
  const auto B = course::random_uniform(k * m, seed + 1 + k);
  return course::check_matmul(A, B, float_matmul(A, B, m, m, k, tf32, skip_p), m, m, k, 1, rule);
}

// compare() of @p got with the reference 1, 2, 3, ...
course::CheckResult compare_with_counting(const std::vector<float>& got,
                                          course::Tolerance tolerance) {
  return course::compare(
      got.data(), got.size(), [](std::size_t i) { return static_cast<double>(i + 1); }, tolerance);
}

}  // namespace

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

TEST_CASE("random inputs are reproducible from the seed and never all zero", "[random]") {
  CHECK(course::random_uniform(100, 42) == course::random_uniform(100, 42));
  CHECK(course::random_uniform(100, 42) != course::random_uniform(100, 43));
  int nonzero = 0;
  for (float v : course::random_uniform(1000, 9)) {
    CHECK(v >= -1.0f);
    CHECK(v < 1.0f);
    nonzero += v != 0.0f;
  }
  CHECK(nonzero > 990);
  int infinite = 0;
  for (float v : course::random_distances(10000, 3, 0.1))
    infinite += std::isinf(v);
  CHECK(infinite > 800);
  CHECK(infinite < 1200);
  CHECK(course::derive_seed(1, 1) != course::derive_seed(1, 2));
}

TEST_CASE("random inputs do not depend on the number of threads that draw them", "[random]") {
  // A seed printed on one machine gives the same inputs on any other. Three whole chunks and part
  // of a fourth; the comparisons are in double parentheses, so that a failure does not print
  // millions of values.
  const std::size_t count = 3 * course::kRandomChunk + 12345;
  const auto uniform = course::random_uniform(count, 7, -1.0f, 1.0f, 1);
  const auto distances = course::random_distances(count, 8, 0.05, 1);
  REQUIRE(uniform.size() == count);
  REQUIRE(distances.size() == count);
  for (unsigned workers : {0u, 2u, 3u, 8u}) {
    INFO("workers: " << workers);
    CHECK((course::random_uniform(count, 7, -1.0f, 1.0f, workers) == uniform));
    CHECK((course::random_distances(count, 8, 0.05, workers) == distances));
  }
  CHECK((course::random_uniform(count, 7) == uniform));
  CHECK((course::random_distances(count, 8) == distances));
  // Each chunk has a generator of its own: no chunk repeats the first one (inputs that repeated
  // every 2^20 elements would hide a kernel that mixes up tiles that far apart).
  for (const auto* values : {&uniform, &distances}) {
    const auto first = values->begin();
    for (std::size_t chunk = 1; chunk * course::kRandomChunk < count; ++chunk) {
      INFO("chunk " << chunk);
      const std::size_t length =
          std::min(course::kRandomChunk, count - chunk * course::kRandomChunk);
      CHECK_FALSE(std::equal(first, first + static_cast<std::ptrdiff_t>(length),
                             first + static_cast<std::ptrdiff_t>(chunk * course::kRandomChunk)));
    }
  }
}

TEST_CASE("an FP32 product summed in order passes the matmul tolerance", "[check]") {
  for (int k : {1, 17, 1000, 4096}) {
    const auto result = check_product(8, k, 11, false, kFp32);
    INFO("k " << k << ": " << result.summary(8));
    CHECK(result.passed);
    CHECK_FALSE(result.sampled);
    CHECK(result.compared == 64u);
  }
}

TEST_CASE("a product missing one term fails the matmul tolerance", "[check]") {
  for (int k : {2, 64, 1000, 4096}) {
    const auto result = check_product(8, k, 21, false, kFp32, k / 2);
    INFO("k " << k << ": " << result.summary(8));
    CHECK_FALSE(result.passed);
    CHECK(result.mismatches > 0);
  }
}

TEST_CASE("NaN never passes, even with a huge tolerance", "[check]") {
  const auto result = compare_with_counting({1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f},
                                            course::Tolerance{1e30, 1e30});
  CHECK_FALSE(result.passed);
  CHECK(result.nans == 1);
  CHECK(result.mismatches == 1);
  CHECK(result.worst_index == 1);
}

TEST_CASE("exact comparison rejects one ulp and matches infinities", "[check]") {
  const std::vector<double> reference = {1.0, kInf, 0.5};
  std::vector<float> got = {1.0f, kInf, 0.5f};
  auto at = [&](std::size_t i) { return reference[i]; };
  CHECK(course::compare(got.data(), 3, at, course::exact_tolerance()).passed);
  got[0] = std::nextafter(1.0f, 2.0f);
  auto result = course::compare(got.data(), 3, at, course::exact_tolerance());
  CHECK_FALSE(result.passed);
  CHECK(result.worst_index == 0);
  got[0] = 1.0f;
  got[1] = 3.0e38f;  // a large finite value is not "no path"
  CHECK_FALSE(course::compare(got.data(), 3, at, course::exact_tolerance()).passed);
}

TEST_CASE("the worst element is reported with its position", "[check]") {
  const auto result = compare_with_counting({1.0f, 2.0f, 3.5f, 4.0f}, course::Tolerance{0.1, 0});
  CHECK_FALSE(result.passed);
  CHECK(result.mismatches == 1);
  CHECK(result.worst_index == 2);
  CHECK(result.worst_got == 3.5);
  CHECK(result.worst_reference == 3.0);
  CHECK(result.summary(2).find("(1, 0)") != std::string::npos);
}

TEST_CASE("large outputs are checked on a documented sample", "[check]") {
  const auto indices = course::sample_indices(8192, 8192, 5);
  CHECK(indices.size() <= course::kSampleSize);
  CHECK(indices.size() > course::kSampleSize - 16);  // duplicates removed, few of them
  CHECK(indices.front() == 0);
  CHECK(indices.back() == 8192ull * 8192 - 1);
  CHECK(std::find(indices.begin(), indices.end(), 8191u) != indices.end());
  CHECK(indices == course::sample_indices(8192, 8192, 5));
  // Short edges are included whole.
  const auto thin = course::sample_indices(100000, 3, 5);
  for (std::size_t row : {std::size_t{0}, std::size_t{99999}}) {
    for (std::size_t c = 0; c < 3; ++c)
      CHECK(std::binary_search(thin.begin(), thin.end(), row * 3 + c));
  }
  // Small outputs: every index.
  CHECK(course::sample_indices(10, 10, 1).size() == 100);
}

TEST_CASE("a sampled matmul check catches a wrong sampled element", "[check]") {
  // 4096 x 4096 x 16 costs more than the full-check budget, so only a sample is compared.
  const int m = 4096, n = 4096, k = 16;
  const auto A = course::random_uniform(static_cast<std::size_t>(m) * k, 31);
  const auto B = course::random_uniform(static_cast<std::size_t>(k) * n, 32);
  std::vector<float> C(static_cast<std::size_t>(m) * n, 0.0f);
  const std::uint64_t seed = 3;
  for (std::size_t i : course::sample_indices(m, n, seed)) {
    C[i] = static_cast<float>(course::matmul_reference_at(
        A.data(), B.data(), n, k, static_cast<int>(i / n), static_cast<int>(i % n)));
  }
  auto result = course::check_matmul(A, B, C, m, n, k, seed);
  INFO(result.summary(n));
  CHECK(result.sampled);
  CHECK(result.passed);
  C[static_cast<std::size_t>(m) * n - 1] += 0.5f;  // the last element is always sampled
  result = course::check_matmul(A, B, C, m, n, k, seed);
  CHECK_FALSE(result.passed);
  CHECK(result.worst_index == static_cast<std::size_t>(m) * n - 1);
}

TEST_CASE("minplus check is exact and convolution checks use the mask area", "[check]") {
  const int m = 6, n = 5, k = 4;
  const auto A = course::random_distances(m * k, 41, 0.3);
  const auto B = course::random_distances(k * n, 42, 0.3);
  std::vector<float> C(m * n);
  course::minplus_reference(A.data(), B.data(), C.data(), m, n, k);
  CHECK(course::check_minplus(A, B, C, m, n, k, 1).passed);
  C[7] = std::nextafter(C[7], 0.0f);
  CHECK_FALSE(course::check_minplus(A, B, C, m, n, k, 1).passed);

  const int h = 9, w = 11, mk = 5, ml = 3;
  const auto img = course::random_uniform(h * w, 43);
  const auto mask = course::random_uniform(mk * ml, 44);
  std::vector<double> exact(h * w);
  course::conv2d_reference(img.data(), h, w, mask.data(), mk, ml, exact.data());
  std::vector<float> out(exact.begin(), exact.end());
  CHECK(course::check_conv2d(img, h, w, mask, mk, ml, out, 1).passed);
  out[h * w - 1] += 0.01f;
  CHECK_FALSE(course::check_conv2d(img, h, w, mask, mk, ml, out, 1).passed);

  const auto a = course::random_uniform(20, 45);
  const auto b = course::random_uniform(30, 46);
  std::vector<double> y(49);
  course::conv1d_reference(a.data(), 20, b.data(), 30, y.data());
  std::vector<float> yf(y.begin(), y.end());
  CHECK(course::check_conv1d(a, 20, b, 30, yf, 1).passed);
  yf[48] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(course::check_conv1d(a, 20, b, 30, yf, 1).passed);
}

TEST_CASE("rounding to TF32 keeps 10 mantissa bits, to nearest, ties away from zero", "[check]") {
  const float step = std::ldexp(1.0f, -10);  // TF32's spacing of the values in [1, 2)
  CHECK(course::round_to_tf32(1.0f) == 1.0f);
  CHECK(course::round_to_tf32(std::ldexp(1.0f, -20)) == std::ldexp(1.0f, -20));
  CHECK(course::round_to_tf32(1.0f + step / 4) == 1.0f);  // below half a step: 1 + 2^-12 is 1
  CHECK(course::round_to_tf32(1.0f + step / 2) == 1.0f + step);  // a tie, away from zero
  CHECK(course::round_to_tf32(-1.0f - step / 2) == -1.0f - step);
  CHECK(course::round_to_tf32(1.0f + 3 * step / 4) == 1.0f + step);
  CHECK(course::round_to_tf32(2.0f - step / 4) == 2.0f);  // carries into the exponent
  CHECK(std::isinf(course::round_to_tf32(std::numeric_limits<float>::max())));
  CHECK(std::isinf(course::round_to_tf32(kInf)));
  CHECK(std::isnan(course::round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
  for (float x : course::random_uniform(10000, 31)) {
    const float r = course::round_to_tf32(x);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &r, sizeof bits);
    CHECK((bits & 0x1fffu) == 0u);
    CHECK(std::fabs(static_cast<double>(r) - x) <= course::kTf32UnitRoundoff * std::fabs(x));
  }
}

TEST_CASE("a TF32 product passes the TF32 tolerance but not the FP32 one", "[check]") {
  for (int k : {1, 33, 1000, 4096}) {
    const auto tf32 = check_product(16, k, 41, true, kTf32);
    INFO("k " << k << ": " << tf32.summary(16));
    CHECK(tf32.passed);
    if (k >= 33)  // with a few terms the FP32 rule's margin may still cover the rounding
      CHECK_FALSE(check_product(16, k, 41, true, kFp32).passed);
  }
}

TEST_CASE("a TF32 product missing one term fails the TF32 tolerance", "[check]") {
  for (int k : {2, 64, 1000, 4096}) {
    const auto result = check_product(16, k, 51, true, kTf32, k / 2);
    INFO("k " << k << ": " << result.summary(16));
    CHECK_FALSE(result.passed);
  }
}
