// Test entry point: Catch2 2.x or 3.x, and "no GPU" turned into ctest's skip code for the [gpu] tests.
#include <cstdio>
#include <cstring>

#include "CatchSession.h"
#include "kernels/common/DeviceInfo.h"

int main(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i) {
    // A filter that selects GPU tests ("[gpu]", "[gpu][lbm]"), not one that excludes them ("~[gpu]").
    const char* gpu = std::strstr(argv[i], "[gpu]");
    const bool selectsGpu = gpu && (gpu == argv[i] || gpu[-1] != '~');
    if (selectsGpu && hopsim::cudaDeviceCount() == 0) {
      std::printf("no CUDA device (or hopsim built without CUDA): GPU tests skipped\n");
      return 77;
    }
  }
  return hopsim::testing::runCatchSession(argc, argv);
}
