/// @file problems.hpp
/// @brief The course's four problems, one problem at one size (a workload), the launcher
/// signature of each problem, and the set of launchers one chapter provides.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

/// The course library (`common/`): everything a chapter needs besides its kernels: the problems
/// and their launcher signatures, the shared driver, the command line, seeded inputs, the CPU
/// references and the checks against them, timing with CUDA events, device information, reports
/// and launch helpers.
namespace course {

/// The problems carried through the chapters.
enum class Problem { matmul, minplus, conv2d, conv1d };

/// The largest mask side any chapter accepts for conv2d.
constexpr int kMaxMaskSide = 63;

/// Every problem, in the order the executables run them.
constexpr Problem kAllProblems[] = {Problem::matmul, Problem::minplus, Problem::conv2d,
                                    Problem::conv1d};

/// The problem's name as used on the command line and in reports ("matmul", ...).
const char* problem_name(Problem problem);

/// Parses a problem name; returns false if @p name is not one.
bool parse_problem(const std::string& name, Problem& problem);

/// The problems a kernel computes, by its readable name: the ones whose word it holds (a
/// product's semiring, "PlusTimes" or "MinPlus"; a convolution's name, "conv2d" or "conv1d"), or
/// every problem where it holds none (a helper such as a padding kernel).
std::vector<Problem> problems_of_kernel(const std::string& name);

/// One problem at one size: what a launcher runs on. Only the sizes of its own problem matter;
/// the constructors below leave the others at 1.
struct Workload {
  Problem problem = Problem::matmul;  ///< which problem
  int m = 1;                          ///< products: rows of A and C
  int n = 1;                          ///< products: columns of B and C
  int k = 1;                          ///< products: columns of A, rows of B
  int height = 1;                     ///< conv2d: image rows
  int width = 1;                      ///< conv2d: image columns
  int mask_rows = 1;                  ///< conv2d: mask rows (odd)
  int mask_cols = 1;                  ///< conv2d: mask columns (odd)
  int signal_length = 1;              ///< conv1d: signal samples
  int taps = 1;                       ///< conv1d: mask length

  /// Whether @p other is the same problem at the same sizes (the sizes of other problems aside).
  bool operator==(const Workload& other) const;
  /// The opposite of operator==.
  bool operator!=(const Workload& other) const { return !(*this == other); }
};

/// A matmul or minplus workload: A is @p m x @p k, B is @p k x @p n.
Workload product_workload(Problem problem, int m, int n, int k);
/// A conv2d workload: an @p height x @p width image and a @p mask_rows x @p mask_cols mask.
Workload conv2d_workload(int height, int width, int mask_rows, int mask_cols);
/// A conv1d workload: @p signal_length samples and a mask of @p taps taps.
Workload conv1d_workload(int signal_length, int taps);

/// The unit of the rate reported for @p problem: "TFLOP/s" (matmul), "Tstep/s" (minplus),
/// "Gpixel/s" (conv2d) or "Gsample/s" (conv1d).
const char* rate_unit(Problem problem);

/// The rate's scale: 1e12 for the products (T...), 1e9 for the convolutions (G...).
double rate_scale(Problem problem);

/// Work of one run counted in the rate's unit (before its scale): FLOPs for matmul (2mnk), steps
/// for minplus (mnk), output pixels for conv2d, output samples for conv1d.
double work_per_run(const Workload& workload);

/// FP32 operations of one run: a multiply-add or a min-plus step (an add and a min) counts two.
double flops_per_run(const Workload& workload);

/// `matmul(A, B, C, m, n, k, stream)` and `minplus(...)`: A is m x k, B is k x n, C is m x n, all
/// row-major device pointers.
using ProductLauncher = std::function<void(const float* A, const float* B, float* C, int m, int n,
                                           int k, cudaStream_t stream)>;

/// `conv2d(img, h, w, mask, mk, ml, out, stream)`: an h x w image, an odd mk x ml mask, an h x w
/// output, all device pointers.
using Conv2dLauncher = std::function<void(const float* img, int h, int w, const float* mask, int mk,
                                          int ml, float* out, cudaStream_t stream)>;

/// `conv1d(a, n, b, m, y, stream)`: a signal of n samples, a mask of m taps, and the n + m - 1
/// samples of the full convolution, all device pointers.
using Conv1dLauncher = std::function<void(const float* a, int n, const float* b, int m, float* y,
                                          cudaStream_t stream)>;

/// How a product kernel multiplies: FP32 on the FMA pipes, or TF32 inputs on tensor cores.
enum class Arithmetic {
  fp32,  ///< every product and sum in FP32
  tf32,  ///< inputs rounded to TF32, products and sums in FP32 (chapter 6)
};

/// The launchers of one chapter, each of its problem's plain signature; an empty one means the
/// chapter does not carry that problem.
struct ProblemSet {
  ProductLauncher matmul;   ///< plus-times product
  ProductLauncher minplus;  ///< min-plus product
  Conv2dLauncher conv2d;    ///< 2D convolution
  Conv1dLauncher conv1d;    ///< full 1D convolution
  /// How matmul multiplies, which decides the tolerance of its check (course/check.hpp).
  Arithmetic arithmetic = Arithmetic::fp32;
  /// Whether this set has a launcher for @p problem.
  bool offers(Problem problem) const;
  /// Whether this set has no launcher at all.
  bool empty() const;
};

/// A launcher of the problem's plain signature that calls @p launcher with the problem's
/// arguments followed by @p choice. A launcher that offers a choice (a tile width, a thread
/// mapping) takes it as its one trailing parameter; this is how a driver binds the choice made on
/// the command line, e.g. `with_choice(launch_matmul, 16)`.
template <typename Launcher, typename Choice>
auto with_choice(Launcher launcher, Choice choice) {
  return [launcher, choice](auto... arguments) { launcher(arguments..., choice); };
}

}  // namespace course
