// Thermostat parameters derived from the case's integrator settings: one derivation for every MD engine.
#pragma once

#include <cmath>

#include "kernels/md/Integrate.h"
#include "core/md/MdCase.h"

namespace hopsim::md {

// Langevin friction m / damp and noise amplitude sqrt(2 m kT / (damp dt)).
inline LangevinParams langevinParams(const IntegratorSettings& in, double mass) {
  LangevinParams p;
  p.gamma = mass / in.damping;
  p.noiseScale = std::sqrt(2.0 * mass * in.temperature / (in.damping * in.dt));
  p.seed = in.seed;
  return p;
}

// Nose-Hoover at rest: target dof kT, thermostat mass Q = dof kT tau^2.
inline NoseHooverState noseHooverStart(const IntegratorSettings& in, double degreesOfFreedom) {
  NoseHooverState s;
  s.target = degreesOfFreedom * in.temperature;
  s.q = s.target * in.tau * in.tau;
  s.xi = 0;
  return s;
}

}  // namespace hopsim::md
