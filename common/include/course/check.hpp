/// @file check.hpp
/// @brief Comparing a GPU result with the CPU reference: the tolerance rule, the verdict, and
/// sampling for outputs too large to recompute on the CPU.
///
/// ## The tolerance rule (the only place it is defined)
/// An element passes when `|got - ref| <= atol + rtol * |ref|` and `got` is not NaN, where for a
/// result that sums `L` products of inputs bounded by `Ma` and `Mb` in magnitude:
/// - `atol = 2 * L * eps * Ma * Mb`: each of the L additions of a float sum may round by half an
///   ulp of the running sum; their errors mostly cancel, so the observed error is about a tenth of
///   `L * eps * Ma * Mb`, and the factor 2 leaves a margin of about 20 without letting a missing or
///   wrong term (an error the size of one product) through;
/// - `rtol = 4 * eps`: the rounding of the final value, with a margin;
/// - eps is FP32's machine epsilon, 2^-23.
///
/// L is k for matmul and the mask area (or length) for the convolutions. minplus is compared
/// exactly (see reference.hpp). NaN never passes, so a poisoned element that the kernel did not
/// write is always caught.
///
/// ## TF32 products (tensor cores)
/// A product whose inputs are rounded to TF32 (10 mantissa bits, round to nearest) carries the
/// rounding of each input, relative error at most u = 2^-11, and so each term `a*b` an error
/// `a*b*(da + db)` with |da|, |db| <= u (the u^2 term is below FP32's own rounding). The check
/// compares with the exact product of the unrounded inputs and allows, on top of the FP32 rule:
/// - `atol += 6 * sqrt(2L/3) * u * Ma * Mb`: for random inputs the roundings are independent and
///   spread evenly over [-u, u] (variance u^2/3), so the L errors sum to a standard deviation of
///   at most `sqrt(2L/3) * u * Ma * Mb`; six of those is never reached by chance, while a missing
///   or misplaced term of usual size (about Ma * Mb / 4 for uniform inputs) still fails while L is
///   below about ten thousand;
/// - `rtol += 2u`: when every term has the same sign the roundings need not cancel, and the error
///   is at most 2u times the sum of |a*b|, which is then |ref|.
/// Inputs built to round the same way everywhere with cancelling signs (1 + 2^-12 against -1)
/// fall outside both parts: that is TF32's real error, shown in chapter 6's lesson.
#pragma once

#include "course/problems.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace course {

/// FP32 machine epsilon, 2^-23.
constexpr double kFloatEpsilon = 1.1920928955078125e-07;

/// Largest relative error of rounding to the nearest TF32 value (10 mantissa bits): 2^-11.
constexpr double kTf32UnitRoundoff = 4.8828125e-04;

/// @p x rounded to the nearest TF32 value, ties away from zero: what the GPU's
/// `cvt.rna.tf32.f32` gives, as a float whose 13 lowest mantissa bits are zero. Infinities and
/// NaN are returned unchanged; a value that rounds past FLT_MAX becomes infinity.
float round_to_tf32(float x);

/// Outputs cheaper than this many multiply-adds to recompute are checked in full; larger ones on a
/// sample (about 0.15 s of CPU time at either end).
constexpr double kFullCheckBudget = 134217728.0;  // 2^27

/// Number of entries checked when an output is checked on a sample.
constexpr std::size_t kSampleSize = 4096;

/// Per-element tolerance `|got - ref| <= atol + rtol * |ref|`; exact when both are zero.
struct Tolerance {
  double atol = 0;  ///< absolute part
  double rtol = 0;  ///< relative part
  /// Whether this tolerance demands equality.
  bool exact() const { return atol == 0 && rtol == 0; }
};

/// The tolerance for a result that sums @p reduction_length products of inputs whose magnitudes
/// are bounded by @p max_abs_a and @p max_abs_b (the rule in this file's description).
Tolerance accumulation_tolerance(long long reduction_length, double max_abs_a, double max_abs_b);

/// The tolerance for a sum of @p reduction_length products of TF32-rounded inputs (the TF32 part
/// of this file's description added to accumulation_tolerance()).
Tolerance tf32_tolerance(long long reduction_length, double max_abs_a, double max_abs_b);

/// The tolerance of a product with @p arithmetic: accumulation_tolerance() or tf32_tolerance().
Tolerance product_tolerance(Arithmetic arithmetic, long long reduction_length, double max_abs_a,
                            double max_abs_b);

/// Equality: the tolerance of minplus and of exact small-integer tests.
Tolerance exact_tolerance();

/// Largest |x| over @p values (0 for none; infinities ignored, since they are "no edge" markers).
double max_abs(const std::vector<float>& values);

/// The outcome of a comparison. The worst element is the one with the largest error relative to
/// its allowance (or the first NaN if there is one).
struct CheckResult {
  bool passed = false;             ///< no NaN and no element outside the tolerance
  bool sampled = false;            ///< only a sample of the output was compared
  std::size_t compared = 0;        ///< number of elements compared
  std::size_t mismatches = 0;      ///< elements outside the tolerance (NaNs included)
  std::size_t nans = 0;            ///< NaN elements: unwritten (poisoned) or computed NaN
  std::size_t worst_index = 0;     ///< flat index of the worst element
  double worst_got = 0;            ///< GPU value there
  double worst_reference = 0;      ///< reference value there
  double worst_abs_error = 0;      ///< |got - reference| there
  double worst_allowed_error = 0;  ///< atol + rtol * |reference| there
  Tolerance tolerance;             ///< the tolerance used
  /// One line: PASS/FAIL, what was compared, the worst element; @p columns > 0 prints the worst
  /// index as (row, column) of a matrix with that many columns.
  std::string summary(std::size_t columns = 0) const;
};

/// Compares @p got (an output of @p count elements) with @p reference_at(index) at the flat
/// indices @p indices, or at every index when @p indices is empty.
CheckResult compare(const float* got, std::size_t count,
                    const std::function<double(std::size_t)>& reference_at,
                    const Tolerance& tolerance, const std::vector<std::size_t>& indices = {});

/// The documented sample of a @p rows x @p columns output: the four corners, the whole first and
/// last row and column when they are short, and random entries (seeded by @p seed) up to
/// kSampleSize entries in all.
std::vector<std::size_t> sample_indices(std::size_t rows, std::size_t columns, std::uint64_t seed);

/// Checks a matmul result @p C (m x n) against the double reference, in full or on a sample, with
/// the tolerance of @p arithmetic.
CheckResult check_matmul(const std::vector<float>& A, const std::vector<float>& B,
                         const std::vector<float>& C, int m, int n, int k, std::uint64_t seed,
                         Arithmetic arithmetic = Arithmetic::fp32);
/// Checks a minplus result exactly, in full or on a sample.
CheckResult check_minplus(const std::vector<float>& A, const std::vector<float>& B,
                          const std::vector<float>& C, int m, int n, int k, std::uint64_t seed);
/// Checks a conv2d result (h x w) against the double reference, in full or on a sample.
CheckResult check_conv2d(const std::vector<float>& img, int h, int w,
                         const std::vector<float>& mask, int mk, int ml,
                         const std::vector<float>& out, std::uint64_t seed);
/// Checks a full conv1d result (n + m - 1 samples) against the double reference.
CheckResult check_conv1d(const std::vector<float>& a, int n, const std::vector<float>& b, int m,
                         const std::vector<float>& y, std::uint64_t seed);

}  // namespace course
