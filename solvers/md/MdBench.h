// `hopsim bench` for MD: throughput (atom-steps/s) and time per step split by phase, as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include "io/CaseReader.h"
#include "core/RunOptions.h"

namespace hopsim::md {

struct BenchOptions {
  long long steps = 0;  // timed steps per repeat; 0: the case's run.steps
  int repeats = 5;
};

// Runs the case for warm-up + timed steps, returns JSON: atoms, steps, atom-steps/s (median and spread over
// repeats), time per step split into neighbour build / force / integrate / other, backend, precision, device name.
nlohmann::json bench(const io::CaseDocument& doc, const RunOptions& options, const BenchOptions& b);

}  // namespace hopsim::md
