/// @file hopper.hpp
/// @brief What the Hopper chapters (7 and 8) need on the host: the one-line refusal of another GPU
/// or of a build without sm_90a code, and TMA's tensor maps of a row-major float matrix.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime.h>

#include <string>

#include "course/cuda_check.hpp"
#include "course/launch.cuh"  // require

namespace course {

/// Hopper's compute capability: TMA tensor copies, clusters and wgmma exist on 9.0 only (sm_90a
/// code runs on no other GPU).
inline constexpr int kHopperMajor = 9;

/// Refuses, with one line that says why, a GPU other than a Hopper or a build whose code for this
/// GPU is not sm_90a (@p kernel's binary version). @p needs names what the kernel uses, e.g.
/// "TMA and wgmma".
inline void require_hopper(const void* kernel, const std::string& needs) {
  const ComputeCapability capability = current_compute_capability();
  const std::string refusal =
      "matmul: " + needs + " need compute capability 9.0 (Hopper); this GPU has ";
  require(capability.major == kHopperMajor, refusal + capability.text());
  cudaFuncAttributes attributes{};
  COURSE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  require(attributes.binaryVersion == 10 * kHopperMajor,
          "matmul: this build has no sm_90a code for compute capability 9.0; configure with "
          "CMAKE_CUDA_ARCHITECTURES including 90");
}

/// The driver's cuTensorMapEncodeTiled, found at run time through the runtime, so that the
/// executables need no link to the driver library.
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    COURSE_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000,
                                                       cudaEnableDefault, &found));
    require(found == cudaDriverEntryPointSuccess && function != nullptr,
            "matmul: the CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12)");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  return encode;
}

/// The tensor map of a row-major @p rows x @p cols matrix at @p data whose rows are @p pitch
/// floats apart, copied in boxes of @p box_rows rows of @p box_cols floats with @p swizzle. Reads
/// past the matrix give zeros. The data type TFLOAT32 makes the copy engine round every float to
/// TF32 as it copies: the tensor cores would otherwise drop the 13 low bits (truncation).
inline CUtensorMap tf32_tile_map(const float* data, int rows, int cols, int pitch, int box_rows,
                                 int box_cols, CUtensorMapSwizzle swizzle) {
  CUtensorMap map{};
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t stride[1] = {static_cast<cuuint64_t>(pitch) * sizeof(float)};  // bytes
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t step[2] = {1, 1};
  const CUresult result =
      tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 2, const_cast<float*>(data),
                           size, stride, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  require(result == CUDA_SUCCESS, "matmul: cuTensorMapEncodeTiled failed with error " +
                                      std::to_string(static_cast<int>(result)));
  return map;
}

}  // namespace course
