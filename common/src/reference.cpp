#include "course/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace course {

void matmul_reference(const float* A, const float* B, double* C, int m, int n, int k) {
  // i-p-j order: the inner loop walks rows of B and C contiguously.
  for (int i = 0; i < m; ++i) {
    double* c_row = C + static_cast<std::size_t>(i) * n;
    std::fill(c_row, c_row + n, 0.0);
    for (int p = 0; p < k; ++p) {
      const double a = A[static_cast<std::size_t>(i) * k + p];
      const float* b_row = B + static_cast<std::size_t>(p) * n;
      for (int j = 0; j < n; ++j)
        c_row[j] += a * static_cast<double>(b_row[j]);
    }
  }
}

double matmul_reference_at(const float* A, const float* B, int n, int k, int i, int j) {
  double sum = 0;
  for (int p = 0; p < k; ++p) {
    sum += static_cast<double>(A[static_cast<std::size_t>(i) * k + p]) *
           static_cast<double>(B[static_cast<std::size_t>(p) * n + j]);
  }
  return sum;
}

void minplus_reference(const float* A, const float* B, float* C, int m, int n, int k) {
  for (int i = 0; i < m; ++i) {
    float* c_row = C + static_cast<std::size_t>(i) * n;
    std::fill(c_row, c_row + n, std::numeric_limits<float>::infinity());
    for (int p = 0; p < k; ++p) {
      const float a = A[static_cast<std::size_t>(i) * k + p];
      const float* b_row = B + static_cast<std::size_t>(p) * n;
      for (int j = 0; j < n; ++j)
        c_row[j] = std::fmin(c_row[j], a + b_row[j]);
    }
  }
}

float minplus_reference_at(const float* A, const float* B, int n, int k, int i, int j) {
  float best = std::numeric_limits<float>::infinity();
  for (int p = 0; p < k; ++p) {
    const float candidate =
        A[static_cast<std::size_t>(i) * k + p] + B[static_cast<std::size_t>(p) * n + j];
    best = std::fmin(best, candidate);
  }
  return best;
}

double conv2d_reference_at(const float* img, int h, int w, const float* mask, int mk, int ml, int y,
                           int x) {
  double sum = 0;
  for (int p = 0; p < mk; ++p) {
    const int source_y = y + mk / 2 - p;
    if (source_y < 0 || source_y >= h)
      continue;  // zero padding
    for (int q = 0; q < ml; ++q) {
      const int source_x = x + ml / 2 - q;
      if (source_x < 0 || source_x >= w)
        continue;
      sum += static_cast<double>(mask[p * ml + q]) *
             static_cast<double>(img[static_cast<std::size_t>(source_y) * w + source_x]);
    }
  }
  return sum;
}

void conv2d_reference(const float* img, int h, int w, const float* mask, int mk, int ml,
                      double* out) {
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      out[static_cast<std::size_t>(y) * w + x] = conv2d_reference_at(img, h, w, mask, mk, ml, y, x);
    }
  }
}

double conv1d_reference_at(const float* a, int n, const float* b, int m, long long i) {
  // Only taps j with 0 <= i - j < n contribute.
  const long long first = std::max(0LL, i - (n - 1));
  const long long last = std::min(static_cast<long long>(m) - 1, i);
  double sum = 0;
  for (long long j = first; j <= last; ++j) {
    sum += static_cast<double>(a[i - j]) * static_cast<double>(b[j]);
  }
  return sum;
}

void conv1d_reference(const float* a, int n, const float* b, int m, double* y) {
  const long long length = static_cast<long long>(n) + m - 1;
  for (long long i = 0; i < length; ++i)
    y[i] = conv1d_reference_at(a, n, b, m, i);
}

}  // namespace course
