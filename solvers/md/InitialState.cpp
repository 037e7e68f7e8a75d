// Builds the initial particles of an MD case: fcc lattice or the particles read, then the requested velocities.
#include "solvers/md/InitialState.h"

#include <fmt/format.h>

#include <algorithm>
#include <numbers>

#include "core/ExitCode.h"

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
  // The trajectory output's two host frames (MdEngine::startFrameCopy, at most doubles and ids) and the writer's
  // id-ordered copy with its permutation (MdTrajectoryOutput) come on top of the engine's arrays.
  const double frameBytes = 2 * 7 * 8 + 7 * 8 + 8;
  const double engineBytes = 9 * 8 + 8 + 3 * 4 + 3 * 8 + 4 * neighbours + frameBytes;
  ::hopsim::checkHostMemory(atoms * (ranksOnNode * stateBytes + engineBytes),
                            fmt::format("this case ({:.0f} atoms{})", atoms,
                                        ranksOnNode > 1 ? fmt::format(", {} ranks on this node", ranksOnNode) : ""));
}

double deviceBytes(const MdCase& c, double atoms) {
  const double density = static_cast<double>(c.system.size()) / c.system.box().volume();
  const double range = interactionRange(c.lj, c.skin);
  const double neighbours = 1.25 * density * 4.0 / 3.0 * std::numbers::pi * range * range * range;
  const double stride = std::max(96.0, neighbours);
  const double s = c.precision == Precision::Single ? 4 : 8;  // positions and velocities
  const double p = c.precision == Precision::Double ? 8 : 4;  // pair arithmetic and forces
  // x y z, v, x0 (S); f (P); pos (4 P); id; list count; sort keys, sorted keys, values, order; gather scratch (8);
  // the radix sort's temporary storage (about its keys and values again); the list; the trajectory frames' staging
  // copy of positions, velocities and ids (every run takes a frame, at its end at least).
  const double perAtom = 9 * s + 3 * p + 4 * p + 8 + 4 + 4 * 4 + 8 + 8 + 4 * stride + 6 * s + 8;
  return atoms * perAtom;
}

double atomsOnDevice(const MdCase& c, const std::array<int, 3>& dims) {
  const double atoms = static_cast<double>(c.system.size());
  const int ranks = dims[0] * dims[1] * dims[2];
  if (ranks <= 1 && dims == std::array<int, 3>{1, 1, 1}) return atoms;
  const Box box = c.system.box();
  const double range = interactionRange(c.lj, c.skin);
  double widened = 1;
  for (int a = 0; a < 3; ++a) {
    const double width = box.length[a] / dims[a];
    widened *= (width + 2 * range) / width;
  }
  return atoms / ranks * widened;
}

void checkDeviceMemory(const MdCase& c, double atoms, int sharing, std::optional<std::size_t> available) {
  if (!available) return;
  const double need = deviceBytes(c, atoms) * std::max(1, sharing);
  if (need <= static_cast<double>(*available)) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw InputError(fmt::format("this case ({} atoms{}) needs {:.1f} GiB of GPU memory, {:.1f} GiB available; make it "
                               "smaller, run it on more GPUs (mpiexec) or on the cpu backend",
                               c.system.size(), sharing > 1 ? fmt::format(", {} ranks on one GPU", sharing) : "",
                               need / kGiB, static_cast<double>(*available) / kGiB));
}

}  // namespace hopsim::md
