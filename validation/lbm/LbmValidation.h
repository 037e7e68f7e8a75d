// Lattice Boltzmann validation cases.
#pragma once

#include <vector>

#include "validation/Validation.h"

namespace hopsim::validation {
std::vector<Case> lbmCases();
}
