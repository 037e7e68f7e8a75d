// Device query for builds without CUDA: no devices.
#include "kernels/common/DeviceInfo.h"

#if !HOPSIM_WITH_CUDA
namespace hopsim {
int cudaDeviceCount() { return 0; }
std::vector<GpuInfo> cudaDevices() { return {}; }
bool builtWithCuda() { return false; }
}  // namespace hopsim
#endif
