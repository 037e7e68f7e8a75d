// Settles which CUDA LBM kernels run a case: the kernel family (auto: the fastest measured for the case's lattice,
// precision and features), the bulk update, the population layout and the launch options.
#pragma once

#include <nlohmann/json.hpp>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

// Fills plan.kernels (never auto after it) and plan.lbm for `setup` on plan.gpu, from what the case and command line
// asked (plan.kernels, setup.layout) and the environment's overrides (plan.overrides). A request that cannot be
// honoured (hopper kernels on an older GPU or a decomposed domain, a temporal step count the case cannot run) is an
// InputError; a preference that cannot be (the in-place layout with inlets) is dropped with a note.
void planLbmKernels(DevicePlan& plan, const LbmSetup& setup);

// The plan for run.json and the bench JSON: backend, GPU, kernels, halo, and on cuda the kernel plan.
nlohmann::json planJson(const DevicePlan& plan);

}  // namespace hopsim::lbm
