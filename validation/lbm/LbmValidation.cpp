// Lattice Boltzmann validation cases (filled in with the LBM solver).
#include "validation/lbm/LbmValidation.h"

namespace hopsim::validation {
std::vector<Case> lbmCases() { return {}; }
}  // namespace hopsim::validation
