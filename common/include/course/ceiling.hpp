/// @file ceiling.hpp
/// @brief What a measured rate is compared with, chosen in one place: the arithmetic peak of a
/// problem (the share of it that every report prints) and the hardware ceiling of a workload (the
/// tighter of that peak and the memory-bandwidth bound, which the ladder prints beside each rate).
#pragma once

#include "course/device_info.hpp"
#include "course/problems.hpp"

#include <string>

namespace course {

/// What a problem's arithmetic is counted in where it is set against the FMA pipe (the peaks
/// below, the profile's rate and roofline): FLOPs, or min-plus steps for minplus. A min-plus step
/// (an add and a min) is two of the FLOPs that flops_per_run() counts, and takes two FMA-pipe
/// slots where a multiply-add takes one: one lane's slot does two FLOPs, or half a step.
struct Operation {
  const char* unit = "FLOP";  ///< "FLOP" or "step"
  double flops = 1;           ///< FLOPs per operation: 1, or 2 for a min-plus step
  double per_fma_slot = 2;    ///< operations one lane's FMA-pipe slot does: 2, or 0.5 (steps)
};

/// The operation @p problem's arithmetic is counted in (course::Operation).
Operation operation(Problem problem);

/// The arithmetic peak a run is measured against.
struct Peak {
  double flops = 0;  ///< operations per second (a min-plus step counts two); 0 if unknown
  std::string name;  ///< "FP32 peak", "min-plus peak" or "TF32 tensor peak"
  std::string key;   ///< the same for data: "fp32", "minplus" or "tf32"
};

/// The peak of @p problem on @p device: the min-plus step peak for minplus, the dense TF32
/// tensor-core peak for a TF32 product (DeviceInfo::tf32_peak_flops()), the FP32 peak of the CUDA
/// cores otherwise.
Peak arithmetic_peak(Problem problem, const DeviceInfo& device,
                     Arithmetic arithmetic = Arithmetic::fp32);

/// Bytes that one run must move at the least: every input read once and the output written once.
double bytes_per_run(const Workload& workload);

/// The fastest rate the hardware allows for a workload, in the workload's rate unit.
struct Ceiling {
  double rate = 0;          ///< the tighter of the two bounds below; 0 if neither is known
  std::string name;         ///< "FP32 peak", "min-plus peak", "TF32 tensor peak" or "memory bound"
  double compute_rate = 0;  ///< arithmetic bound: at the arithmetic_peak(); 0 if unknown
  double memory_rate = 0;   ///< bandwidth bound: bytes_per_run() at the memory bandwidth
};

/// The ceiling of @p workload on @p device: the arithmetic peak of @p arithmetic (FP32 FMA, the
/// TF32 tensor peak, or the min-plus step peak for minplus) or, where it is the tighter one, the
/// memory-bandwidth bound.
Ceiling ceiling(const Workload& workload, const DeviceInfo& device,
                Arithmetic arithmetic = Arithmetic::fp32);

}  // namespace course
