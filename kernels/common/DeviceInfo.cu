// Device query through the CUDA runtime; compiled whenever CUDA is, so CI proves the CUDA toolchain path.
#include "kernels/common/CudaCheck.h"
#include "kernels/common/DeviceInfo.h"

namespace hopsim {

bool builtWithCuda() { return true; }

int cudaDeviceCount() {
  int count = 0;
  // No driver or no device is not an error for hopsim: it means "run on the CPU".
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::vector<GpuInfo> cudaDevices() {
  std::vector<GpuInfo> out;
  const int count = cudaDeviceCount();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    HOPSIM_CUDA_CHECK(cudaGetDeviceProperties(&p, d));
    GpuInfo g;
    g.index = d;
    g.name = p.name;
    g.ccMajor = p.major;
    g.ccMinor = p.minor;
    g.multiprocessors = p.multiProcessorCount;
    g.memoryBytes = p.totalGlobalMem;
    g.l2Bytes = static_cast<std::size_t>(p.l2CacheSize);
    g.sharedPerBlockOptin = p.sharedMemPerBlockOptin;
    int cluster = 0;
    HOPSIM_CUDA_CHECK(cudaDeviceGetAttribute(&cluster, cudaDevAttrClusterLaunch, d));
    g.clusterLaunch = cluster != 0;
    g.driverVersion = driver;
    g.runtimeVersion = runtime;
    out.push_back(g);
  }
  return out;
}

}  // namespace hopsim
