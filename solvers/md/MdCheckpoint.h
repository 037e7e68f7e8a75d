// MD checkpoints (io/Checkpoint.h holds the files): what a checkpoint says of the run that wrote it, the check a
// restart makes against it, and an engine's state (kernels/md/MdEngine.h, EngineState) as named blocks of bytes.
#pragma once

#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/md/MdCase.h"
#include "io/Checkpoint.h"
#include "kernels/md/MdEngine.h"

namespace hopsim::md {

// The shape of the state a run holds: solver, atoms, box, mass, potential, precision, the engine that holds the
// atoms ("cpu", "cuda", "cpu, decomposed", "cuda, decomposed") and the process grid (MPI ranks over the box).
nlohmann::json checkpointDescription(const MdCase& c, std::size_t atoms, const Box& box, double mass,
                                     const std::string& engine, const std::array<int, 3>& processGrid);

// Throws InputError naming the first difference that makes `written` (a checkpoint's description) unusable for a run
// described by `here` (checkpointDescription): another solver, atom count, box, mass, potential, precision, engine or
// process grid. Run length, output, thermo, neighbour skin and integrator may change on a restart.
void checkCheckpoint(const nlohmann::json& written, const nlohmann::json& here, const std::filesystem::path& folder);

// This rank's engine state as blocks (positions, velocities, forces, box and mass as float64, ids as int64, sums),
// and back: bitwise, as the engine saved it.
void addStateBlocks(const EngineState& state, io::CheckpointPart& part);
// Throws InputError when a block is missing or the blocks disagree in length.
EngineState stateFromBlocks(const io::CheckpointPart& part, std::size_t atomsInAll);

}  // namespace hopsim::md
