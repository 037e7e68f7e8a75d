// What the CUDA runtime reports about the GPUs of this machine (empty without CUDA).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hopsim {

struct GpuInfo {
  int index = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int multiprocessors = 0;
  std::size_t memoryBytes = 0;
  std::size_t l2Bytes = 0;
  std::size_t sharedPerBlockOptin = 0;
  bool clusterLaunch = false;
  int driverVersion = 0, runtimeVersion = 0;
};

// Number of usable CUDA devices; 0 when hopsim was built without CUDA or no driver/device is present.
int cudaDeviceCount();
std::vector<GpuInfo> cudaDevices();
bool builtWithCuda();

}  // namespace hopsim
