#include "course/random.hpp"

#include <limits>
#include <random>

namespace course {

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  // splitmix64 finaliser over the pair: nearby (seed, stream) pairs give unrelated seeds.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values)
    value = distribution(generator);
  return values;
}

std::vector<float> random_distances(std::size_t count, std::uint64_t seed,
                                    double infinity_fraction) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> distance(0.0f, 1.0f);
  std::bernoulli_distribution no_edge(infinity_fraction);
  std::vector<float> values(count);
  for (float& value : values) {
    value = no_edge(generator) ? std::numeric_limits<float>::infinity() : distance(generator);
  }
  return values;
}

std::vector<float> random_small_integers(std::size_t count, std::uint64_t seed, int low, int high) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int> distribution(low, high);
  std::vector<float> values(count);
  for (float& value : values)
    value = static_cast<float>(distribution(generator));
  return values;
}

}  // namespace course
