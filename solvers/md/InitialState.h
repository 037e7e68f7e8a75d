// The particles an MD case starts from, built from its typed description (core/md/MdCase.h).
#pragma once

#include "core/md/MdCase.h"
#include "core/md/ParticleState.h"

namespace hopsim::md {

// The case's fcc crystal, or the particles it read (or was handed), with velocities drawn when the case asks for
// them (velocity.create). Deterministic: every rank of a decomposed run builds the same state and keeps its part.
ParticleState initialState(const MdCase& c);

// Refuses (InputError, "needs X GiB, Y GiB available") a case whose atoms would not fit in this node's free host
// memory: the whole initial state on each of the node's `ranksOnNode` ranks, plus every atom's share of the engines
// (positions, velocities, forces, bins and a full neighbour list). Called before initialState allocates.
void checkHostMemory(const MdCase& c, int ranksOnNode);

}  // namespace hopsim::md
