/// @file random.hpp
/// @brief Seeded random inputs: reproducible from the printed seed, never all zeros.
///
/// The values are drawn in chunks of kRandomChunk elements: chunk c has a generator of its own,
/// seeded with derive_seed(seed, c), so the chunks can be drawn in parallel. The values depend
/// only on the count, the seed and the distribution's parameters, never on the number of threads
/// that drew them: a seed printed on one machine gives the same inputs on any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace course {

/// The seed used when none is given; every executable prints the seed it used.
constexpr std::uint64_t kDefaultSeed = 20261121;

/// Elements drawn from one generator (2^20): element i belongs to chunk i / kRandomChunk.
constexpr std::size_t kRandomChunk = std::size_t{1} << 20;

/// The number of threads the random_* functions draw with when none is given:
/// std::thread::hardware_concurrency(), at least 1.
unsigned random_workers();

/// @p count values drawn uniformly from [@p low, @p high) with generators seeded by @p seed.
std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low = -1.0f,
                                  float high = 1.0f);

/// A distance-like matrix for the min-plus product: @p count values uniform in [0, 1), of which
/// about @p infinity_fraction are +infinity ("no edge").
std::vector<float> random_distances(std::size_t count, std::uint64_t seed,
                                    double infinity_fraction = 0.05);

/// random_uniform() drawn by at most @p workers threads (0 counts as 1): the same values for
/// every @p workers, which is what the tests check.
std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low, float high,
                                  unsigned workers);

/// random_distances() drawn by at most @p workers threads (0 counts as 1): the same values for
/// every @p workers.
std::vector<float> random_distances(std::size_t count, std::uint64_t seed, double infinity_fraction,
                                    unsigned workers);

/// A new seed derived from @p seed and @p stream, so that each input of a problem gets its own
/// sequence (splitmix64 mixing).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace course
