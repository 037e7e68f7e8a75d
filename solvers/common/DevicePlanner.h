// Settles a run's device once, above the kernels: backend, GPU, kernel family, the environment's experiment
// overrides; and prints the plan for the run log, run.json and the bench JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/DevicePlan.h"
#include "core/RunOptions.h"

namespace hopsim {

// The HOPSIM_* overrides (core/DevicePlan.h); a malformed value is an InputError naming the variable.
DeviceOverrides readDeviceOverrides();

// Backend (the command line over the case; auto: cuda where a GPU is present, else cpu), GPU (device.gpu, else
// `defaultGpu`: the local rank modulo the node's GPUs in decomposed runs) and the requested kernel family, which
// stays as asked (auto included) until the solver's planner settles it for the case. The environment's overrides
// are read here.
DevicePlan planDevice(const DeviceSpec& spec, const RunOptions& options, int defaultGpu);

// One line for the log ("cuda on GPU 0, kernels hopper (hopper-temporal, 4 steps per launch): ...").
std::string describe(const DevicePlan& plan);
nlohmann::json toJson(const DevicePlan& plan);
// The LBM kernel plan, where planLbmKernels settled it (LBM runs on cuda).
nlohmann::json toJson(const lbm::KernelPlan& plan);

}  // namespace hopsim
