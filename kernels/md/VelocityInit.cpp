// Seeded Maxwell-Boltzmann velocities.
#include "kernels/md/VelocityInit.h"

#include <cmath>

#include "kernels/md/CounterRng.h"

namespace hopsim::md {

double twiceKineticEnergy(const ParticleState& s) {
  double sum = 0;
  for (std::size_t i = 0; i < s.size(); ++i) sum += s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i];
  return s.mass * sum;
}

void createVelocities(ParticleState& s, double temperature, std::uint64_t seed) {
  const std::size_t n = s.size();
  if (n == 0) return;
  double* v[3] = {s.vx.data(), s.vy.data(), s.vz.data()};
  double mean[3] = {0, 0, 0};
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) {
      v[d][i] = gaussian(seed, 0, static_cast<std::uint64_t>(s.id[i]), static_cast<std::uint64_t>(d));
      mean[d] += v[d][i];
    }
  for (int d = 0; d < 3; ++d) mean[d] /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) v[d][i] -= mean[d];
  const double dof = degreesOfFreedom(n);
  const double current = twiceKineticEnergy(s) / dof;
  const double scale = (current > 0 && dof > 0) ? std::sqrt(temperature / current) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < 3; ++d) v[d][i] *= scale;
}

}  // namespace hopsim::md
