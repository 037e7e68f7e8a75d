// Atom ids that number the atoms consecutively: a frame of such atoms is put in id order by placing each atom at
// its id's offset, with no sort (kernels/md/cuda/CudaMdEngine.cu on the device, solvers/md/MdTrajectoryOutput.cpp
// on the host).
#pragma once

#include <optional>
#include <span>

namespace hopsim::md {

// The first id when `id` is a permutation of first .. first + size - 1 (a lattice, a LAMMPS data file numbered
// 1..N), else nothing; nothing also for no ids.
std::optional<long long> denseIdBase(std::span<const long long> id);

}  // namespace hopsim::md
