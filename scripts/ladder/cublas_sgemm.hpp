/// @file cublas_sgemm.hpp
/// @brief The vendor baselines of matmul: cuBLAS SGEMM in plain FP32 (TF32 off), and with TF32
/// tensor cores allowed.
#pragma once

#include "course/problems.hpp"

struct cublasContext;  // cuBLAS's handle type, cublasHandle_t, points to one

namespace ladder {

/// What the ladder prints about the baselines' math modes.
inline constexpr const char* kCublasMathNote =
    "cuBLAS SGEMM runs with CUBLAS_PEDANTIC_MATH (plain FP32, TF32 tensor cores off); cuBLAS TF32 "
    "with CUBLAS_TF32_TENSOR_OP_MATH (inputs rounded to TF32 on tensor cores)";

/// A cuBLAS handle for SGEMM in one math mode. With course::Arithmetic::fp32 it is set to
/// pedantic FP32 math (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores, no reduced-precision
/// shortcuts), so the baseline computes what the FP32 chapters compute; with
/// course::Arithmetic::tf32 to CUBLAS_TF32_TENSOR_OP_MATH, the baseline of the tensor-core
/// chapter. While the object lives, problems() offers its matmul as an ordinary
/// course::ProductLauncher.
class CublasSgemm {
 public:
  /// Creates the handle and sets the math mode of @p arithmetic. Throws course::CudaError on
  /// failure.
  explicit CublasSgemm(course::Arithmetic arithmetic = course::Arithmetic::fp32);
  /// Destroys the handle.
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  /// A problem set with only matmul: row-major C = A * B through cublasSgemm on this handle, and
  /// this handle's arithmetic (which decides the tolerance of its check).
  course::ProblemSet problems() const;

 private:
  cublasContext* handle_ = nullptr;
  course::Arithmetic arithmetic_ = course::Arithmetic::fp32;
};

}  // namespace ladder
