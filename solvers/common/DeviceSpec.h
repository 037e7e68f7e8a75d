// Where a case runs: the `device` section of a case file, shared by both solvers.
#pragma once

#include <array>

namespace hopsim {

enum class Backend { Auto, Cpu, Cuda };
enum class KernelVariant { Auto, Portable, Hopper };

struct DeviceSpec {
  Backend backend = Backend::Auto;
  KernelVariant kernels = KernelVariant::Auto;
  int gpu = -1;                         // -1: local MPI rank modulo the GPUs of the node
  std::array<int, 3> ranks{0, 0, 0};    // MPI process grid; 0 = chosen by MPI_Dims_create
};

const char* toString(Backend b);
const char* toString(KernelVariant k);

}  // namespace hopsim
