// The CUDA LBM backend as a run makes it: a device plan for GPU 0 settled by the kernel planner, with `overrides`
// standing in for the environment's HOPSIM_* variables.
#pragma once

#include <memory>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"
#include "solvers/lbm/LbmKernelPlanner.h"

namespace hopsim::lbm::testing {

// The device plan alone (no GPU needed: without one the planner knows no compute capability).
inline DevicePlan plannedCudaDevice(const LbmSetup& s, KernelVariant kernels, const DeviceOverrides& overrides = {}) {
  DevicePlan plan;
  plan.backend = Backend::Cuda;
  plan.gpu = 0;
  plan.kernels = kernels;
  plan.overrides = overrides;
  planLbmKernels(plan, s);
  return plan;
}

inline std::unique_ptr<LbmBackend> plannedCudaBackend(const LbmSetup& s, KernelVariant kernels,
                                                      const DeviceOverrides& overrides = {}) {
  return makeCudaBackend(s, plannedCudaDevice(s, kernels, overrides));
}

}  // namespace hopsim::lbm::testing
