// fcc lattice builder.
#include "solvers/md/FccLattice.h"

#include "core/md/MdCase.h"

namespace hopsim::md {

ParticleState makeFccLattice(double density, const std::array<long long, 3>& cells, double mass) {
  const double a = fccCellSide(density);
  static constexpr double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  ParticleState s;
  s.mass = mass;
  s.box = FccLatticeSettings{density, cells, mass}.box();
  s.resize(static_cast<std::size_t>(4 * cells[0] * cells[1] * cells[2]));
  std::size_t n = 0;
  for (long long k = 0; k < cells[2]; ++k)
    for (long long j = 0; j < cells[1]; ++j)
      for (long long i = 0; i < cells[0]; ++i)
        for (const auto& b : basis) {
          s.x[n] = (static_cast<double>(i) + b[0]) * a;
          s.y[n] = (static_cast<double>(j) + b[1]) * a;
          s.z[n] = (static_cast<double>(k) + b[2]) * a;
          s.vx[n] = s.vy[n] = s.vz[n] = 0;
          s.id[n] = static_cast<long long>(n) + 1;
          ++n;
        }
  return s;
}

}  // namespace hopsim::md
