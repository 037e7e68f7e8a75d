// Whether a CUDA device (a Hopper GPU) is there for a GPU test; without one the test says it is skipped and passes.
#pragma once

#include <cstdio>

#include "kernels/common/DeviceInfo.h"

namespace hopsim::testing {

inline bool haveGpu() {
  if (hopsim::cudaDeviceCount() > 0) return true;
  std::printf("no CUDA device: GPU test skipped\n");
  return false;
}

// Whether GPU 0 has compute capability 9.0 or newer (the Hopper kernels); `say`: print why the test is skipped if
// not (false on all but one MPI rank).
inline bool haveHopperGpu(bool say = true) {
  const int major = hopsim::cudaDeviceCount() > 0 ? hopsim::cudaDevices().front().ccMajor : 0;
  if (major >= 9) return true;
  if (say)
    std::printf(major ? "GPU older than compute capability 9.0: Hopper test skipped\n"
                      : "no CUDA device: Hopper test skipped\n");
  return false;
}

}  // namespace hopsim::testing
