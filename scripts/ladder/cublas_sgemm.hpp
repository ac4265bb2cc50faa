/// @file cublas_sgemm.hpp
/// @brief The vendor baselines of matmul: cuBLAS SGEMM in plain FP32 (TF32 off), and with TF32
/// tensor cores allowed.
#pragma once

#include "course/problems.hpp"

namespace ladder {

/// What the ladder prints about the baselines' math modes.
inline constexpr const char* kCublasMathNote =
    "cuBLAS SGEMM runs with CUBLAS_PEDANTIC_MATH (plain FP32, TF32 tensor cores off); cuBLAS TF32 "
    "with CUBLAS_TF32_TENSOR_OP_MATH (inputs rounded to TF32 on tensor cores)";

/// A problem set with only matmul, row-major C = A * B through cublasSgemm on a handle of its own
/// (destroyed with the last copy of the launcher), and @p arithmetic, which decides the tolerance
/// of its check. With course::Arithmetic::fp32 the handle is set to pedantic FP32 math
/// (CUBLAS_PEDANTIC_MATH: no TF32 tensor cores, no reduced-precision shortcuts), so the baseline
/// computes what the FP32 chapters compute; with course::Arithmetic::tf32 to
/// CUBLAS_TF32_TENSOR_OP_MATH, the baseline of the tensor-core chapters. Throws course::CudaError
/// when the handle cannot be made.
course::ProblemSet cublas_sgemm(course::Arithmetic arithmetic);

}  // namespace ladder
