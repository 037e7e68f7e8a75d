// The particles an MD case starts from, built from its typed description (core/md/MdCase.h).
#pragma once

#include <array>
#include <cstddef>
#include <optional>

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

// The GPU memory a CUDA engine takes for `atoms` atoms (a decomposed rank: owned atoms plus ghosts) of the case:
// positions, velocities, list references, forces, pair-precision positions, ids, bins, sort buffers and a full
// neighbour list (its stride grows to the densest atom's count, at least 96 entries), and the staging copy a frame
// goes through on its way to the host (MdEngine::startFrameCopy).
double deviceBytes(const MdCase& c, double atoms);
// The atoms one rank puts on its GPU: all of them on one rank; a decomposed rank's share with its ghosts (the
// sub-box widened by cutoff + skin on every side), for the process grid `dims`.
double atomsOnDevice(const MdCase& c, const std::array<int, 3>& dims);
// Refuses (InputError, "needs X GiB of GPU memory, Y GiB available") a case whose atoms would not fit in the free
// memory of its GPU, shared by `sharing` ranks, before anything is allocated there; no check where `available` is
// unknown.
void checkDeviceMemory(const MdCase& c, double atoms, int sharing, std::optional<std::size_t> available);

}  // namespace hopsim::md
