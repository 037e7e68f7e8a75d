// Per-particle pieces of the integrators (velocity Verlet, Langevin, Nose-Hoover), shared by CPU and CUDA.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/HostDevice.h"
#include "kernels/md/CounterRng.h"

namespace hopsim::md {

// Langevin friction and noise added to the conservative force, with v the half-step velocity (as in LAMMPS's
// fix langevin): F += -m v / damp + sqrt(2 m kT / (damp dt)) * N(0,1). Noise keyed by the particle's id.
struct LangevinParams {
  double gamma = 0;       // m / damp
  double noiseScale = 0;  // sqrt(2 m kT / (damp dt))
  std::uint64_t seed = 0;
};

template <class T>
HOPSIM_HD T langevinForce(T v, const LangevinParams& p, std::uint64_t step, std::uint64_t id, int axis) {
  return static_cast<T>(-p.gamma * static_cast<double>(v) + p.noiseScale * gaussian(p.seed, step, id, axis));
}

// Nose-Hoover (single thermostat, Trotter split around velocity Verlet): a quarter-step of the friction variable,
// a half-step velocity scaling, another quarter-step. Q = dof kT tau^2. Returns the velocity scale factor.
struct NoseHooverState {
  double xi = 0;       // friction coefficient
  double q = 1;        // thermostat mass
  double target = 0;   // dof * kT
};

HOPSIM_HD double noseHooverHalfStep(NoseHooverState& s, double twoKe, double dt) {
  s.xi += 0.25 * dt * (twoKe - s.target) / s.q;
  const double scale = exp(-0.5 * dt * s.xi);
  twoKe *= scale * scale;
  s.xi += 0.25 * dt * (twoKe - s.target) / s.q;
  return scale;
}

}  // namespace hopsim::md
