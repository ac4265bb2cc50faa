/// @file random.hpp
/// @brief Seeded random inputs: reproducible from the printed seed, never all zeros.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace course {

/// The seed used when none is given; every executable prints the seed it used.
constexpr std::uint64_t kDefaultSeed = 20261121;

/// @p count values drawn uniformly from [@p low, @p high) with a generator seeded by @p seed.
std::vector<float> random_uniform(std::size_t count, std::uint64_t seed, float low = -1.0f,
                                  float high = 1.0f);

/// A distance-like matrix for the min-plus product: @p count values uniform in [0, 1), of which
/// about @p infinity_fraction are +infinity ("no edge").
std::vector<float> random_distances(std::size_t count, std::uint64_t seed,
                                    double infinity_fraction = 0.05);

/// A small integer in [@p low, @p high] per element, as floats: with such inputs FP32 products and
/// convolutions of moderate size are exact, so tests can compare them with equality.
std::vector<float> random_small_integers(std::size_t count, std::uint64_t seed, int low = -4,
                                         int high = 4);

/// A new seed derived from @p seed and @p stream, so that each input of a problem gets its own
/// sequence (splitmix64 mixing).
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace course
