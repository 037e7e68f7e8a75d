// The quick LBM validation cases (the ones `hopsim validate` runs by default) on the CPU in double precision.
#include "CatchCompat.h"
#include "validation/lbm/LbmValidation.h"

using namespace hopsim;

TEST_CASE("quick LBM validation cases pass on the CPU", "[validation]") {
  validation::Context ctx;
  ctx.backend = Backend::Cpu;
  ctx.dataDir = validation::defaultDataDir();
  for (const auto& c : validation::lbmCases()) {
    if (!c.quick) continue;
    for (const auto& row : c.run(ctx)) {
      INFO(row.caseName << ": " << row.quantity << " = " << row.measured << " (tolerance " << row.tolerance << ") "
                        << row.detail);
      CHECK(row.pass);
    }
  }
}
