// CUDA LBM backend, D2Q9 instantiations (single, double, FP16 storage; both layouts; 32/64-bit indices; the portable
// bulk update; the Hopper ones are compiled in kernels/lbm/hopper/).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaLbmD2Q9(const LbmSetup& setup, const DevicePlan& plan) {
  return makeCudaLbmFor<D2Q9>(setup, plan);
}

}  // namespace hopsim::lbm
