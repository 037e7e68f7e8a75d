// Entry points of the CUDA LBM backend, one per lattice (each in its own .cu file to keep compile units small).
#pragma once

#include <memory>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

// The backend on GPU plan.gpu with the bulk update of plan.lbm, in the storage the setup asks for.
std::unique_ptr<LbmBackend> makeCudaLbmD2Q9(const LbmSetup& setup, const DevicePlan& plan);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q19(const LbmSetup& setup, const DevicePlan& plan);
std::unique_ptr<LbmBackend> makeCudaLbmD3Q27(const LbmSetup& setup, const DevicePlan& plan);

}  // namespace hopsim::lbm
