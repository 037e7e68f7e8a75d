// Builds the initial particles of an MD case: fcc lattice or the particles read, then the requested velocities.
#include "solvers/md/InitialState.h"

#include "kernels/md/VelocityInit.h"
#include "solvers/md/FccLattice.h"

namespace hopsim::md {

ParticleState initialState(const MdCase& c) {
  const MdSystem& sys = c.system;
  ParticleState s = sys.kind == MdSystem::Kind::FccLattice
                        ? makeFccLattice(sys.lattice.density, sys.lattice.cells, sys.lattice.mass)
                        : sys.particles;
  if (c.velocity.create) createVelocities(s, c.velocity.temperature, c.velocity.seed);
  return s;
}

}  // namespace hopsim::md
