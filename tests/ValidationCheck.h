// Runs validation cases on one backend and checks every row: one test body shared by the CPU and GPU suites.
#pragma once

#include <vector>

#include "CatchCompat.h"
#include "core/DataDir.h"
#include "validation/Validation.h"

namespace hopsim::testing {

inline void checkValidationCases(const std::vector<validation::Case>& cases, Backend backend, bool includeSlow) {
  validation::Context ctx;
  ctx.backend = backend;
  ctx.dataDir = dataDir().string();
  for (const auto& c : cases) {
    if (!c.quick && !includeSlow) continue;
    for (const auto& row : c.run(ctx)) {
      if (row.skipped) {
        WARN(row.caseName << ": " << row.quantity << " " << row.detail);
        continue;
      }
      INFO(row.caseName << ": " << row.quantity << " = " << row.measured << " (tolerance " << row.tolerance << ") "
                        << row.detail);
      CHECK(row.pass);
    }
  }
}

}  // namespace hopsim::testing
