// Checkpoints on disk: one folder per checkpoint (`checkpoint_<step>/`) holding one HDF5 file per rank, each a
// description (JSON, which the solver fills and checks) and named blocks of bytes (the solver's state).
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/CheckpointSpec.h"
#include "core/Mpi.h"
#include "io/CaseReader.h"

namespace hopsim::io {

// One rank's part of a checkpoint. HDF5: the description as the string attribute `hopsim_checkpoint`, each block as
// a one-dimensional uint8 dataset of its name.
struct CheckpointPart {
  nlohmann::json description;
  std::vector<std::pair<std::string, std::vector<std::byte>>> blocks;

  const std::vector<std::byte>& block(const std::string& name) const;  // throws InputError when missing
};

// The format of the part files; a checkpoint of another format version is refused.
inline constexpr int kCheckpointFormat = 1;

// dir/checkpoint_<step, 12 digits> and the file of `rank` in such a folder: r<rank, 5 digits>.h5.
std::filesystem::path checkpointFolder(const std::filesystem::path& dir, long long step);
std::filesystem::path checkpointPartFile(const std::filesystem::path& folder, int rank);

// Collective over comm: every rank writes its part into a temporary folder, and once all have, rank 0 renames the
// folder to checkpointFolder(dir, step), so a checkpoint exists whole or not at all (a failure on any rank throws on
// every rank and leaves no folder under the final name). Then rank 0 removes all but the newest `keep` checkpoints.
void writeCheckpoint(const std::filesystem::path& dir, long long step, const CheckpointPart& part,
                     const mpi::Comm& comm, int keep = 2);

// The checkpoint folder `given` names for --restart: a checkpoint folder, a part file in one, or a folder holding
// checkpoints (the newest one, by step). Throws InputError saying what was looked for when there is none.
std::filesystem::path findCheckpoint(const std::filesystem::path& given);

// Reads this rank's part of a checkpoint folder. Throws InputError when the checkpoint was written by another number
// of ranks, is not a hopsim checkpoint or has another format version.
CheckpointPart readCheckpoint(const std::filesystem::path& folder, const mpi::Comm& comm);

// output.checkpoint: {every: N} and/or {wall_minutes: M}, with located errors.
CheckpointSpec parseCheckpointSpec(const CaseNode& node);

// The description of one part file (its blocks left unread), and the number of ranks that wrote a checkpoint folder
// (from rank 0's part): what a run on another number of ranks reads first. InputError as readCheckpoint's.
nlohmann::json readCheckpointDescription(const std::filesystem::path& file);
int checkpointRanks(const std::filesystem::path& folder);

// Plain (not atomic) write and read of one part file, for writeCheckpoint, readCheckpoint and tests.
void writeCheckpointPart(const std::filesystem::path& file, const CheckpointPart& part);
CheckpointPart readCheckpointPart(const std::filesystem::path& file);

}  // namespace hopsim::io
