// Entry points of the CUDA LBM backend, one per lattice and storage precision, each compiled in its own .cu file
// (kernels/lbm/cuda/CudaLbm<lattice><precision>.cu): the nine instantiations of CudaLbm are the longest compiles of
// the build, and apart they keep every core of a parallel build busy.
#pragma once

#include <memory>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

// The backend on GPU plan.gpu with the bulk update of plan.lbm, for lattice K in storage P.
template <LatticeKind K, Precision P>
std::unique_ptr<LbmBackend> makeCudaLbm(const LbmSetup& setup, const DevicePlan& plan);

}  // namespace hopsim::lbm
