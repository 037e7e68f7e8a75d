// Where a case runs: the `device` section of a case file, shared by both solvers.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace hopsim {

enum class Backend { Auto, Cpu, Cuda };
enum class KernelVariant { Auto, Portable, Hopper };
// How halo planes of a decomposed GPU run travel between ranks: through pinned host memory and MPI (staged), or
// written by the GPU straight into the neighbour's device memory (ipc: CUDA IPC, ranks of one node only).
enum class HaloTransport { Auto, Staged, Ipc };

struct DeviceSpec {
  Backend backend = Backend::Auto;
  KernelVariant kernels = KernelVariant::Auto;
  int gpu = -1;                         // -1: local MPI rank modulo the GPUs of the node
  std::array<int, 3> ranks{0, 0, 0};    // MPI process grid; 0 = chosen by MPI_Dims_create
  HaloTransport halo = HaloTransport::Auto;  // auto: ipc where every neighbour shares the node, else staged
};

const char* toString(Backend b);
const char* toString(KernelVariant k);
const char* toString(HaloTransport t);

// The names above back to the values (the case parser and the command line): empty for an unknown name.
std::optional<Backend> backendFrom(std::string_view name);
std::optional<KernelVariant> kernelVariantFrom(std::string_view name);
std::optional<HaloTransport> haloTransportFrom(std::string_view name);

}  // namespace hopsim
