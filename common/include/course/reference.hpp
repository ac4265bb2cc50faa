/// @file reference.hpp
/// @brief CPU references for the course's four problems.
///
/// matmul and the convolutions accumulate in double precision, so their reference is more
/// accurate than any FP32 kernel; minplus forms each candidate `a + b` in float, exactly as the GPU
/// does, and takes the minimum, which is exact, so the GPU must match it bit for bit. All matrices
/// are row-major. Each problem has a whole-output version and a one-element version (used to check
/// a sample of a large output).
#pragma once

#include <cstddef>

namespace course {

/// `C = A * B` with A m x k and B k x n, accumulated in double.
void matmul_reference(const float* A, const float* B, double* C, int m, int n, int k);
/// Element (@p i, @p j) of matmul_reference().
double matmul_reference_at(const float* A, const float* B, int n, int k, int i, int j);

/// `C[i][j] = min over p of (A[i][p] + B[p][j])`, each sum rounded to float. +infinity entries
/// ("no edge") propagate: a sum with an infinite term is infinite.
void minplus_reference(const float* A, const float* B, float* C, int m, int n, int k);
/// Element (@p i, @p j) of minplus_reference().
float minplus_reference_at(const float* A, const float* B, int n, int k, int i, int j);

/// 2D convolution of an @p h x @p w image with an odd @p mk x @p ml mask, zero padding, same-size
/// output: `out[y][x] = sum over (p, q) of mask[p][q] * img[y + mk/2 - p][x + ml/2 - q]`, the
/// definition of `scipy.ndimage.convolve` with mode `constant`. Accumulated in double.
void conv2d_reference(const float* img, int h, int w, const float* mask, int mk, int ml,
                      double* out);
/// Element (@p y, @p x) of conv2d_reference().
double conv2d_reference_at(const float* img, int h, int w, const float* mask, int mk, int ml, int y,
                           int x);

/// Full 1D convolution: `y[i] = sum over j of a[i - j] * b[j]` for i in [0, n + m - 1), where a has
/// @p n samples and b @p m taps. Accumulated in double.
void conv1d_reference(const float* a, int n, const float* b, int m, double* y);
/// Sample @p i of conv1d_reference().
double conv1d_reference_at(const float* a, int n, const float* b, int m, long long i);

}  // namespace course
