/// @file cublas_sgemm.hpp
/// @brief The vendor baseline of matmul: cuBLAS SGEMM in plain FP32, TF32 off.
#pragma once

#include "course/problems.hpp"

struct cublasContext;  // cuBLAS's handle type, cublasHandle_t, points to one

namespace ladder {

/// What the ladder prints about the baseline's math mode.
inline constexpr const char* kCublasMathNote =
    "cuBLAS SGEMM runs with CUBLAS_PEDANTIC_MATH: plain FP32, TF32 tensor cores off";

/// A cuBLAS handle set to pedantic FP32 math (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores, no
/// reduced-precision shortcuts), so the baseline computes what the chapters compute. While the
/// object lives, problems() offers its matmul as an ordinary course::ProductLauncher.
class CublasSgemm {
 public:
  /// Creates the handle and sets the math mode. Throws course::CudaError on failure.
  CublasSgemm();
  /// Destroys the handle.
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  /// A problem set with only matmul: row-major C = A * B through cublasSgemm on this handle.
  course::ProblemSet problems() const;

 private:
  cublasContext* handle_ = nullptr;
};

}  // namespace ladder
