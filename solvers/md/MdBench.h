// `hopsim bench` for MD: throughput (atom-steps/s) and time per step split by phase, as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

#include "io/CaseReader.h"
#include "core/RunOptions.h"
#include "core/md/MdCase.h"

namespace hopsim::md {

struct BenchOptions {
  long long steps = 0;  // timed steps per repeat; 0: the case's run.steps
  int repeats = 5;
  // The copy bandwidth block (benchCopyBandwidth) measured by the caller, e.g. once for a whole suite; empty:
  // measured here, with buffers of copyBytes (0: the default size).
  std::optional<nlohmann::json> copyBandwidth;
  std::size_t copyBytes = 0;
  std::string system;  // the system's name in the run id; empty: the case file's stem
};

// Measures the copy bandwidth (the GPU's, or host memory's on the cpu backend), runs the case for warm-up + timed
// steps and returns a bench document (solvers/common/BenchSchema.h) with one run: its id, atoms, steps, step time
// in ms and atom-steps/s (median and spread over repeats), time per step split into neighbour build / force /
// integrate / other, backend, precision. MD has no bytes-per-step model: its fraction of the copy bandwidth is null.
nlohmann::json bench(const io::CaseDocument& doc, const RunOptions& options, const BenchOptions& b);

// The id `hopsim compare` matches runs by: md/<system>/<precision>/<kernels>/<atoms>, and /ranks<N> on several
// ranks, e.g. md/lj/mixed/portable/32000.
std::string benchRunId(const std::string& system, Precision precision, const std::string& kernels,
                       std::size_t atoms, int ranks);

}  // namespace hopsim::md
