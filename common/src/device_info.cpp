#include "course/device_info.hpp"

#include "course/ceiling.hpp"
#include "course/cuda_check.hpp"

#include <cxxabi.h>

#include <climits>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace course {

int fp32_lanes_per_sm(int major, int minor) {
  switch (major) {
    case 5:
      return 128;
    case 6:
      return minor == 0 ? 64 : 128;
    case 7:
      return 64;  // Volta and Turing
    case 8:
      return minor == 0 ? 64 : 128;  // A100: 64; GA10x and Ada: 128
    case 9:
      return 128;  // Hopper
    case 10:
    case 11:
    case 12:
      return 128;  // Blackwell
    default:
      return 0;
  }
}

int tf32_flop_per_sm_cycle(int major, int minor) {
  if (major == 8)
    return minor == 0 ? 1024 : minor == 9 ? 512 : 256;
  return major == 9 ? 2048 : 0;
}

int tensor_rated_clock_khz(int major, int /*minor*/) {
  constexpr int kHopperTensorClockKhz = 1830000;
  return major == 9 ? kHopperTensorClockKhz : 0;
}

double DeviceInfo::tf32_peak_flops() const {
  const int rated = tensor_rated_clock_khz(major, minor);
  const int clock = rated > 0 && rated < clock_khz ? rated : clock_khz;
  return static_cast<double>(sms) * tf32_flop_per_sm_cycle(major, minor) * clock * 1e3;
}

double DeviceInfo::fma_slots_per_second() const {
  return static_cast<double>(sms) * fp32_lanes * clock_khz * 1e3;
}

double DeviceInfo::fp32_peak_flops() const {
  return fma_slots_per_second() * operation(Problem::matmul).per_fma_slot;
}

double DeviceInfo::minplus_peak_steps() const {
  return fma_slots_per_second() * operation(Problem::minplus).per_fma_slot;
}

double DeviceInfo::memory_bandwidth() const {
  return 2.0 * memory_clock_khz * 1e3 * memory_bus_bits / 8.0;
}

std::string DeviceInfo::summary() const {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << name << ", compute capability " << major << "." << minor << ", " << sms
      << " SMs at " << clock_khz / 1000 << " MHz, shared memory " << shared_per_sm / 1024
      << " KiB per SM and " << shared_per_block_optin / 1024 << " KiB per block (opt-in), "
      << static_cast<double>(global_bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB; FP32 peak ";
  if (fp32_lanes > 0) {
    out << fp32_peak_flops() / 1e12 << " TFLOP/s (" << sms << " SMs x " << fp32_lanes << " lanes x "
        << clock_khz / 1000 << " MHz x 2)";
  } else {
    out << "unknown (no lanes-per-SM entry for this architecture)";
  }
  return out.str();
}

bool cuda_device_available(std::string* reason) {
  int count = 0;
  const cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess || count == 0) {
    if (reason != nullptr) {
      *reason = code != cudaSuccess ? cudaGetErrorString(code) : "the runtime sees no device";
    }
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

DeviceInfo query_device() {
  int device = 0;
  COURSE_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp properties{};
  COURSE_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
  DeviceInfo info;
  info.name = properties.name;
  info.major = properties.major;
  info.minor = properties.minor;
  info.sms = properties.multiProcessorCount;
  COURSE_CUDA_CHECK(cudaDeviceGetAttribute(&info.clock_khz, cudaDevAttrClockRate, device));
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, device));
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&info.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  info.shared_per_block = properties.sharedMemPerBlock;
  info.shared_per_block_optin = properties.sharedMemPerBlockOptin;
  info.shared_per_sm = properties.sharedMemPerMultiprocessor;
  info.global_bytes = properties.totalGlobalMem;
  info.fp32_lanes = fp32_lanes_per_sm(info.major, info.minor);
  return info;
}

std::string readable_kernel_name(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !demangled)
    return mangled;
  std::string name = demangled.get();
  if (name.rfind("void ", 0) == 0)
    name.erase(0, 5);
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
      if (depth == 0) {
        name.erase(i);
        break;
      }
    }
  }
  return name;
}

std::string KernelResources::summary() const {
  std::ostringstream out;
  out << name << ": " << registers << " registers/thread, " << static_shared << " B static + "
      << dynamic_shared << " B dynamic shared/block, " << local_bytes << " B local/thread, "
      << threads_per_block << " threads/block, " << grid_blocks << " blocks, " << blocks_per_sm
      << " active blocks/SM";
  return out.str();
}

KernelResources query_kernel(const LaunchRecord& launch) {
  KernelResources resources;
  cudaFuncAttributes attributes{};
  COURSE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  const char* mangled = nullptr;
  COURSE_CUDA_CHECK(cudaFuncGetName(&mangled, launch.kernel));
  resources.symbol = mangled;
  resources.name = readable_kernel_name(mangled);
  resources.registers = attributes.numRegs;
  resources.static_shared = attributes.sharedSizeBytes;
  resources.dynamic_shared = launch.dynamic_shared_bytes;
  resources.local_bytes = attributes.localSizeBytes;
  resources.threads_per_block = static_cast<int>(launch.block.x * launch.block.y * launch.block.z);
  const long long blocks = static_cast<long long>(launch.grid.x) * launch.grid.y * launch.grid.z;
  resources.grid_blocks = blocks > INT_MAX ? INT_MAX : static_cast<int>(blocks);
  COURSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resources.blocks_per_sm, launch.kernel, resources.threads_per_block,
      launch.dynamic_shared_bytes));
  return resources;
}

}  // namespace course
