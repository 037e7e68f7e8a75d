// Hopper LBM backend, D3Q19 instantiations (cluster kernel for single and FP16 storage, portable bulk kernel
// for double).
#include "kernels/lbm/hopper/HopperLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeHopperLbmD3Q19(const LbmSetup& setup, const CudaLbmOptions& options,
                                               const HopperLbmOptions& hopper) {
  return hopper::makeHopperLbmFor<D3Q19>(setup, options, hopper);
}

std::unique_ptr<LbmBackend> makeHopperLbm(const LbmSetup& setup, const CudaLbmOptions& options,
                                          const HopperLbmOptions& hopper) {
  switch (setup.lattice) {
    case LatticeKind::D2Q9: return makeHopperLbmD2Q9(setup, options, hopper);
    case LatticeKind::D3Q19: return makeHopperLbmD3Q19(setup, options, hopper);
    case LatticeKind::D3Q27: return makeHopperLbmD3Q27(setup, options, hopper);
  }
  throw std::logic_error("unknown lattice");
}

}  // namespace hopsim::lbm
