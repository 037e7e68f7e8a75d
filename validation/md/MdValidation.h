// Molecular dynamics validation cases.
#pragma once

#include <vector>

#include "validation/Validation.h"

namespace hopsim::validation {
std::vector<Case> mdCases();
}
