#include "course/ceiling.hpp"

namespace course {

Operation operation(Problem problem) {
  if (problem == Problem::minplus)
    return {"step", 2.0, 0.5};
  return {};
}

Peak arithmetic_peak(Problem problem, const DeviceInfo& device, Arithmetic arithmetic) {
  if (problem == Problem::minplus)
    return {operation(problem).flops * device.minplus_peak_steps(), "min-plus peak", "minplus"};
  if (problem == Problem::matmul && arithmetic == Arithmetic::tf32)
    return {device.tf32_peak_flops(), "TF32 tensor peak", "tf32"};
  return {device.fp32_peak_flops(), "FP32 peak", "fp32"};
}

double bytes_per_run(const Workload& w) {
  double elements = 0;
  switch (w.problem) {
    case Problem::matmul:
    case Problem::minplus:
      elements = 1.0 * w.m * w.k + 1.0 * w.k * w.n + 1.0 * w.m * w.n;
      break;
    case Problem::conv2d:
      elements = 2.0 * w.height * w.width + 1.0 * w.mask_rows * w.mask_cols;
      break;
    case Problem::conv1d:
      elements = 2.0 * w.signal_length + 2.0 * w.taps - 1;
      break;
  }
  return elements * sizeof(float);
}

Ceiling ceiling(const Workload& workload, const DeviceInfo& device, Arithmetic arithmetic) {
  Ceiling result;
  const double work = work_per_run(workload) / rate_scale(workload.problem);
  const Peak peak = arithmetic_peak(workload.problem, device, arithmetic);
  const double flops = flops_per_run(workload);
  if (peak.flops > 0 && flops > 0)
    result.compute_rate = work / (flops / peak.flops);
  const double bandwidth = device.memory_bandwidth();
  if (bandwidth > 0)
    result.memory_rate = work / (bytes_per_run(workload) / bandwidth);

  const bool memory_tighter = result.memory_rate > 0 && (result.compute_rate == 0 ||
                                                         result.memory_rate < result.compute_rate);
  if (memory_tighter) {
    result.rate = result.memory_rate;
    result.name = "memory bound";
  } else if (result.compute_rate > 0) {
    result.rate = result.compute_rate;
    result.name = peak.name;
  }
  return result;
}

}  // namespace course
