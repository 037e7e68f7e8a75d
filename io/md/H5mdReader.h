// Reads one frame of an H5MD file written by hopsim (or any H5MD file with particles/all position and box), to
// start a run from it.
#pragma once

#include <string>

#include "core/md/ParticleState.h"

namespace hopsim::io::md {

struct H5mdFrame {
  hopsim::md::ParticleState state;
  bool hasVelocities = false;
  long long frames = 0;
  long long frame = 0;  // the one read
};

// frame < 0 counts from the end (-1: the last frame). Errors are std::runtime_error naming the file and dataset.
H5mdFrame readH5mdFrame(const std::string& path, long long frame = -1);

}  // namespace hopsim::io::md
