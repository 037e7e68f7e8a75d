// CUDA LBM backend, D3Q19 instantiations (single, double, FP16 storage; both layouts; 32/64-bit indices; the portable
// bulk update; the Hopper ones are compiled in kernels/lbm/hopper/).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaLbmD3Q19(const LbmSetup& setup, const DevicePlan& plan) {
  return makeCudaLbmFor<D3Q19>(setup, plan);
}

}  // namespace hopsim::lbm
