/// @file device_info.hpp
/// @brief What the reports say about the GPU and about each kernel that ran on it.
#pragma once

#include "course/launch.cuh"

#include <string>

namespace course {

/// FP32 lanes (FMA units) per SM for compute capability @p major.@p minor; 0 if unknown.
/// From NVIDIA's CUDA C++ Programming Guide, "Arithmetic Instructions" throughput table.
int fp32_lanes_per_sm(int major, int minor);

/// Dense TF32 tensor-core FLOP per SM per cycle for compute capability @p major.@p minor; 0 if
/// unknown. From NVIDIA's architecture whitepapers (A100: 1024; GA10x: 256; Ada: 512; Hopper:
/// 2048).
int tf32_flop_per_sm_cycle(int major, int minor);

/// The SM clock in kHz at which NVIDIA's datasheets rate the tensor cores of compute capability
/// @p major.@p minor, where it is below the clock the device reports (Hopper: 1830 MHz, which
/// gives the datasheet's 494.7 TFLOP/s of dense TF32 on an H100 or H200 SXM); 0: the device's.
int tensor_rated_clock_khz(int major, int minor);

/// The properties of the current device that the reports and the peaks need.
struct DeviceInfo {
  std::string name;                        ///< e.g. "NVIDIA H100 80GB HBM3"
  int major = 0;                           ///< compute capability, major
  int minor = 0;                           ///< compute capability, minor
  int sms = 0;                             ///< streaming multiprocessors
  int clock_khz = 0;                       ///< peak SM clock
  int memory_clock_khz = 0;                ///< peak memory clock
  int memory_bus_bits = 0;                 ///< memory bus width
  std::size_t shared_per_block = 0;        ///< default shared-memory limit per block (48 KiB)
  std::size_t shared_per_block_optin = 0;  ///< limit per block after opting in
  std::size_t shared_per_sm = 0;           ///< shared memory per SM
  std::size_t global_bytes = 0;            ///< device memory
  int fp32_lanes = 0;                      ///< FP32 lanes per SM (0 if unknown)

  /// FMA-pipe instruction slots per second, all lanes together: SMs x lanes x clock; 0 if unknown.
  double fma_slots_per_second() const;
  /// FP32 peak in FLOP/s: SMs x lanes x clock x 2 (an FMA counts as two operations); 0 if unknown.
  double fp32_peak_flops() const;
  /// Dense TF32 tensor-core peak in FLOP/s: SMs x tf32_flop_per_sm_cycle() x the clock that
  /// tensor_rated_clock_khz() gives (the device's clock where it gives none); 0 if unknown.
  double tf32_peak_flops() const;
  /// Min-plus peak in steps/s: one add and one min per step, two FMA-pipe slots, so half a step
  /// per slot (course::operation()); 0 if unknown.
  double minplus_peak_steps() const;
  /// Theoretical memory bandwidth in bytes/s: 2 (double data rate) x clock x bus width / 8.
  double memory_bandwidth() const;
  /// One line: name, capability, SMs, clock, shared memory, peak.
  std::string summary() const;
};

/// Reads the current device's properties. Throws course::CudaError if there is no device.
DeviceInfo query_device();

/// Whether at least one CUDA device is visible; if not, @p reason says why (the runtime's
/// message).
bool cuda_device_available(std::string* reason = nullptr);

/// A kernel's readable name from its compiler's (mangled) name: demangled, without its return
/// type and parameter list ("_Z11pad_kernelPf" becomes "pad_kernel"); @p mangled itself where it
/// does not demangle. Every report and tool names kernels this way.
std::string readable_kernel_name(const std::string& mangled);

/// Resources of one launched kernel: what the compiler gave it and what fits on an SM.
struct KernelResources {
  std::string name;                ///< readable kernel name: demangled, without its parameters
  std::string symbol;              ///< the compiler's (mangled) name, as ncu prints it, if known
  int registers = 0;               ///< registers per thread
  std::size_t static_shared = 0;   ///< `__shared__` bytes fixed at compile time
  std::size_t dynamic_shared = 0;  ///< bytes given as the third launch parameter
  std::size_t local_bytes = 0;     ///< local memory per thread (stack frame, spills)
  int threads_per_block = 0;       ///< threads per block of the launch
  int blocks_per_sm = 0;           ///< active blocks per SM, from the occupancy API
  int grid_blocks = 0;             ///< blocks in the grid (x * y * z), capped at INT_MAX
  /// One line for the report.
  std::string summary() const;
};

/// Asks the runtime about the kernel of @p launch.
KernelResources query_kernel(const LaunchRecord& launch);

}  // namespace course
