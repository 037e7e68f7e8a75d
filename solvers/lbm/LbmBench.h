// `hopsim bench` for lattice Boltzmann: MLUPS and achieved bandwidth against the device's measured copy bandwidth.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/lbm/LbmCase.h"

namespace hopsim::lbm {

struct BenchOptions {
  long long steps = 0;  // timed steps per repeat; 0: enough for about 0.5 s per repeat
  int repeats = 5;
  std::vector<KernelVariant> variants;  // empty: the case's device.kernels
  std::vector<std::string> layouts;     // "two-lattice", "in-place", "auto"; empty: the backend's default
  // The copy bandwidth block (benchCopyBandwidth) measured by the caller, e.g. once for a whole suite; empty:
  // measured here, with buffers of copyBytes (0: the default size).
  std::optional<nlohmann::json> copyBandwidth;
  std::size_t copyBytes = 0;
  // The geometry's name in the run ids; empty: "periodic" for a periodic box without obstacles, else the case
  // file's stem.
  std::string geometry;
};

// D3Q19, 256^3 cells, periodic on every axis, single precision, BGK, tau 0.6, a Taylor-Green vortex as initial
// state (not a fluid at rest: populations that are all zero can make memory look faster than it is), no output.
LbmCase defaultBenchCase();

// Measures the copy bandwidth (the case's GPU, or host memory on the cpu backend), then for each kernel variant and
// layout builds the state, warms up, times `steps` steps `repeats` times and reports a bench document
// (solvers/common/BenchSchema.h): provenance, copy bandwidth, and per run its id, step time in ms and MLUPS
// (median, min, max, spread), steps/s, bytes per cell per step, effective bandwidth and its fraction of the copy
// bandwidth. A run that cannot be built (unknown layout, no Hopper kernels, out of memory) is reported with its
// error; throws if no run succeeded.
nlohmann::json bench(const LbmCase& c, const BenchOptions& o);

// The id `hopsim compare` matches runs by: lbm/<geometry>/<lattice>/<precision>/<kernels>/<layout>/<cells>, and
// /ranks<N> on several ranks, e.g. lbm/periodic/D3Q19/single/portable/two-lattice/256x256x256.
std::string benchRunId(const LbmCase& c, const std::string& geometry, const std::string& kernels,
                       const std::string& layout, int ranks);

}  // namespace hopsim::lbm
