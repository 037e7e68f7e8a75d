// `hopsim info`: what this build can do and what hardware it sees.
#include <fmt/format.h>
#include <omp.h>

#include <cstdio>
#include <exception>
#include <thread>

#include "apps/Commands.h"
#include "core/DataDir.h"
#include "solvers/common/RunInfo.h"
#include "kernels/common/DeviceInfo.h"

namespace hopsim::app {

int infoCommand() {
  const auto build = buildInfo();
  const auto host = hostInfo();
  std::printf("hopsim %s\n", HOPSIM_VERSION);
  std::printf("build:  CUDA %s, MPI %s, VTK %s, HDF5 %s, compiler %s\n", HOPSIM_WITH_CUDA ? "on" : "off",
              HOPSIM_WITH_MPI ? "on" : "off", HOPSIM_WITH_VTK ? "on" : "off",
              HOPSIM_HDF5_PARALLEL ? "parallel" : "serial", build.value("compiler", std::string("?")).c_str());
  std::printf("host:   %s, %s, %u hardware threads, %d OpenMP threads\n",
              host.value("hostname", std::string("?")).c_str(), host.value("cpu_model", std::string("?")).c_str(),
              std::thread::hardware_concurrency(), omp_get_max_threads());
  // Where `validate` and the bench suite read their cases: the installed share/hopsim, or the source tree.
  try {
    std::printf("data:   %s\n", dataDir().c_str());
  } catch (const std::exception& e) {
    std::printf("data:   none found: %s\n", e.what());
  }
  const auto gpus = cudaDevices();
  if (!builtWithCuda()) std::printf("GPUs:   none (built without CUDA)\n");
  else if (gpus.empty()) std::printf("GPUs:   none found\n");
  for (const auto& g : gpus)
    std::printf("GPU %d:  %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.0f MB, cluster launch %s\n", g.index,
                g.name.c_str(), g.ccMajor, g.ccMinor, g.multiprocessors, g.memoryBytes / 1073741824.0,
                g.l2Bytes / 1e6, g.clusterLaunch ? "yes" : "no");
  return 0;
}

}  // namespace hopsim::app
