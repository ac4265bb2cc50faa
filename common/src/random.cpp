#include "course/random.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <thread>

namespace course {
namespace {

// Fills @p count values chunk by chunk on at most @p workers threads. @p draw is copied for each
// chunk and called as draw(generator) once per element, in order, with the chunk's own generator:
// the values do not depend on which thread drew which chunk.
template <typename Draw>
std::vector<float> draw_chunks(std::size_t count, std::uint64_t seed, unsigned workers,
                               const Draw& draw) {
  std::vector<float> values(count);
  const std::size_t chunks = (count + kRandomChunk - 1) / kRandomChunk;
  std::atomic<std::size_t> next_chunk{0};
  auto work = [&] {
    for (std::size_t chunk = next_chunk++; chunk < chunks; chunk = next_chunk++) {
      std::mt19937_64 generator(derive_seed(seed, chunk));
      Draw chunk_draw = draw;
      const std::size_t last = std::min(count, (chunk + 1) * kRandomChunk);
      for (std::size_t i = chunk * kRandomChunk; i < last; ++i)
        values[i] = chunk_draw(generator);
    }
  };
  const std::size_t threads = std::min<std::size_t>(std::max(workers, 1u), chunks);
  std::vector<std::thread> helpers;
  if (threads > 1)
    helpers.reserve(threads - 1);
  try {
    while (helpers.size() + 1 < threads)
      helpers.emplace_back(work);
  } catch (...) {
    // No more threads to be had: those started and this one still draw every chunk.
  }
  work();
  for (std::thread& helper : helpers)
    helper.join();
  return values;
}

}  // namespace

unsigned random_workers() {
  return std::max(std::thread::hardware_concurrency(), 1u);
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  // splitmix64 finaliser over the pair: nearby (seed, stream) pairs give unrelated seeds.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high) {
  return random_uniform(count, seed, low, high, random_workers());
}

std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high,
                                  unsigned workers) {
  std::uniform_real_distribution<float> distribution(low, high);
  // low + (high - low) * u can round up to high itself (low 2, high 5, say): keep below it.
  const float below_high = std::nextafter(high, low);
  return draw_chunks(count, seed, workers,
                     [distribution, high, below_high](std::mt19937_64& generator) mutable {
                       const float value = distribution(generator);
                       return value < high ? value : below_high;
                     });
}

std::vector<float> random_distances(std::size_t count, std::uint64_t seed,
                                    double infinity_fraction) {
  return random_distances(count, seed, infinity_fraction, random_workers());
}

std::vector<float> random_distances(std::size_t count, std::uint64_t seed, double infinity_fraction,
                                    unsigned workers) {
  std::uniform_real_distribution<float> distance(0.0f, 1.0f);
  std::bernoulli_distribution no_edge(infinity_fraction);
  return draw_chunks(count, seed, workers, [distance, no_edge](std::mt19937_64& generator) mutable {
    return no_edge(generator) ? std::numeric_limits<float>::infinity() : distance(generator);
  });
}

}  // namespace course
