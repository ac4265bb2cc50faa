#include "course/timing.hpp"

#include "course/cuda_check.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace course {

TimingStats summarize(std::vector<double> samples_ms) {
  if (samples_ms.empty())
    throw std::invalid_argument("summarize: no timing samples");
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t count = samples_ms.size();
  TimingStats stats;
  stats.runs = static_cast<int>(count);
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.median_ms = count % 2 == 1 ? samples_ms[count / 2]
                                   : 0.5 * (samples_ms[count / 2 - 1] + samples_ms[count / 2]);
  return stats;
}

TimingStats time_on_stream(const std::function<void()>& work, int warmup, int runs,
                           cudaStream_t stream) {
  if (runs < 1)
    throw std::invalid_argument("time_on_stream: at least one timed run is needed");
  for (int i = 0; i < warmup; ++i)
    work();
  COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));

  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  COURSE_CUDA_CHECK(cudaEventCreate(&start));
  COURSE_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples_ms;
  samples_ms.reserve(static_cast<std::size_t>(runs));
  try {
    for (int i = 0; i < runs; ++i) {
      COURSE_CUDA_CHECK(cudaEventRecord(start, stream));
      work();
      COURSE_CUDA_CHECK(cudaEventRecord(stop, stream));
      COURSE_CUDA_CHECK(cudaEventSynchronize(stop));
      float elapsed_ms = 0;
      COURSE_CUDA_CHECK(cudaEventElapsedTime(&elapsed_ms, start, stop));
      samples_ms.push_back(elapsed_ms);
    }
  } catch (...) {
    (void)cudaEventDestroy(start);
    (void)cudaEventDestroy(stop);
    throw;
  }
  COURSE_CUDA_CHECK(cudaEventDestroy(start));
  COURSE_CUDA_CHECK(cudaEventDestroy(stop));
  return summarize(std::move(samples_ms));
}

PoolMemoryKept::PoolMemoryKept() {
  int device = 0;
  int pools_supported = 0;
  COURSE_CUDA_CHECK(cudaGetDevice(&device));
  COURSE_CUDA_CHECK(
      cudaDeviceGetAttribute(&pools_supported, cudaDevAttrMemoryPoolsSupported, device));
  if (pools_supported == 0)
    return;
  cudaMemPool_t pool = nullptr;
  COURSE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  COURSE_CUDA_CHECK(
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &previous_threshold_));
  std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();
  COURSE_CUDA_CHECK(
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  pool_ = pool;
}

PoolMemoryKept::~PoolMemoryKept() {
  if (pool_ == nullptr)
    return;
  (void)cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &previous_threshold_);
  (void)cudaMemPoolTrimTo(pool_, 0);
}

}  // namespace course
