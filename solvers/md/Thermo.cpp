// Thermo columns from the engine's sums.
#include "solvers/md/Thermo.h"

#include <cmath>

#include "kernels/md/LjForce.h"
#include "kernels/md/VelocityInit.h"

namespace hopsim::md {

ThermoRow makeThermoRow(const RawThermo& raw, std::size_t n, double volume, const LjSettings& lj, long long step,
                        double time) {
  ThermoRow r;
  r.step = step;
  r.time = time;
  const double nd = static_cast<double>(n);
  const double dof = degreesOfFreedom(n);
  r.temp = dof > 0 ? raw.twoKinetic / dof : 0.0;
  r.ke = 0.5 * raw.twoKinetic / nd;
  r.pe = raw.potential / nd;
  r.press = (raw.twoKinetic + raw.virial) / (3.0 * volume);
  if (lj.tailCorrection) {
    const double rho = nd / volume;
    r.pe += ljTailEnergyPerParticle(rho, lj.epsilon, lj.sigma, lj.cutoff);
    r.press += ljTailPressure(rho, lj.epsilon, lj.sigma, lj.cutoff);
  }
  r.etotal = r.pe + r.ke;
  r.finite = raw.finite && std::isfinite(r.pe) && std::isfinite(r.ke) && std::isfinite(r.press);
  return r;
}

}  // namespace hopsim::md
