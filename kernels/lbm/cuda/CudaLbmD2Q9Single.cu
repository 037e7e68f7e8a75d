// CUDA LBM backend, D2Q9 in single-precision storage (both layouts; 32/64-bit indices; the portable bulk update; the
// Hopper ones are compiled in kernels/lbm/hopper/).
#include "kernels/lbm/cuda/CudaLbm.cuh"

namespace hopsim::lbm {

template std::unique_ptr<LbmBackend> makeCudaLbm<LatticeKind::D2Q9, Precision::Single>(
    const LbmSetup& setup, const DevicePlan& plan);

}  // namespace hopsim::lbm
