// Portable CUDA LBM backend, D2Q9 instantiations (single, double, FP16 storage; both layouts; 32/64-bit indices).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

std::unique_ptr<LbmBackend> makeCudaLbmD2Q9(const LbmSetup& setup, const CudaLbmOptions& options) {
  return makeCudaLbmFor<D2Q9>(setup, options);
}

}  // namespace hopsim::lbm
