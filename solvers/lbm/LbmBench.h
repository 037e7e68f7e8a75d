// `hopsim bench` for lattice Boltzmann: MLUPS and achieved bandwidth against the device's measured copy bandwidth.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "core/lbm/LbmCase.h"

namespace hopsim::lbm {

struct BenchOptions {
  long long steps = 0;  // timed steps per repeat; 0: enough for about 0.5 s per repeat
  int repeats = 5;
  std::vector<KernelVariant> variants;  // empty: the case's device.kernels
  std::vector<std::string> layouts;     // "two-lattice", "in-place", "auto"; empty: the backend's default
};

// D3Q19, 256^3 cells, periodic on every axis, single precision, BGK, tau 0.6, a Taylor-Green vortex as initial
// state (not a fluid at rest: populations that are all zero can make memory look faster than it is), no output.
LbmCase defaultBenchCase();

// Measures the copy bandwidth of the case's GPU (none on the CPU backend: null), then for each kernel variant and
// layout builds the state, warms up, times `steps` steps `repeats` times and reports, as JSON: device, copy
// bandwidth, and per run MLUPS (median, min, max), steps/s, bytes per cell per step, effective bandwidth and its
// fraction of the copy bandwidth. A run that cannot be built (unknown layout, no Hopper kernels, out of memory)
// is reported with its error; throws if no run succeeded.
nlohmann::json bench(const LbmCase& c, const BenchOptions& o);

}  // namespace hopsim::lbm
