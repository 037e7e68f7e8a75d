// CUDA LBM backend, D3Q27 in half-precision storage (both layouts; 32/64-bit indices; the portable bulk update; the
// Hopper ones are compiled in kernels/lbm/hopper/).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

template std::unique_ptr<LbmBackend> makeCudaLbm<LatticeKind::D3Q27, Precision::Half>(
    const LbmSetup& setup, const DevicePlan& plan);

}  // namespace hopsim::lbm
