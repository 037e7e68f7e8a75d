// Reads LAMMPS data files (atom_style atomic, optional Velocities, orthogonal box) into a ParticleState.
#pragma once

#include <string>

#include "core/md/ParticleState.h"

namespace hopsim::io::md {

struct LammpsData {
  hopsim::md::ParticleState state;
  bool hasMasses = false;
  bool hasVelocities = false;
};

// Problems in the file are io::CaseErrors located in the data file (file:line:column).
LammpsData readLammpsData(const std::string& path);

}  // namespace hopsim::io::md
