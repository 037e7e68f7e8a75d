// Portable CUDA LBM backend, D3Q27 instantiations (single, double, FP16 storage; both layouts; 32/64-bit indices).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaLbmD3Q27(const LbmSetup& setup, const CudaLbmOptions& options) {
  return makeCudaLbmFor<D3Q27>(setup, options);
}

}  // namespace hopsim::lbm
