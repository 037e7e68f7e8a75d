// Test entry point: Catch2 2.x or 3.x, and "no GPU" turned into ctest's skip code for the [gpu] tests.
#if !defined(HOPSIM_CATCH2_V3)
#define CATCH_CONFIG_RUNNER  // Catch2 2.x: this file compiles the framework and supplies main()
#endif
#include "CatchCompat.h"

#include <cstdio>
#include <cstring>

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
  return Catch::Session().run(argc, argv);
}
