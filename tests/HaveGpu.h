// Whether a CUDA device is there for a GPU test; without one the test says it is skipped and passes.
#pragma once

#include <cstdio>

#include "kernels/common/DeviceInfo.h"

namespace hopsim::testing {

inline bool haveGpu() {
  if (hopsim::cudaDeviceCount() > 0) return true;
  std::printf("no CUDA device: GPU test skipped\n");
  return false;
}

}  // namespace hopsim::testing
