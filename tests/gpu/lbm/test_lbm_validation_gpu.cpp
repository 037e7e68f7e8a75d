// Every LBM validation case (slow ones included) on the CUDA backend.
#include "CatchCompat.h"
#include "validation/lbm/LbmValidation.h"

using namespace hopsim;

TEST_CASE("LBM validation cases pass on the CUDA backend", "[gpu]") {
  validation::Context ctx;
  ctx.backend = Backend::Cuda;
  ctx.dataDir = validation::defaultDataDir();
  for (const auto& c : validation::lbmCases()) {
    for (const auto& row : c.run(ctx)) {
      INFO(row.caseName << ": " << row.quantity << " = " << row.measured << " (tolerance " << row.tolerance << ") "
                        << row.detail);
      CHECK(row.pass);
    }
  }
}
