// The checker: the tolerance must pass honest FP32 results and fail wrong ones.
#include "catch.hpp"

#include "course/check.hpp"
#include "course/random.hpp"
#include "course/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

// A plain FP32 product summed in order: what a correct kernel may return.
std::vector<float> float_matmul(const std::vector<float>& A, const std::vector<float>& B, int m,
                                int n, int k, int skip_p = -1) {
  std::vector<float> C(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p) {
        if (p != skip_p)
          acc += A[i * k + p] * B[p * n + j];
      }
      C[i * n + j] = acc;
    }
  }
  return C;
}

// The product a tensor core computes: every input rounded to TF32, products and sums in FP32.
std::vector<float> tf32_matmul(const std::vector<float>& A, const std::vector<float>& B, int m,
                               int n, int k, int skip_p = -1) {
  std::vector<float> rounded_a(A.size());
  std::vector<float> rounded_b(B.size());
  std::transform(A.begin(), A.end(), rounded_a.begin(), course::round_to_tf32);
  std::transform(B.begin(), B.end(), rounded_b.begin(), course::round_to_tf32);
  return float_matmul(rounded_a, rounded_b, m, n, k, skip_p);
}

// The check under @p rule of an m x m x k product of random inputs (seeded by @p seed and k),
// computed as an FP32 kernel (or, with @p tf32, a tensor core) would, term @p skip_p left out
// where it is not -1.
course::CheckResult check_product(int m, int k, int seed, bool tf32, course::Arithmetic rule,
                                  int skip_p = -1) {
  const auto A = course::random_uniform(m * k, seed + k);
  const auto B = course::random_uniform(k * m, seed + 1 + k);
  const auto C = tf32 ? tf32_matmul(A, B, m, m, k, skip_p) : float_matmul(A, B, m, m, k, skip_p);
  return course::check_matmul(A, B, C, m, m, k, 1, rule);
}

constexpr auto kFp32 = course::Arithmetic::fp32;
constexpr auto kTf32 = course::Arithmetic::tf32;

}  // namespace

TEST_CASE("an FP32 product summed in order passes the matmul tolerance", "[check]") {
  for (int k : {1, 17, 1000, 4096}) {
    const auto result = check_product(8, k, 11, false, kFp32);
    INFO(result.summary(8));
    CHECK(result.passed);
    CHECK_FALSE(result.sampled);
    CHECK(result.compared == 64u);
  }
}

TEST_CASE("a product missing one term fails the matmul tolerance", "[check]") {
  for (int k : {2, 64, 1000, 4096}) {
    const auto result = check_product(8, k, 21, false, kFp32, k / 2);
    INFO(result.summary(8));
    CHECK_FALSE(result.passed);
    CHECK(result.mismatches > 0);
  }
}

TEST_CASE("NaN never passes, even with a huge tolerance", "[check]") {
  const std::vector<float> got = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  const course::Tolerance huge{1e30, 1e30};
  const auto result = course::compare(
      got.data(), got.size(), [](std::size_t i) { return static_cast<double>(i + 1); }, huge);
  CHECK_FALSE(result.passed);
  CHECK(result.nans == 1);
  CHECK(result.mismatches == 1);
  CHECK(result.worst_index == 1);
}

TEST_CASE("exact comparison rejects one ulp and matches infinities", "[check]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<double> reference = {1.0, inf, 0.5};
  std::vector<float> got = {1.0f, inf, 0.5f};
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

TEST_CASE("the tolerance grows with the reduction length and the input magnitudes", "[check]") {
  const auto small = course::accumulation_tolerance(10, 1, 1);
  const auto large = course::accumulation_tolerance(1000, 1, 1);
  CHECK(large.atol == Approx(100 * small.atol));
  CHECK(course::accumulation_tolerance(10, 2, 3).atol == Approx(6 * small.atol));
  CHECK(small.rtol == 4 * course::kFloatEpsilon);
  CHECK(course::exact_tolerance().exact());
  CHECK_FALSE(small.exact());
}

TEST_CASE("the worst element is reported with its position", "[check]") {
  const std::vector<float> got = {1.0f, 2.0f, 3.5f, 4.0f};
  const auto result = course::compare(
      got.data(), got.size(), [](std::size_t i) { return static_cast<double>(i + 1); },
      course::Tolerance{0.1, 0});
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
    for (std::size_t c = 0; c < 3; ++c) {
      CHECK(std::binary_search(thin.begin(), thin.end(), row * 3 + c));
    }
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
  const float one = 1.0f;
  CHECK(course::round_to_tf32(one) == one);
  CHECK(course::round_to_tf32(std::ldexp(1.0f, -20)) == std::ldexp(1.0f, -20));
  CHECK(course::round_to_tf32(1.0f + std::ldexp(1.0f, -12)) == one);  // below half a step
  CHECK(course::round_to_tf32(1.0f + std::ldexp(1.0f, -11)) ==
        1.0f + std::ldexp(1.0f, -10));  // a tie, away from zero
  CHECK(course::round_to_tf32(-1.0f - std::ldexp(1.0f, -11)) == -1.0f - std::ldexp(1.0f, -10));
  CHECK(course::round_to_tf32(1.0f + 3 * std::ldexp(1.0f, -12)) == 1.0f + std::ldexp(1.0f, -10));
  CHECK(course::round_to_tf32(2.0f - std::ldexp(1.0f, -12)) == 2.0f);  // carries into the exponent
  CHECK(std::isinf(course::round_to_tf32(std::numeric_limits<float>::max())));
  CHECK(std::isinf(course::round_to_tf32(std::numeric_limits<float>::infinity())));
  CHECK(std::isnan(course::round_to_tf32(std::numeric_limits<float>::quiet_NaN())));
  const auto values = course::random_uniform(10000, 31);
  for (float x : values) {
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

TEST_CASE("TF32 loses a small difference of nearly equal terms", "[check]") {
  // The lesson's example: (1 + 2^-12) * 1 + (-1) * 1 is 2^-12 exactly in FP32 and 0 in TF32.
  const std::vector<float> A = {1.0f + std::ldexp(1.0f, -12), -1.0f};
  const std::vector<float> B = {1.0f, 1.0f};
  CHECK(float_matmul(A, B, 1, 1, 2)[0] == std::ldexp(1.0f, -12));
  CHECK(tf32_matmul(A, B, 1, 1, 2)[0] == 0.0f);
}
