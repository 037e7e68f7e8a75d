// Every LBM validation case (slow ones included) on the CUDA backend, except the rows known to miss their reference
// (docs/validation.md reports them; `hopsim validate` runs them): the Re 1600 Taylor-Green rows whose operator and
// grid miss the DNS, and Schaefer-Turek 2D-2 (cl_max 2.5% low, issue 18).
#include <algorithm>
#include <string>
#include <vector>

#include "ValidationCheck.h"
#include "validation/lbm/LbmValidation.h"

TEST_CASE("LBM validation cases pass on the CUDA backend", "[gpu]") {
  // Measured on the H200 (2026-12-02): unstable (TRT at 64^3 and 128^3) or 5-8% off the DNS peak; 2D-2's lift.
  const std::vector<std::string> reportedOnly = {
      "lbm.cylinder_re100_d40",        "lbm.tgv3d_re1600_n64",          "lbm.tgv3d_re1600_n128",
      "lbm.tgv3d_re1600_bgk_les_n128", "lbm.tgv3d_re1600_trt_les_n256", "lbm.tgv3d_re1600_regularized_n128",
      "lbm.tgv3d_re1600_regularized_les_n128"};
  std::vector<hopsim::validation::Case> cases = hopsim::validation::lbmCases();
  std::erase_if(cases, [&](const hopsim::validation::Case& c) {
    return std::find(reportedOnly.begin(), reportedOnly.end(), c.name) != reportedOnly.end();
  });
  hopsim::testing::checkValidationCases(cases, hopsim::Backend::Cuda, true);
}
