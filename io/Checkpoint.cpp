// Checkpoint folders of per-rank HDF5 files, committed by renaming the folder.
#include "io/Checkpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "core/ExitCode.h"
#include "io/AtomicFile.h"
#include "io/Hdf5Handle.h"

namespace hopsim::io {
namespace {

constexpr const char* kDescription = "hopsim_checkpoint";
constexpr const char* kPrefix = "checkpoint_";

// The step of a folder named checkpoint_<digits>, or nothing.
std::optional<long long> checkpointStep(const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  if (name.rfind(kPrefix, 0) != 0 || name.size() == std::string(kPrefix).size()) return std::nullopt;
  const std::string digits = name.substr(std::string(kPrefix).size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return std::stoll(digits);
}

// The checkpoint folders in dir, oldest first.
std::vector<std::pair<long long, std::filesystem::path>> checkpointsIn(const std::filesystem::path& dir) {
  std::vector<std::pair<long long, std::filesystem::path>> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (const auto step = checkpointStep(e.path()); step && e.is_directory()) found.emplace_back(*step, e.path());
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

const std::vector<std::byte>& CheckpointPart::block(const std::string& name) const {
  for (const auto& [n, bytes] : blocks)
    if (n == name) return bytes;
  throw InputError(fmt::format("the checkpoint has no '{}' data", name));
}

std::filesystem::path checkpointFolder(const std::filesystem::path& dir, long long step) {
  return dir / fmt::format("{}{:012d}", kPrefix, step);
}

std::filesystem::path checkpointPartFile(const std::filesystem::path& folder, int rank) {
  return folder / fmt::format("r{:05d}.h5", rank);
}

void writeCheckpointPart(const std::filesystem::path& file, const CheckpointPart& part) {
  using h5::own;
  h5::QuietErrors quiet;
  auto f = own(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, "H5Fcreate", file);
  {
    const std::string text = part.description.dump();
    auto type = own(H5Tcopy(H5T_C_S1), H5Tclose, "H5Tcopy", file);
    h5::checkStatus(H5Tset_size(type.get(), text.size() + 1), "H5Tset_size", file);
    auto scalar = own(H5Screate(H5S_SCALAR), H5Sclose, "H5Screate", file);
    auto attr = own(H5Acreate2(f.get(), kDescription, type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                    "H5Acreate2", file, "(attribute hopsim_checkpoint)");
    h5::checkStatus(H5Awrite(attr.get(), type.get(), text.c_str()), "H5Awrite", file,
                    "(attribute hopsim_checkpoint)");
  }
  for (const auto& [name, bytes] : part.blocks) {
    const std::string what = fmt::format("(dataset {})", name);
    const hsize_t size = bytes.size();
    auto space = own(H5Screate_simple(1, &size, nullptr), H5Sclose, "H5Screate_simple", file, what);
    auto dset = own(H5Dcreate2(f.get(), name.c_str(), H5T_STD_U8LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                               H5P_DEFAULT),
                    H5Dclose, "H5Dcreate2", file, what);
    if (size > 0)
      h5::checkStatus(H5Dwrite(dset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "H5Dwrite",
                      file, what);
  }
  f.close("H5Fclose", file);
}

namespace {

// Opens a part file for reading; InputError when it is missing or not HDF5.
h5::Handle openPart(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) throw InputError(fmt::format("no checkpoint file {}", file.string()));
  const hid_t opened = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (opened < 0) throw InputError(fmt::format("{} is not an HDF5 file (not a hopsim checkpoint)", file.string()));
  return h5::Handle(opened, H5Fclose);
}

// The description of an open part file, checked for the format version.
nlohmann::json readDescription(const h5::Handle& f, const std::filesystem::path& file) {
  using h5::own;
  if (H5Aexists(f.get(), kDescription) <= 0)
    throw InputError(fmt::format("{} is not a hopsim checkpoint (no '{}' attribute)", file.string(), kDescription));
  nlohmann::json description;
  {
    auto attr = own(H5Aopen(f.get(), kDescription, H5P_DEFAULT), H5Aclose, "H5Aopen", file);
    auto type = own(H5Aget_type(attr.get()), H5Tclose, "H5Aget_type", file);
    std::string text(H5Tget_size(type.get()), '\0');
    h5::checkStatus(H5Aread(attr.get(), type.get(), text.data()), "H5Aread", file);
    text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
    try {
      description = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(fmt::format("{}: the checkpoint description is not valid JSON ({})", file.string(), e.what()));
    }
  }
  if (!description.is_object() || description.value("format", 0) != kCheckpointFormat)
    throw InputError(fmt::format("{} has checkpoint format {}, this hopsim reads format {}", file.string(),
                                 description.is_object() ? description.value("format", 0) : 0, kCheckpointFormat));
  return description;
}

}  // namespace

nlohmann::json readCheckpointDescription(const std::filesystem::path& file) {
  h5::QuietErrors quiet;
  return readDescription(openPart(file), file);
}

int checkpointRanks(const std::filesystem::path& folder) {
  const nlohmann::json d = readCheckpointDescription(checkpointPartFile(folder, 0));
  const int ranks = d.value("ranks", 0);
  if (ranks < 1) throw InputError(fmt::format("{}: the checkpoint does not say how many ranks wrote it", folder.string()));
  return ranks;
}

CheckpointPart readCheckpointPart(const std::filesystem::path& file) {
  using h5::own;
  h5::QuietErrors quiet;
  const h5::Handle f = openPart(file);
  CheckpointPart part;
  part.description = readDescription(f, file);
  for (const auto& name : part.description.value("blocks", std::vector<std::string>{})) {
    const std::string what = fmt::format("(dataset {})", name);
    if (H5Lexists(f.get(), name.c_str(), H5P_DEFAULT) <= 0)
      throw InputError(fmt::format("{}: the checkpoint lacks its '{}' data", file.string(), name));
    auto dset = own(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose, "H5Dopen2", file, what);
    auto space = own(H5Dget_space(dset.get()), H5Sclose, "H5Dget_space", file, what);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    std::vector<std::byte> bytes(static_cast<std::size_t>(std::max<hssize_t>(n, 0)));
    if (n > 0)
      h5::checkStatus(H5Dread(dset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()), "H5Dread",
                      file, what);
    part.blocks.emplace_back(name, std::move(bytes));
  }
  return part;
}

CheckpointSpec parseCheckpointSpec(const CaseNode& node) {
  node.checkKeys({"every", "wall_minutes"});
  CheckpointSpec spec;
  if (const auto every = node.find("every")) spec.every = every->integer(1, 1'000'000'000'000LL);
  if (const auto minutes = node.find("wall_minutes")) spec.wallMinutes = minutes->positive();
  if (!spec.enabled())
    node.fail("'output.checkpoint' sets neither 'every' (steps between checkpoints) nor 'wall_minutes' (minutes of "
              "wall time between them); give one or both");
  return spec;
}

void writeCheckpoint(const std::filesystem::path& dir, long long step, const CheckpointPart& part,
                     const mpi::Comm& comm, int keep) {
  const std::filesystem::path folder = checkpointFolder(dir, step);
  // Named after rank 0's process, so that every rank writes into the same temporary folder.
  const std::filesystem::path tmp = comm.broadcast(temporaryPathFor(folder).string());
  CheckpointPart mine = part;
  std::vector<std::string> names;
  for (const auto& b : part.blocks) names.push_back(b.first);
  mine.description["format"] = kCheckpointFormat;
  mine.description["blocks"] = names;
  mine.description["rank"] = comm.rank();
  mine.description["ranks"] = comm.size();
  const std::string what = fmt::format("the checkpoint of step {}", step);
  std::string error;
  try {
    if (comm.isRoot()) ensureDirectory(tmp);
  } catch (const std::exception& e) {
    error = e.what();
  }
  mpi::throwIfAnyFailed(comm, error, what);
  try {
    writeCheckpointPart(checkpointPartFile(tmp, comm.rank()), mine);
  } catch (const std::exception& e) {
    error = e.what();
  }
  try {
    mpi::throwIfAnyFailed(comm, error, what);
  } catch (...) {
    std::error_code ignored;
    if (comm.isRoot()) std::filesystem::remove_all(tmp, ignored);
    throw;
  }
  if (comm.isRoot()) {
    std::error_code ec;
    // A checkpoint of this step from an earlier run (restarted from an older one) is replaced.
    if (std::filesystem::exists(folder)) std::filesystem::remove_all(folder, ec);
    std::filesystem::rename(tmp, folder, ec);
    if (ec) {
      const std::string cause = ec.message();
      std::filesystem::remove_all(tmp, ec);
      error = fmt::format("cannot move the checkpoint {} into place as {}: {}", tmp.string(), folder.string(), cause);
    } else {
      // The oldest beyond `keep` leave under a temporary name first (one rename), so that a run killed while one
      // is being removed leaves no half-removed folder under a checkpoint's name: on disk there are keep or,
      // between the rename above and this one, keep + 1 whole checkpoints.
      const auto all = checkpointsIn(dir);
      for (std::size_t k = 0; k + static_cast<std::size_t>(keep) < all.size(); ++k) {
        const std::filesystem::path retired = temporaryPathFor(all[k].second);
        std::filesystem::rename(all[k].second, retired, ec);
        std::filesystem::remove_all(ec ? all[k].second : retired, ec);
      }
    }
  }
  mpi::throwIfAnyFailed(comm, error, what);
}

std::filesystem::path findCheckpoint(const std::filesystem::path& given) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(given, ec) && checkpointStep(given.parent_path())) return given.parent_path();
  if (checkpointStep(given) && std::filesystem::is_directory(given, ec)) return given;
  if (std::filesystem::is_directory(given, ec)) {
    const auto all = checkpointsIn(given);
    if (!all.empty()) return all.back().second;
    throw InputError(fmt::format("--restart {}: no checkpoint in that folder (checkpoint_<step>/ folders, written "
                                 "when the case sets output.checkpoint)", given.string()));
  }
  throw InputError(fmt::format("--restart {}: no such checkpoint; give the output folder, a checkpoint_<step> folder "
                               "in it or a file in one", given.string()));
}

CheckpointPart readCheckpoint(const std::filesystem::path& folder, const mpi::Comm& comm) {
  const std::filesystem::path file = checkpointPartFile(folder, comm.rank());
  if (!std::filesystem::exists(file) && comm.rank() > 0)
    throw InputError(fmt::format("the checkpoint {} has no part for rank {}: it was written by fewer ranks; "
                                 "restart on the number of ranks that wrote it", folder.string(), comm.rank()));
  CheckpointPart part = readCheckpointPart(file);
  const int ranks = part.description.value("ranks", 0);
  if (ranks != comm.size())
    throw InputError(fmt::format("the checkpoint {} was written by {} MPI rank(s), this run has {}: restart on {}",
                                 folder.string(), ranks, comm.size(), ranks));
  return part;
}

}  // namespace hopsim::io
