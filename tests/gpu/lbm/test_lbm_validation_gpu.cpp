// Every LBM validation case (slow ones included) on the CUDA backend.
#include "ValidationCheck.h"
#include "validation/lbm/LbmValidation.h"

TEST_CASE("LBM validation cases pass on the CUDA backend", "[gpu]") {
  hopsim::testing::checkValidationCases(hopsim::validation::lbmCases(), hopsim::Backend::Cuda, true);
}
