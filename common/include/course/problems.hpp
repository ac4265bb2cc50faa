/// @file problems.hpp
/// @brief The course's four problems, the launcher signature of each, and the set of launchers
/// one chapter provides.
#pragma once

#include "course/launch.cuh"

#include <cuda_runtime.h>

#include <string>

/// The course library (`common/`): everything a chapter needs besides its kernels: the problems
/// and their launcher signatures, the shared driver, the command line, seeded inputs, the CPU
/// references and the checks against them, timing with CUDA events, device information, reports
/// and launch helpers.
namespace course {

/// The problems carried through the chapters.
enum class Problem { matmul, minplus, conv2d, conv1d };

/// Every problem, in the order the executables run them.
constexpr Problem kAllProblems[] = {Problem::matmul, Problem::minplus, Problem::conv2d,
                                    Problem::conv1d};

/// The problem's name as used on the command line and in reports ("matmul", ...).
const char* problem_name(Problem problem);

/// Parses a problem name; returns false if @p name is not one.
bool parse_problem(const std::string& name, Problem& problem);

/// `matmul(A, B, C, m, n, k, stream, options)` and `minplus(...)`: A is m x k, B is k x n, C is
/// m x n, all row-major device pointers.
using ProductLauncher = void (*)(const float* A, const float* B, float* C, int m, int n, int k,
                                 cudaStream_t stream, const LaunchOptions& options);

/// `conv2d(img, h, w, mask, mk, ml, out, stream, options)`: an h x w image, an odd mk x ml mask,
/// an h x w output, all device pointers.
using Conv2dLauncher = void (*)(const float* img, int h, int w, const float* mask, int mk, int ml,
                                float* out, cudaStream_t stream, const LaunchOptions& options);

/// `conv1d(a, n, b, m, y, stream, options)`: a signal of n samples, a mask of m taps, and the
/// n + m - 1 samples of the full convolution, all device pointers.
using Conv1dLauncher = void (*)(const float* a, int n, const float* b, int m, float* y,
                                cudaStream_t stream, const LaunchOptions& options);

/// The launchers of one chapter; a null pointer means the chapter does not carry that problem.
struct ProblemSet {
  ProductLauncher matmul = nullptr;   ///< plus-times product
  ProductLauncher minplus = nullptr;  ///< min-plus product
  Conv2dLauncher conv2d = nullptr;    ///< 2D convolution
  Conv1dLauncher conv1d = nullptr;    ///< full 1D convolution
  /// Whether this set has a launcher for @p problem.
  bool offers(Problem problem) const;
};

}  // namespace course
