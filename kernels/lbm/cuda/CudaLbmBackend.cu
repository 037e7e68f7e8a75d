// makeCudaBackend: the lattice's CUDA backend for a resolved kernel plan (solvers/lbm/LbmKernelPlanner.h).
#include <stdexcept>

#include "kernels/lbm/cuda/CudaLbmFactory.h"

namespace hopsim::lbm {

namespace {

template <LatticeKind K>
std::unique_ptr<LbmBackend> makeIn(const LbmSetup& setup, const DevicePlan& plan) {
  switch (setup.precision) {
    case Precision::Single: return makeCudaLbm<K, Precision::Single>(setup, plan);
    case Precision::Double: return makeCudaLbm<K, Precision::Double>(setup, plan);
    case Precision::Half: return makeCudaLbm<K, Precision::Half>(setup, plan);
  }
  throw std::logic_error("unknown precision");
}

}  // namespace

std::unique_ptr<LbmBackend> makeCudaBackend(const LbmSetup& setup, const DevicePlan& plan) {
  switch (setup.lattice) {
    case LatticeKind::D2Q9: return makeIn<LatticeKind::D2Q9>(setup, plan);
    case LatticeKind::D3Q19: return makeIn<LatticeKind::D3Q19>(setup, plan);
    case LatticeKind::D3Q27: return makeIn<LatticeKind::D3Q27>(setup, plan);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm
