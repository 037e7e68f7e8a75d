// `hopsim bench --with-output`: a case run as a user runs it, with its output (fields every 100 steps, observables
// every 10), timed whole, beside the update-only figure and the disk's write bandwidth measured in the same process.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "core/RunOptions.h"

namespace hopsim::lbm {

// The built-in benchmark case (defaultBenchCase(): D3Q19 256^3 periodic, single precision, BGK tau 0.6, Taylor-Green
// start) as a case file's text.
std::string defaultBenchCaseText();

struct OutputBenchOptions {
  long long steps = 1000;
  int fieldsEvery = 100;
  int observablesEvery = 10;
  std::filesystem::path dir;                      // where the run writes (a fresh folder in it, removed after)
  std::size_t diskBytes = std::size_t(512) << 20;  // the most the disk bandwidth's file holds (2 output steps' fields)
};

// Runs `caseFile` (empty: the built-in case) with `overrides` and the output above into a folder under o.dir, then
// measures the disk there. Returns: the run's wall and update seconds, MLUPS over each and their ratio, its phases,
// what the field writer wrote, and the disk's write GB/s with the fields' rate as a fraction of it. Collective under
// MPI (every rank runs the case); the disk is measured on rank 0.
nlohmann::json benchWithOutput(const std::string& caseFile, std::vector<std::string> overrides,
                               const RunOptions& options, const OutputBenchOptions& o);

}  // namespace hopsim::lbm
