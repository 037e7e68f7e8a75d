// Initial velocities: Maxwell-Boltzmann at a temperature, zero total momentum, rescaled to exactly that temperature.
#pragma once

#include <cstdint>

#include "core/md/ParticleState.h"

namespace hopsim::md {

// Degrees of freedom with the total momentum removed (LAMMPS's default: 3N - 3).
inline double degreesOfFreedom(std::size_t n) { return 3.0 * static_cast<double>(n) - 3.0; }

// Draws from the counter-based generator keyed by particle id, so the result does not depend on ordering or threads.
void createVelocities(ParticleState& s, double temperature, std::uint64_t seed);

// Sum of m v^2 over all particles (twice the kinetic energy).
double twiceKineticEnergy(const ParticleState& s);

}  // namespace hopsim::md
