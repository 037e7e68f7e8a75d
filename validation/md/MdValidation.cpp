// Molecular dynamics validation cases (filled in with the MD solver).
#include "validation/md/MdValidation.h"

namespace hopsim::validation {
std::vector<Case> mdCases() { return {}; }
}  // namespace hopsim::validation
