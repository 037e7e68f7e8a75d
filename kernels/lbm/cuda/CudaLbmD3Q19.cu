// Portable CUDA LBM backend, D3Q19 instantiations (single, double, FP16 storage; both layouts; 32/64-bit indices).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaLbmD3Q19(const LbmSetup& setup, const CudaLbmOptions& options) {
  return makeCudaLbmFor<D3Q19>(setup, options);
}

}  // namespace hopsim::lbm
