// Hopper LBM backend, D3Q27 instantiations (portable bulk kernel for every storage type: no cluster kernel is
// built for D3Q27 yet).
#include "kernels/lbm/hopper/HopperLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeHopperLbmD3Q27(const LbmSetup& setup, const CudaLbmOptions& options,
                                               const HopperLbmOptions& hopper) {
  return hopper::makeHopperLbmFor<D3Q27>(setup, options, hopper);
}

}  // namespace hopsim::lbm
