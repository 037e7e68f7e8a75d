// Settles which CUDA LBM kernels run a case: the kernel family (auto: the fastest measured for the case's lattice,
// precision and features), the bulk update, the population layout and the launch options.
#pragma once

#include <nlohmann/json.hpp>

#include "core/DevicePlan.h"
#include "kernels/lbm/LbmBackend.h"

namespace hopsim::lbm {

// Fills plan.kernels (never auto after it) and plan.lbm for `setup` on plan.gpu, from what the case and command line
// asked (plan.kernels, setup.layout) and the environment's overrides (plan.overrides). A request that cannot be
// honoured (hopper kernels on an older GPU, a temporal step count the case cannot run) is an InputError; a
// preference that cannot be (the in-place layout with inlets) is dropped with a note. A decomposed `setup` has ghost
// layers one cell deep; where the plan runs the temporal kernel they must be ghostDepth() deep instead.
void planLbmKernels(DevicePlan& plan, const LbmSetup& setup);

// The ghost layer depth a decomposed box needs for plan `k`: the temporal kernel's steps per launch, else 1.
int ghostDepth(const KernelPlan& k);

// The plan for run.json and the bench JSON: backend, GPU, kernels, halo, and on cuda the kernel plan.
nlohmann::json planJson(const DevicePlan& plan);

}  // namespace hopsim::lbm
