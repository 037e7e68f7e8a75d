// `hopsim bench --with-output` for MD: a case run as a user runs it, with thermo every 10 steps and a trajectory
// frame every 50, timed whole, beside the update-only figure and the disk's write bandwidth measured in the same
// process (the MD half of LBM's LbmOutputBench, issue 22).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/RunOptions.h"

namespace hopsim::md {

struct OutputBenchOptions {
  long long steps = 2000;  // issue 22's measurement: lj_liquid at 1,048,576 atoms for 2,000 steps
  int thermoEvery = 10;
  int trajectoryEvery = 50;
  std::filesystem::path dir;                      // where the run writes (a fresh folder in it, removed after)
  std::size_t diskBytes = std::size_t(512) << 20;  // the most the disk bandwidth's file holds
};

// Runs `caseFile` with `overrides` and the output above (H5MD only) into a folder under o.dir, then measures the
// disk there. Returns: the run's loop and update (steps phase) seconds, atom-steps/s over each and their ratio, its
// phases, what the trajectory writer wrote and how long the run waited for it, and the disk's write GB/s with the
// trajectory's rate as a fraction of it. Collective under MPI (every rank runs the case); rank 0 measures the disk
// and returns the figures (other ranks an empty object).
nlohmann::json benchWithOutput(const std::string& caseFile, std::vector<std::string> overrides,
                               const RunOptions& options, const OutputBenchOptions& o);

}  // namespace hopsim::md
