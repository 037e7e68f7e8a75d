// The validation registry: each solver contributes its cases.
#include "validation/Validation.h"

#include <cmath>

#include "validation/lbm/LbmValidation.h"
#include "validation/md/MdValidation.h"

namespace hopsim::validation {

Row makeRow(std::string caseName, std::string quantity, double measured, double tolerance, std::string detail) {
  Row r;
  r.caseName = std::move(caseName);
  r.quantity = std::move(quantity);
  r.measured = measured;
  r.tolerance = tolerance;
  r.pass = std::isfinite(measured) && measured <= tolerance;
  r.detail = std::move(detail);
  return r;
}

Row skippedRow(std::string caseName, std::string reason, std::string detail) {
  Row r;
  r.caseName = std::move(caseName);
  r.quantity = "skipped: " + std::move(reason);
  r.skipped = true;
  r.detail = std::move(detail);
  return r;
}

std::vector<Case> allCases() {
  std::vector<Case> all = lbmCases();
  for (auto& c : mdCases()) all.push_back(std::move(c));
  return all;
}

}  // namespace hopsim::validation
