#include "course/check.hpp"

#include "course/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace course {
namespace {

// Rows and columns up to this length are included whole in a sample.
constexpr std::size_t kShortEdge = 256;

bool full_check_affordable(double outputs, double reduction_length) {
  return outputs * reduction_length <= kFullCheckBudget;
}

}  // namespace

Tolerance accumulation_tolerance(long long reduction_length, double max_abs_a, double max_abs_b) {
  Tolerance tolerance;
  tolerance.atol =
      2.0 * static_cast<double>(reduction_length) * kFloatEpsilon * max_abs_a * max_abs_b;
  tolerance.rtol = 4.0 * kFloatEpsilon;
  return tolerance;
}

float round_to_tf32(float x) {
  if (!std::isfinite(x))
    return x;
  constexpr std::uint32_t kDroppedBits = 13;  // 23 mantissa bits of FP32, 10 of TF32
  constexpr std::uint32_t kHalf = 1u << (kDroppedBits - 1);
  constexpr std::uint32_t kKept = ~((1u << kDroppedBits) - 1);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t sign = bits & 0x80000000u;
  // Adding half of the dropped range to the magnitude rounds it to nearest, ties away from zero;
  // a carry into the exponent is the correct next binade (or infinity past FLT_MAX).
  const std::uint32_t magnitude = ((bits & 0x7fffffffu) + kHalf) & kKept;
  bits = sign | magnitude;
  float rounded = 0;
  std::memcpy(&rounded, &bits, sizeof rounded);
  return rounded;
}

Tolerance tf32_tolerance(long long reduction_length, double max_abs_a, double max_abs_b) {
  Tolerance tolerance = accumulation_tolerance(reduction_length, max_abs_a, max_abs_b);
  constexpr double kSigmas = 6.0;
  const double spread = std::sqrt(2.0 * static_cast<double>(reduction_length) / 3.0) *
                        kTf32UnitRoundoff * max_abs_a * max_abs_b;
  tolerance.atol += kSigmas * spread;
  tolerance.rtol += 2.0 * kTf32UnitRoundoff;
  return tolerance;
}

Tolerance product_tolerance(Arithmetic arithmetic, long long reduction_length, double max_abs_a,
                            double max_abs_b) {
  return arithmetic == Arithmetic::tf32
             ? tf32_tolerance(reduction_length, max_abs_a, max_abs_b)
             : accumulation_tolerance(reduction_length, max_abs_a, max_abs_b);
}

Tolerance exact_tolerance() {
  return Tolerance{};
}

double max_abs(const std::vector<float>& values) {
  double largest = 0;
  for (float value : values) {
    if (std::isfinite(value))
      largest = std::max(largest, static_cast<double>(std::fabs(value)));
  }
  return largest;
}

std::string CheckResult::summary(std::size_t columns) const {
  std::ostringstream out;
  out.precision(9);
  out << (passed ? "PASS" : "FAIL") << ": " << compared << (sampled ? " sampled" : "")
      << " elements compared, " << mismatches << " mismatching, " << nans << " NaN";
  if (compared > 0) {
    out << "; worst at ";
    if (columns > 0) {
      out << "(" << worst_index / columns << ", " << worst_index % columns << ")";
    } else {
      out << "[" << worst_index << "]";
    }
    out << ": got " << worst_got << ", reference " << worst_reference;
    out.precision(3);
    if (tolerance.exact()) {
      out << " (exact comparison)";
    } else {
      out << ", |error| " << worst_abs_error
          << (worst_abs_error <= worst_allowed_error ? " <= " : " > ") << "allowed "
          << worst_allowed_error;
    }
  }
  return out.str();
}

CheckResult compare(const float* got, std::size_t count,
                    const std::function<double(std::size_t)>& reference_at,
                    const Tolerance& tolerance, const std::vector<std::size_t>& indices) {
  CheckResult result;
  result.tolerance = tolerance;
  result.sampled = !indices.empty() && indices.size() < count;
  double worst_score = -1;  // error relative to its allowance; NaN scores highest
  const std::size_t total = indices.empty() ? count : indices.size();
  for (std::size_t position = 0; position < total; ++position) {
    const std::size_t index = indices.empty() ? position : indices[position];
    const double value = got[index];
    const double reference = reference_at(index);
    const double allowed = tolerance.atol + tolerance.rtol * std::fabs(reference);
    double error = 0;
    double score = 0;
    bool ok = false;
    if (std::isnan(value)) {
      ++result.nans;
      error = std::numeric_limits<double>::infinity();
      score = std::numeric_limits<double>::infinity();
    } else if (std::isinf(reference) || std::isinf(value)) {
      ok = value == reference;  // infinities match only themselves
      error = ok ? 0 : std::numeric_limits<double>::infinity();
      score = ok ? 0 : std::numeric_limits<double>::max();
    } else {
      error = std::fabs(value - reference);
      ok = error <= allowed;
      score = allowed > 0 ? error / allowed : (error > 0 ? std::numeric_limits<double>::max() : 0);
    }
    if (!ok)
      ++result.mismatches;
    ++result.compared;
    if (score > worst_score) {
      worst_score = score;
      result.worst_index = index;
      result.worst_got = value;
      result.worst_reference = reference;
      result.worst_abs_error = error;
      result.worst_allowed_error = allowed;
    }
  }
  result.passed = result.compared > 0 && result.mismatches == 0;
  return result;
}

std::vector<std::size_t> sample_indices(std::size_t rows, std::size_t columns, std::uint64_t seed) {
  const std::size_t count = rows * columns;
  std::vector<std::size_t> indices;
  if (count <= kSampleSize) {
    indices.resize(count);
    for (std::size_t i = 0; i < count; ++i)
      indices[i] = i;
    return indices;
  }
  auto at = [columns](std::size_t row, std::size_t column) { return row * columns + column; };
  indices = {at(0, 0), at(0, columns - 1), at(rows - 1, 0), at(rows - 1, columns - 1)};
  if (columns <= kShortEdge) {
    for (std::size_t c = 0; c < columns; ++c) {
      indices.push_back(at(0, c));
      indices.push_back(at(rows - 1, c));
    }
  }
  if (rows <= kShortEdge) {
    for (std::size_t r = 0; r < rows; ++r) {
      indices.push_back(at(r, 0));
      indices.push_back(at(r, columns - 1));
    }
  }
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<std::size_t> any(0, count - 1);
  while (indices.size() < kSampleSize)
    indices.push_back(any(generator));
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return indices;
}

CheckResult check_matmul(const std::vector<float>& A, const std::vector<float>& B,
                         const std::vector<float>& C, int m, int n, int k, std::uint64_t seed,
                         Arithmetic arithmetic) {
  const Tolerance tolerance = product_tolerance(arithmetic, k, max_abs(A), max_abs(B));
  const std::size_t count = static_cast<std::size_t>(m) * n;
  if (full_check_affordable(static_cast<double>(count), k)) {
    std::vector<double> reference(count);
    matmul_reference(A.data(), B.data(), reference.data(), m, n, k);
    return compare(
        C.data(), count, [&](std::size_t i) { return reference[i]; }, tolerance);
  }
  return compare(
      C.data(), count,
      [&](std::size_t i) {
        return matmul_reference_at(A.data(), B.data(), n, k, static_cast<int>(i / n),
                                   static_cast<int>(i % n));
      },
      tolerance, sample_indices(m, n, seed));
}

CheckResult check_minplus(const std::vector<float>& A, const std::vector<float>& B,
                          const std::vector<float>& C, int m, int n, int k, std::uint64_t seed) {
  const std::size_t count = static_cast<std::size_t>(m) * n;
  if (full_check_affordable(static_cast<double>(count), k)) {
    std::vector<float> reference(count);
    minplus_reference(A.data(), B.data(), reference.data(), m, n, k);
    return compare(
        C.data(), count, [&](std::size_t i) { return reference[i]; }, exact_tolerance());
  }
  return compare(
      C.data(), count,
      [&](std::size_t i) {
        return minplus_reference_at(A.data(), B.data(), n, k, static_cast<int>(i / n),
                                    static_cast<int>(i % n));
      },
      exact_tolerance(), sample_indices(m, n, seed));
}

CheckResult check_conv2d(const std::vector<float>& img, int h, int w,
                         const std::vector<float>& mask, int mk, int ml,
                         const std::vector<float>& out, std::uint64_t seed) {
  const long long area = static_cast<long long>(mk) * ml;
  const Tolerance tolerance = accumulation_tolerance(area, max_abs(img), max_abs(mask));
  const std::size_t count = static_cast<std::size_t>(h) * w;
  auto reference_at = [&](std::size_t i) {
    return conv2d_reference_at(img.data(), h, w, mask.data(), mk, ml, static_cast<int>(i / w),
                               static_cast<int>(i % w));
  };
  if (full_check_affordable(static_cast<double>(count), static_cast<double>(area))) {
    return compare(out.data(), count, reference_at, tolerance);
  }
  return compare(out.data(), count, reference_at, tolerance, sample_indices(h, w, seed));
}

CheckResult check_conv1d(const std::vector<float>& a, int n, const std::vector<float>& b, int m,
                         const std::vector<float>& y, std::uint64_t seed) {
  const Tolerance tolerance = accumulation_tolerance(std::min(n, m), max_abs(a), max_abs(b));
  const std::size_t count = static_cast<std::size_t>(n) + m - 1;
  auto reference_at = [&](std::size_t i) {
    return conv1d_reference_at(a.data(), n, b.data(), m, static_cast<long long>(i));
  };
  if (full_check_affordable(static_cast<double>(count), std::min(n, m))) {
    return compare(y.data(), count, reference_at, tolerance);
  }
  return compare(y.data(), count, reference_at, tolerance, sample_indices(1, count, seed));
}

}  // namespace course
