// Counter-based random numbers: a value is a pure function of (seed, step, particle id, component), so CPU and GPU
// runs, any thread count and any particle ordering draw the same numbers.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/HostDevice.h"

namespace hopsim::md {

// SplitMix64 finaliser: a bijective mixer with good avalanche, enough for thermostat noise.
HOPSIM_HD std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

HOPSIM_HD std::uint64_t counterHash(std::uint64_t seed, std::uint64_t step, std::uint64_t id, std::uint64_t k) {
  return mix64(mix64(mix64(mix64(seed) ^ step) ^ id) ^ k);
}

// Uniform in (0, 1): 53 random bits, offset by half a unit so log() never sees 0.
HOPSIM_HD double uniformOpen(std::uint64_t h) { return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53; }

// Standard normal variate number `k` (0, 1, 2 for x, y, z) for one particle at one step (Box-Muller).
HOPSIM_HD double gaussian(std::uint64_t seed, std::uint64_t step, std::uint64_t id, std::uint64_t k) {
  const double u1 = uniformOpen(counterHash(seed, step, id, 2 * k));
  const double u2 = uniformOpen(counterHash(seed, step, id, 2 * k + 1));
  return ::sqrt(-2.0 * ::log(u1)) * ::cos(6.283185307179586 * u2);  // the C functions: hopsim::log is a namespace
}

}  // namespace hopsim::md
