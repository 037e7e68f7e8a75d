// Builds the initial particles of an MD case: fcc lattice or the particles read, then the requested velocities.
#include "solvers/md/InitialState.h"

#include <fmt/format.h>

#include <numbers>

#include "kernels/md/VelocityInit.h"
#include "solvers/common/HostMemory.h"
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

void checkHostMemory(const MdCase& c, int ranksOnNode) {
  const double atoms = static_cast<double>(c.system.size());
  const double density = atoms / c.system.box().volume();
  const double range = interactionRange(c.lj, c.skin);
  // A full list holds every atom within range; its stride grows past the mean to the densest atom's count.
  const double neighbours = 1.25 * density * 4.0 / 3.0 * std::numbers::pi * range * range * range;
  const double stateBytes = 7 * 8;  // x, y, z, vx, vy, vz, id
  const double engineBytes = 9 * 8 + 8 + 3 * 4 + 3 * 8 + 4 * neighbours;
  ::hopsim::checkHostMemory(atoms * (ranksOnNode * stateBytes + engineBytes),
                            fmt::format("this case ({:.0f} atoms{})", atoms,
                                        ranksOnNode > 1 ? fmt::format(", {} ranks on this node", ranksOnNode) : ""));
}

}  // namespace hopsim::md
