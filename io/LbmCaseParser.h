// Turns a loaded `solver: lbm` YAML case into a validated lbm::LbmCase; every problem is a located CaseError.
#pragma once

#include "io/CaseReader.h"
#include "core/lbm/LbmCase.h"

namespace hopsim::io {

// Reads and validates the whole case (schema: DESIGN.md, "Case files"). Throws CaseError (file:line:col) on the
// first problem; soft problems (tau close to 1/2, lattice Mach number above 0.1) go to doc.warnings().
lbm::LbmCase parseLbmCase(const CaseDocument& doc);

// Largest lattice speed the case imposes (inlet peaks, moving walls, initial velocity, Taylor-Green u0) times
// sqrt(3): the lattice Mach number. Body-force driven speeds are not known before the run and are not included.
double latticeMach(const lbm::LbmCase& c);

// The Mach check on its own: above 0.1 a warning (CaseNode::warn), above 0.3 a CaseError, each located at the
// velocity that sets the maximum. parseLbmCase calls it; `root` is the document the case was parsed from.
void checkLatticeMach(const CaseNode& root, const lbm::LbmCase& c);

}  // namespace hopsim::io
