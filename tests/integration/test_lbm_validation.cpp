// The quick LBM validation cases (the ones `hopsim validate` runs by default) on the CPU in double precision.
#include "ValidationCheck.h"
#include "validation/lbm/LbmValidation.h"

TEST_CASE("quick LBM validation cases pass on the CPU", "[validation]") {
  hopsim::testing::checkValidationCases(hopsim::validation::lbmCases(), hopsim::Backend::Cpu, false);
}
