// Face-centred cubic starting configurations (LAMMPS's `lattice fcc RHO` convention: cell side (4/rho)^(1/3)).
#pragma once

#include <array>

#include "core/md/ParticleState.h"

namespace hopsim::md {
// 4 atoms per unit cell at (0,0,0), (1/2,1/2,0), (1/2,0,1/2), (0,1/2,1/2) of a cell; ids 1..N; zero velocities.
ParticleState makeFccLattice(double density, const std::array<long long, 3>& cells, double mass);
}  // namespace hopsim::md
