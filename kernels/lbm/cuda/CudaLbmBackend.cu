// makeCudaBackend: the lattice's CUDA backend for a resolved kernel plan (solvers/lbm/LbmKernelPlanner.h).
#include <stdexcept>

#include "kernels/lbm/cuda/CudaLbmFactory.h"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup& setup, const DevicePlan& plan) {
  switch (setup.lattice) {
    case LatticeKind::D2Q9: return makeCudaLbmD2Q9(setup, plan);
    case LatticeKind::D3Q19: return makeCudaLbmD3Q19(setup, plan);
    case LatticeKind::D3Q27: return makeCudaLbmD3Q27(setup, plan);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm
