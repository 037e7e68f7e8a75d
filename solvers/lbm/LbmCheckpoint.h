// LBM checkpoints: what one rank's part holds and says of itself, and putting a checkpoint back into a simulation,
// on the process grid that wrote it or on another one.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/lbm/LbmCase.h"
#include "io/CaseReader.h"
#include "io/Checkpoint.h"
#include "solvers/lbm/LbmSimulation.h"

namespace hopsim::lbm {

// The shape of a run's state, which a restart checks: solver, lattice, precision, grid, geometry and how the backend
// lays out its populations; and the process grid, which a restart may change.
nlohmann::json stateDescription(const io::CaseDocument& doc, const LbmCase& c, LbmSimulation& sim);

// This rank's part of a checkpoint at sim.step(): its populations (LbmBackend::savePopulations: a header, then
// [q][cell] over this rank's box with its ghost layers) and a description: stateDescription, the step, the case,
// and this rank's box (partition: first, count, ghost) with the header's size, which a restart on another process
// grid needs to find each cell.
io::CheckpointPart checkpointPart(const io::CaseDocument& doc, const LbmCase& c, LbmSimulation& sim);

// Puts the checkpoint in `folder` back into sim: its step and populations. Collective over sim.comm(). On the
// process grid that wrote it, each rank loads its own part. On another one (another number of ranks, or another
// device.ranks), each rank takes every cell of its box, ghost layers included, from the part that owned that cell
// (wrapped on periodic axes): the state the uninterrupted run would have had on this grid after its halo exchange,
// so the continuation is bitwise wherever the decomposed update equals the undecomposed one. Throws InputError
// naming the difference for a checkpoint of another case, lattice, precision, geometry or population layout, or
// one whose parts do not tile the domain.
void restoreCheckpoint(const std::filesystem::path& folder, const io::CaseDocument& doc, const LbmCase& c,
                       LbmSimulation& sim);

}  // namespace hopsim::lbm
