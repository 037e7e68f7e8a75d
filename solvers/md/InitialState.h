// The particles an MD case starts from, built from its typed description (core/md/MdCase.h).
#pragma once

#include "core/md/MdCase.h"
#include "core/md/ParticleState.h"

namespace hopsim::md {

// The case's fcc crystal, or the particles it read (or was handed), with velocities drawn when the case asks for
// them (velocity.create). Deterministic: every rank of a decomposed run builds the same state and keeps its part.
ParticleState initialState(const MdCase& c);

}  // namespace hopsim::md
