// Hopper LBM backend, D2Q9 instantiations (cluster kernel for single and FP16 storage, portable bulk kernel
// for double).
#include "kernels/lbm/hopper/HopperLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeHopperLbmD2Q9(const LbmSetup& setup, const CudaLbmOptions& options,
                                              const HopperLbmOptions& hopper) {
  return hopper::makeHopperLbmFor<D2Q9>(setup, options, hopper);
}

}  // namespace hopsim::lbm
