// Reads the `device` section of a case (both solvers).
#pragma once

#include "io/CaseReader.h"
#include "core/DeviceSpec.h"

namespace hopsim::io {
// `device: {backend: auto|cpu|cuda, kernels: auto|portable|hopper, gpu: N, ranks: [px, py(, pz)]}`, all optional.
// A backend that is not built (cuda without HOPSIM_WITH_CUDA) is an error naming the option.
DeviceSpec parseDeviceSpec(const CaseNode& root);
}  // namespace hopsim::io
