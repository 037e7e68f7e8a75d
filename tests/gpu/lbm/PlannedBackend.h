// The CUDA LBM backend as a run makes it: a device plan for GPU 0 settled by the kernel planner, with `overrides`
// standing in for the environment's HOPSIM_* variables.
#pragma once

#include <memory>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"
#include "solvers/lbm/LbmKernelPlanner.h"

namespace hopsim::lbm::testing {

inline std::unique_ptr<LbmBackend> plannedCudaBackend(const LbmSetup& s, KernelVariant kernels,
                                                      const DeviceOverrides& overrides = {}) {
  DevicePlan plan;
  plan.backend = Backend::Cuda;
  plan.gpu = 0;
  plan.kernels = kernels;
  plan.overrides = overrides;
  planLbmKernels(plan, s);
  return makeCudaBackend(s, plan);
}

}  // namespace hopsim::lbm::testing
